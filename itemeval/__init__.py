"""itemeval: generate-then-grade, item-level LLM evaluation on inspect-ai."""

__version__ = "0.1.0"
