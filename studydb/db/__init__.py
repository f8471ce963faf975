"""The database layer: :class:`studydb.db.database.Database` (``studydb.open``) is its way in.

The functions of its modules that take a SQLAlchemy engine (search, count,
stats, import, index, check, anticipation, persons, themes, the judge's
report) are this layer's own: outside ``studydb/db`` they are reached through
``Database``, and what the CLI and the web import from here are the records
those return (``tests/test_layers.py`` keeps both so).  :mod:`studydb.db.connect`
opens and migrates a database, for ``Database``, ``studydb db`` and ``serve``.
"""
