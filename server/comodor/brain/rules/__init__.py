"""House rules: votes into rules, the verdict on a dimension, denials, signals."""
