"""Diagnostics: which rules a document is checked against, and where it breaks them."""
