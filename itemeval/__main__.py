"""`python -m itemeval`: the same command line as the `itemeval` script."""

from itemeval.cli import run

raise SystemExit(run())
