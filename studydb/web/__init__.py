"""``studydb serve``: the collection in a web browser (Starlette, Jinja2, uvicorn).

:func:`create_app` builds the application over a database (open it with
``studydb.open(path, read_only=True)``); templates, the style sheet and the
small script ship in this package, so the pages work offline.
"""

from __future__ import annotations

from studydb.web.app import create_app

__all__ = ["create_app"]
