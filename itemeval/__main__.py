"""`python -m itemeval`: the same command line as the `itemeval` script."""

from .cli import run

raise SystemExit(run())
