"""The Comodor language server object and its state.

``ComodorServer`` holds what the handlers share: the app (created at
``initialize``), the brain worker, the settings as resolved from the user file,
``initializationOptions`` and ``workspace/configuration``, and the prefetch
timers. The handlers live in one module per concern (``lifecycle``,
``commands``, ``hover``, ``documents``, ``diagnostics``, ``code_actions``), each a
module-level function named for its method, registered by :func:`create_server`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from .. import __version__, config
from ..app import ComodorApp
from ..brain.events import Event, MemoryEvent
from ..brain.worker import BrainWorker

if TYPE_CHECKING:
    from .diagnostics import DiagnosticsPublisher

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
        self.loaded = config.load()
        """Settings as resolved so far; ``loaded.trusted`` is the only source allowed to
        move the brain, enable the network or name files to write."""
        self.command_links = False
        """Whether hover may contain ``command:`` links (VS Code renders them)."""
        self.memory_notifications = False
        """Whether the client declared ``experimental.comodorMemory`` (it shows its own
        announcements); otherwise learned rules are also announced with showMessage."""
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.diagnostics: DiagnosticsPublisher | None = None
        """Pushes house-rule diagnostics for open documents (see ``lsp.diagnostics``)."""

    @property
    def settings(self) -> Any:
        return self.loaded.settings

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log problems with a client's messages; never pop them up in the user's face."""
        log.warning("%s: %s", getattr(source, "__name__", source), error)

    def require_app(self) -> ComodorApp:
        if self.app is None:
            raise RuntimeError("the server is not initialized")
        return self.app

    def on_event(self, event: Event) -> None:
        """A brain event (on the worker thread): tell the client what it should see.

        Every memory event becomes ``comodor/memory``. A client that did not
        declare ``experimental.comodorMemory`` (Neovim, Emacs) would never show
        those, so a rule that became confident is also announced in words.
        """
        app = self.app
        if app is None or not isinstance(event, MemoryEvent):
            return
        payload = app.wire.memory(event)
        self.send_soon("comodor/memory", payload)
        if payload["action"] == "rule" and not self.memory_notifications:
            verb = "You taught Comodor" if payload.get("taught") else "Comodor learned"
            for rule in payload["items"]:
                self.tell_user(
                    f"{verb} a house rule: {rule['statement']} ({rule['evidence']})",
                    types.MessageType.Info,
                )

    def send_soon(self, method: str, params: Any) -> None:
        """Send a notification from any thread."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self.protocol.notify, method, params)

    def tell_user(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show a message from any thread (and log it)."""
        log.log(logging.INFO if kind == types.MessageType.Info else logging.WARNING, "%s", message)
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(
            self.window_show_message, types.ShowMessageParams(type=kind, message=message)
        )
