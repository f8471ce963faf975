"""``python -m studydb``: the command line, as the ``studydb`` script runs it."""

from studydb.cli import main

if __name__ == "__main__":
    main()
