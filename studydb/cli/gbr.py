"""``studydb gbr`` commands. Placeholder: being written."""

import typer

from studydb.cli import app

gbr_app = typer.Typer(help="GBR code lookups.", no_args_is_help=True)
app.add_typer(gbr_app, name="gbr")
