"""`itemeval report`: one self-contained HTML page of a study's results."""
