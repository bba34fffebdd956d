"""Spending where it decides: sizing a comparison by its power, and running until a
pair is decided."""
