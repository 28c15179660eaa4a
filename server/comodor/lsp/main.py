"""``comodor-lsp serve``: build the server and register every handler module on it."""

from __future__ import annotations

from . import assistant_edits, code_actions, diagnostics, documents, hover, lifecycle
from . import execute_command as commands
from .server import ComodorServer


def create_server() -> ComodorServer:
    server = ComodorServer()
    modules = (lifecycle, commands, hover, documents, assistant_edits, diagnostics, code_actions)
    for module in modules:
        module.register(server)
    return server
