"""studydb: an endgame-study database with GBR classification."""

import logging

__version__ = "0.1.0"

# The library logs; what is shown is the application's choice (python-chess does the same).
logging.getLogger(__name__).addHandler(logging.NullHandler())
