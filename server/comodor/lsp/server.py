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
import re
from typing import TYPE_CHECKING, Any, Protocol

import cattrs
from cattrs import Converter
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcServerNotInitialized
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter

from .. import SERVER_NAME, __version__, config
from ..brain.events import Event, MemoryEvent, Notice
from ..brain.worker import BrainWorker
from ..protocol import AssistantEditParams, camel
from . import allocator, envelope, framing
from .text_history import TextHistory

CONFIGURATION_PATIENCE_S = 6.0
"""How long a command waits for a settings change to be applied (a pull times out at 5 s)."""

if TYPE_CHECKING:
    from ..app import ComodorApp


class DocumentChecks(Protocol):
    """What the document handlers ask of the diagnostics publisher (``lsp.diagnostics``).

    A protocol, so the server holds its publisher without importing the module that
    builds on the server; code actions get the whole publisher from
    :func:`comodor.lsp.diagnostics.publisher`.
    """

    def schedule(self, uri: str, delay: float) -> None: ...
    def schedule_all(self) -> None: ...
    def closed(self, uri: str) -> None: ...
    def close(self) -> None: ...


log = logging.getLogger(__name__)


class ComodorProtocol(LanguageServerProtocol):
    """pygls's protocol, but every request gets an answer, even a malformed or untimely one.

    :meth:`receive` is the door for everything the stdio transport decoded
    (:mod:`comodor.lsp.stdio`). Before pygls sees a message it is checked, so
    that nothing pygls would drop in silence leaves the client waiting:

    - an unparsable body is answered with ParseError (-32700), a body that is not
      a JSON-RPC 2.0 message with InvalidRequest (-32600), id null when the id
      itself is unusable (:mod:`comodor.lsp.envelope`);
    - a lone surrogate or a non-finite number in a request is InvalidParams
      (-32602) naming the field; in a notification it is repaired;
    - the lifecycle (LSP "Server lifetime"): a request before ``initialize`` gets
      ServerNotInitialized (-32002); after ``shutdown`` every request gets
      InvalidRequest (pygls would drop it, and the client would hang) and every
      notification but ``exit`` is dropped;
    - params that do not fit the method (``hover`` with ``params: null``) are
      answered with InvalidParams naming the field, where pygls logs and moves on.
    """

    def __init__(self, server: LanguageServer, converter: Converter) -> None:
        super().__init__(server, converter)
        self.initialize_received = False
        self.shutdown_received = False

    def receive(self, event: framing.Event) -> None:
        """Handle one event from the framing layer (on the event loop)."""
        if isinstance(event, framing.Malformed):
            log.warning("malformed input: %s", event.reason)
            self._send_error(None, envelope.PARSE_ERROR, f"Parse error: {event.reason}")
            return
        rejection = envelope.rejection(event.value)
        if rejection is not None:
            log.warning("invalid message: %s", rejection.message)
            if rejection.answer:
                text = f"Invalid request: {rejection.message}"
                self._send_error(rejection.id, rejection.code, text)
            return
        message: dict[str, Any] = event.value
        method: str | None = message.get("method")  # a string: checked by the envelope
        request = method if method is not None and "id" in message else None
        if request is not None:
            if not self._admit_request(message["id"], request, message):
                return
        else:
            message, repaired = envelope.sanitised(message)
            for path in repaired:
                log.warning("%s: replaced a lone surrogate or non-finite number", path)
            if method is not None and not self._admit_notification(method):
                return
        try:
            structured = self.structure_message(message)
        except JsonRpcException:
            return  # answered by structure_message when it was a request
        if request is not None:
            self._advance_lifecycle(request)
        self.handle_message(structured)

    def _admit_request(self, message_id: envelope.MessageId, method: str, message: Any) -> bool:
        """Answer a request that must not reach its handler; return whether it may."""
        refusal: tuple[int, str] | None = None
        if self.shutdown_received:
            refusal = envelope.INVALID_REQUEST, f"{method}: the server is shutting down"
        elif method == types.INITIALIZE and self.initialize_received:
            refusal = envelope.INVALID_REQUEST, "initialize: the server is already initialized"
        elif method != types.INITIALIZE and not self.initialize_received:
            refusal = (
                envelope.SERVER_NOT_INITIALIZED,
                f"{method}: the server is not initialized (send initialize first)",
            )
        if refusal is not None:
            self._send_error(message_id, *refusal)
            return False
        bad = envelope.bad_value(message)
        if bad is None and method == types.WORKSPACE_EXECUTE_COMMAND:
            bad = self._unknown_command(message.get("params"))
        if bad is not None:
            field, problem = bad
            self._send_error(message_id, envelope.INVALID_PARAMS, f"{field}: {problem}", field)
            return False
        return True

    def _unknown_command(self, params: Any) -> tuple[str, str] | None:
        """``command``: a name this server has no handler for, with the nearest one.

        pygls would answer the same error but log a traceback for a typo.
        """
        name = params.get("command") if isinstance(params, dict) else None
        if not isinstance(name, str) or name in self.fm.commands:
            return None
        from ..commands import nearest_command

        guess = nearest_command(name)
        hint = f"; did you mean {guess}?" if guess else ""
        return "command", f"{name[:200]!r} is not a Comodor command{hint}"

    def _advance_lifecycle(self, method: str) -> None:
        """Note an accepted ``initialize`` or ``shutdown`` (one whose params were fine)."""
        if method == types.INITIALIZE:
            self.initialize_received = True
        elif method == types.SHUTDOWN:
            self.shutdown_received = True
            self._cancel_pending()

    def _cancel_pending(self) -> None:
        """Cancel every pending request now, from a snapshot (pygls#606, #605).

        pygls cancels them after the shutdown handler, iterating the very dict that
        cancelling changes: the shutdown then fails with ``RuntimeError`` (-32603) and
        ``exit`` reports an unclean stop. Cancelling first leaves it nothing to do;
        it also releases our own requests to the client, whose answers pygls drops
        after shutdown, so nothing waits for them forever.
        """
        for future in list(self._request_futures.values()):
            if not future.done():
                future.cancel()

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """Run a handler as pygls does, but forget its future once it is done.

        pygls files every asynchronous handler's future in ``_request_futures``
        (so that ``$/cancelRequest`` can find it) and removes it when it answers a
        request. A notification, and each step of its generator handlers (every
        ``workspace/executeCommand`` is one), is filed under a fresh UUID that
        nothing removes: each command's task, and the result it returned, stayed
        in memory for good (measured: 300 playbooks kept 6 MB). Removing only the
        entry that is this very future leaves cancellation as it was.
        """

        def forget_then_continue(future: Any) -> None:
            if self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]
            callback(future)

        super()._execute_handler(msg_id, handler, forget_then_continue, args, kwargs)

    def _admit_notification(self, method: str) -> bool:
        if method == types.EXIT:
            return True
        if not self.initialize_received or self.shutdown_received:
            when = "after shutdown" if self.shutdown_received else "before initialize"
            log.info("dropped the %s notification: it came %s", method, when)
            return False
        return True

    def _send_error(
        self,
        message_id: envelope.MessageId | None,
        code: int,
        message: str,
        field: str | None = None,
    ) -> None:
        """Send an error response; a plain dict, so that ``"id": null`` is kept, not omitted."""
        error: dict[str, Any] = {"code": code, "message": message}
        if field is not None:
            error["data"] = {"field": field}
        self._send_data({"jsonrpc": "2.0", "id": message_id, "error": error})

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            message_id = data.get("id")
            if envelope.usable_id(message_id) and "method" in data:
                field, problem = _first_problem(error.__cause__)
                where = f"{field}: " if field else ""
                text = f"{data['method']}: {where}{problem}"
                # pygls calls some of these internal errors; they are the client's params
                self._send_error(message_id, envelope.INVALID_PARAMS, text, field or None)
            raise


def _first_problem(error: BaseException | None) -> tuple[str, str]:
    """The first field cattrs could not structure, as ``("params.processId", "invalid value")``.

    cattrs names lsprotocol's Python attributes (``process_id``, ``from_``); the
    client knows the wire names, so the path is given in those.
    """
    if isinstance(error, cattrs.BaseValidationError):
        for line in cattrs.transform_error(error, path="$"):
            problem, _, where = line.rpartition(" @ $")
            return _wire_path(where.lstrip(".")), problem or line
    return "", "the params do not fit the method"


def _wire_path(path: str) -> str:
    return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda name: camel(name.group().rstrip("_")), path)


class JsonReady(dict[str, Any]):
    """A command's result that is JSON already (``protocol.unstructure`` made it).

    pygls unstructures a response's ``result`` (typed ``Any``) by walking every
    value again; for a playbook (six lessons, its rules, its text) that walk cost
    more than recall itself. The converter passes these through as they are.
    """


def _converter() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_unstructure_hook(JsonReady, lambda ready: ready)
    return converter


class ComodorServer(LanguageServer):
    """pygls server plus the state Comodor's handlers share."""

    protocol: ComodorProtocol

    def __init__(self) -> None:
        super().__init__(
            SERVER_NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ComodorProtocol,
            converter_factory=_converter,
        )
        self.app: ComodorApp | None = None
        self.brain = BrainWorker(on_idle=allocator.release_free_memory)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loaded = config.load()
        """Settings as resolved so far; ``loaded.trusted`` is the only source allowed to
        move the brain, enable the network or name files to write."""
        self.told_settings: set[str] = set()
        """Settings problems already shown to the user (each is shown once)."""
        self.command_links = False
        """Whether hover may contain ``command:`` links (VS Code renders them)."""
        self.memory_notifications = False
        """Whether the client declared ``experimental.comodorMemory`` (it shows its own
        announcements); otherwise learned rules are also announced with showMessage."""
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.texts = TextHistory()
        """Each open document's text before its latest change (``comodor/assistantEdit``)."""
        self.early_notices: dict[str, AssistantEditParams] = {}
        """``comodor/assistantEdit`` notices that arrived before the change they name."""
        self.diagnostics: DocumentChecks | None = None
        """Pushes house-rule diagnostics for open documents (see ``lsp.diagnostics``)."""
        self.settings_in_flight: set[asyncio.Future[Any]] = set()
        """Configuration pulls not yet applied; commands wait for them (bounded) so a
        request sent after a settings change is answered under the new settings."""

    @property
    def settings(self) -> Any:
        return self.loaded.settings

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log problems with a client's messages; never pop them up in the user's face."""
        log.warning("%s: %s", getattr(source, "__name__", source), error)

    async def settings_applied(self) -> None:
        """Wait (at most a few seconds) until every settings change received is applied.

        ``workspace/didChangeConfiguration`` is a notification: the server must ask the
        client for the values and hand them to the brain, while the user's next request
        is already on its way. Without this wait that request could still see the old
        settings (a playbook after "learning off" would still recall).
        """
        if self.settings_in_flight:
            await asyncio.wait(set(self.settings_in_flight), timeout=CONFIGURATION_PATIENCE_S)

    def require_app(self) -> ComodorApp:
        if self.app is None:
            raise JsonRpcServerNotInitialized("the server is not initialized")
        return self.app

    def on_event(self, event: Event) -> None:
        """A brain event (on the worker thread): tell the client what it should see.

        Every memory event becomes ``comodor/memory``. A client that did not
        declare ``experimental.comodorMemory`` (Neovim, Emacs) would never show
        those, so a rule that became confident is also announced in words.
        """
        app = self.app
        if isinstance(event, Notice):
            self.tell_user(event.message)
            return
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
