"""``python -m doiget``: the same as the ``doiget`` command."""
from doiget.cli import run

run()
