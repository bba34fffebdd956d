"""inspect-ai's entry point into itemeval: importing it registers the `itemeval/*`
offline provider."""

from itemeval import offline  # noqa: F401  (the @modelapi decorator runs on import)
