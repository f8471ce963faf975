"""Alembic environment and revisions, shipped inside the package.

Run programmatically (see :func:`studydb.db.connect.upgrade`); there is no
``alembic.ini``.  ``HEAD_REVISION`` lets a database be checked for being up
to date without importing Alembic (a test keeps it equal to Alembic's head).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Connection

HEAD_REVISION = "0018"
SCRIPT_LOCATION = Path(__file__).parent
#: Every revision this studydb has a script for (file names ``NNNN_….py``).
KNOWN_REVISIONS = frozenset(
    path.name.split("_", 1)[0] for path in (SCRIPT_LOCATION / "versions").glob("[0-9]*_*.py")
)


def alembic_config(connection: Connection | None = None) -> Config:
    """Return an Alembic config for our scripts, bound to ``connection`` if given."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("path_separator", "os")
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.set_main_option("version_locations", str(SCRIPT_LOCATION / "versions"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config
