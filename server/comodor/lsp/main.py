"""``comodor-lsp serve``: build the server and register every handler module on it."""

from __future__ import annotations

from . import code_actions, diagnostics, documents, hover, lifecycle
from . import execute_command as commands
from .server import ComodorServer


def create_server() -> ComodorServer:
    server = ComodorServer()
    for module in (lifecycle, commands, hover, documents, diagnostics, code_actions):
        module.register(server)
    return server
