"""The Comodor language server object and its state.

``ComodorServer`` holds what the handlers share: the app (created at
``initialize``), the brain thread, the settings as merged from
``initializationOptions`` and ``workspace/configuration``, and the prefetch
timers. Feature modules register their handlers on it in :func:`create_server`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from comodor import __version__
from comodor.app import ComodorApp
from comodor.lsp.worker import BrainWorker
from comodor.settings import Settings
from comodor.sync import LiveSync

log = logging.getLogger(__name__)


class ComodorProtocol(LanguageServerProtocol):
    """pygls's protocol, but every request gets an answer, even a malformed one.

    pygls drops a request whose params do not fit the method (``hover`` with
    ``params: null``): it logs and moves on, and the client waits forever. Here
    such a request is answered with the JSON-RPC error pygls raised.
    """

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            message_id = data.get("id")
            if (
                isinstance(message_id, (int, str))
                and not isinstance(message_id, bool)
                and "method" in data
            ):
                self._send_response(
                    message_id,
                    error=types.ResponseError(
                        code=error.code,
                        message=f"{data['method']}: the params do not fit the method",
                    ),
                )
            raise


class ComodorServer(LanguageServer):
    """pygls server plus the state Comodor's handlers share."""

    def __init__(self) -> None:
        super().__init__(
            "comodor",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ComodorProtocol,
        )
        self.app: ComodorApp | None = None
        self.brain = BrainWorker()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.init_settings = Settings()
        """Settings from ``initializationOptions``: the only source trusted to move the
        brain or enable the network (see :func:`comodor.settings.restrict_to_user_level`)."""
        self.settings = Settings()
        self.command_links = False
        """Whether hover may contain ``command:`` links (VS Code renders them)."""
        self.watcher: Any = None
        self.live_sync: LiveSync | None = None
        """Keeps ``sync.targets`` current (see :mod:`comodor.sync`), once initialized."""
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.document_queries: dict[str, str] = {}
        """uri -> the query whose recall was prefetched for that document"""

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log problems with a client's messages; never pop them up in the user's face."""
        log.warning("%s: %s", getattr(source, "__name__", source), error)

    def require_app(self) -> ComodorApp:
        if self.app is None:
            raise RuntimeError("the server is not initialized")
        return self.app

    def notify_memory(self, payload: dict[str, Any]) -> None:
        """Send ``comodor/memory`` from any thread."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self.protocol.notify, "comodor/memory", payload)

    def tell_user(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show a message from any thread (and log it)."""
        log.warning("%s", message)
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(
            self.window_show_message, types.ShowMessageParams(type=kind, message=message)
        )


def create_server() -> ComodorServer:
    from comodor.lsp import commands, documents, hover, lifecycle

    server = ComodorServer()
    lifecycle.register(server)
    commands.register(server)
    hover.register(server)
    documents.register(server)
    return server
