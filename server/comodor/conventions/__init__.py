"""Conventions: the catalogue of dimensions, the lexer, correction detectors and the scan."""
