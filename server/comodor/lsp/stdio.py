"""The stdio transport: a reader thread that never blocks the loop, and the message pump.

Why not pygls's ``start_io``? Its reader trusts the framing (see
:mod:`comodor.lsp.framing`), and it reads each line through ``run_in_executor``
on the same thread pool that ``@server.thread`` handlers use, so busy handlers
and message reading starve each other. Here one daemon thread reads the raw
file descriptor (``os.read``: no buffered-reader lock a daemon thread could hold
at interpreter shutdown), decodes frames and bodies off the loop, and hands
finished events to the loop with backpressure: at most :data:`IN_FLIGHT` events
wait, so a client that floods the server is slowed down, not buffered in memory.

The pump, on the loop, gives each event to :meth:`ComodorProtocol.receive`; an
error in one message is logged and the next one is read. ``exit`` ends the
process with code 0 when ``shutdown`` was received before, else 1, as LSP says
(pygls's own ``start_io`` swallows the code, and would give 1 for an ``exit``
that arrives while the shutdown handler is still running).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO

from pygls.io_ import StdoutWriter

from .framing import Event, FrameDecoder, Malformed

if TYPE_CHECKING:
    from .server import ComodorServer

log = logging.getLogger(__name__)

IN_FLIGHT = 8
"""Decoded events allowed to wait for the loop before the reader stops reading."""

READ_CHUNK = 64 * 1024


class _EndOfInput:
    """Posted once when stdin is closed or unreadable."""


END = _EndOfInput()


class StdinReader:
    """Read and decode stdin on a daemon thread; deliver events into an asyncio queue."""

    def __init__(self, read: Callable[[int], bytes], loop: asyncio.AbstractEventLoop) -> None:
        self._read = read
        self._loop = loop
        self.events: asyncio.Queue[Event | _EndOfInput] = asyncio.Queue()
        self._slots = threading.Semaphore(IN_FLIGHT)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="comodor-stdin", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop delivering (the thread may stay blocked in ``read`` until stdin closes)."""
        self._stopped.set()
        self._slots.release()

    def taken(self) -> None:
        """The pump took one event: let the reader deliver another."""
        self._slots.release()

    def _run(self) -> None:
        decoder = FrameDecoder()
        try:
            while not self._stopped.is_set():
                try:
                    data = self._read(READ_CHUNK)
                except OSError as error:
                    log.warning("reading stdin failed: %s", error)
                    data = b""
                if not data:
                    for event in decoder.finish():
                        self._deliver(event)
                    return
                try:
                    events = decoder.feed(data)
                except Exception:  # a bug in the decoder must not make the server deaf
                    log.exception("decoding stdin failed; starting afresh at the next header")
                    decoder = FrameDecoder()
                    events = [Malformed("the server could not decode these bytes")]
                for event in events:
                    self._deliver(event)
        finally:
            self._post(END)

    def _deliver(self, event: Event) -> None:
        self._slots.acquire()
        if not self._stopped.is_set():
            self._post(event)

    def _post(self, item: Event | _EndOfInput) -> None:
        try:
            self._loop.call_soon_threadsafe(self.events.put_nowait, item)
        except RuntimeError:  # the loop is closed: the server is gone
            self._stopped.set()


def _reader_for(stdin: BinaryIO) -> Callable[[int], bytes]:
    try:
        descriptor = stdin.fileno()
    except (AttributeError, OSError, ValueError):
        read1 = getattr(stdin, "read1", stdin.read)
        return lambda size: bytes(read1(size))
    return lambda size: os.read(descriptor, size)


async def pump(server: ComodorServer, reader: StdinReader) -> None:
    """Hand every decoded event to the protocol, in order, until stdin ends."""
    protocol = server.protocol
    while True:
        event = await reader.events.get()
        reader.taken()
        if isinstance(event, _EndOfInput):
            log.info("stdin closed")
            return
        try:
            protocol.receive(event)
        except (SystemExit, KeyboardInterrupt, BrokenPipeError):
            raise
        except Exception:
            log.exception("handling a message failed; reading the next one")


def serve_stdio(
    server: ComodorServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> int:
    """Run the language server on stdin/stdout until ``exit`` or the end of input.

    Returns the process exit code: 0 when ``shutdown`` was received before, else 1
    (an ``exit`` without it, or a client that vanished).
    """
    read = _reader_for(stdin or sys.stdin.buffer)
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_quiet_cancellations)
        reader = StdinReader(read, loop)
        reader.start()
        try:
            await pump(server, reader)
        finally:
            reader.stop()

    try:
        asyncio.run(main())
    except SystemExit:
        pass  # ``exit``: pygls asks for 0 only once its shutdown handler has finished
    except BrokenPipeError:
        log.warning("the client closed the connection; stopping")
    except KeyboardInterrupt:
        return 1
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
    # LSP: 0 if the shutdown request has been *received* before, otherwise 1
    return 0 if server.protocol.shutdown_received else 1


def _quiet_cancellations(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Log handlers cancelled at ``exit`` quietly; report every other loop error as usual.

    At ``exit`` asyncio cancels the handlers still running, and pygls's callbacks
    then raise ``CancelledError``: that is the point, not an error worth a traceback.
    """
    if isinstance(context.get("exception"), asyncio.CancelledError):
        log.debug("cancelled at exit: %s", context.get("message"))
        return
    loop.default_exception_handler(context)
