"""studydb: an endgame-study database with GBR classification."""

__version__ = "0.1.0"
