"""What connects a study to other tools: the long export, data frames for a notebook,
and inspect logs imported."""
