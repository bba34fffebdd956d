"""What the command line shows: rich tables and text for people, JSON for scripts."""
