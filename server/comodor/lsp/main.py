"""``comodor-lsp serve``: build the server and register every handler module on it."""

from __future__ import annotations

from . import commands, documents, hover, lifecycle
from .server import ComodorServer


def create_server() -> ComodorServer:
    server = ComodorServer()
    for module in (lifecycle, commands, hover, documents):
        module.register(server)
    return server
