"""The built-in `itemeval/*` offline models: deterministic stand-ins for real
providers."""
