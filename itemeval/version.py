"""itemeval's version, named once: `itemeval --version` and `itemeval.__version__`."""

__version__ = "0.1.0"
