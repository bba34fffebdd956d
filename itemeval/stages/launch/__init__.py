"""`itemeval launch`: one estimate, one gate and one lock for N shards, run as local
processes or Ray tasks."""
