"""reflect."""
