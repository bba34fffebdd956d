"""Spending where it decides: sizing a comparison by its power, running until a pair
is decided, and racing many conditions for the best."""
