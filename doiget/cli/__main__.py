from doiget.cli import run

run()
