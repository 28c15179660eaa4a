"""Comodor: a learning memory for AI coding assistants (distribution ``comodor-lsp``).

The package is layered: :mod:`comodor_lsp.brain` is the learning engine as a plain
library (no editor code), :mod:`comodor_lsp.capture` turns workspace activity into
evidence, :mod:`comodor_lsp.lsp` is the thin language-server layer, and
:mod:`comodor_lsp.cli` ties them to the command line.

``__version__`` is the one place the version is written: the wheel's metadata
(``pyproject.toml`` reads it), the CLI's ``--version``, the language server's and
the MCP server's ``serverInfo``, and the VS Code extension's ``package.json``
(checked by ``tests/test_release.py`` and by the VSIX build) all come from it.
"""

__version__ = "0.1.0"

SERVER_NAME = "comodor-lsp"
"""The name this program reports (LSP and MCP ``serverInfo``, ``--version``). The VS Code
extension checks it: PyPI's other ``comodor`` is a different program."""
