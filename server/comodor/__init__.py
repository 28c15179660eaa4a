"""Comodor: a learning memory for AI coding assistants.

The package is layered: :mod:`comodor.brain` is the learning engine as a plain
library (no editor code), :mod:`comodor.capture` turns workspace activity into
evidence, :mod:`comodor.lsp` is the thin language-server layer, and
:mod:`comodor.cli` ties them to the command line.
"""

__version__ = "0.1.0"
