"""`python -m itemeval`: the same command line as the `itemeval` script."""

from itemeval.cli import main

raise SystemExit(main())
