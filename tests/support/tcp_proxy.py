"""A counting TCP forwarder in front of the test cluster: every connection attempt seen.

While PostgreSQL is stopped nothing listens on its port, so it cannot count who
knocked; this forwarder keeps listening through the outage and counts every
connection a client opens (then closes it when the database does not answer), so a
test can say how often servers tried, not only that they came back. It forwards
bytes unchanged in both directions: libpq, TLS refusal and SCRAM pass through.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class CountingProxy:
    """127.0.0.1:<port> forwarding to ``127.0.0.1:<upstream>``; ``attempts`` counted."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self._server = socket.create_server(("127.0.0.1", 0), backlog=256)
        self.port = int(self._server.getsockname()[1])
        self.attempts = 0
        """Connections accepted so far (each a client's try, answered or not)."""
        self.stamps: list[float] = []
        """``time.monotonic()`` of every attempt, in order."""
        self._lock = threading.Lock()
        self._closed = False
        self._open: set[socket.socket] = set()
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    def attempts_between(self, start: float, end: float) -> int:
        with self._lock:
            return sum(1 for stamp in self.stamps if start <= stamp < end)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self.attempts += 1
                self.stamps.append(time.monotonic())
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.upstream, timeout=3)
        except OSError:
            client.close()  # the database is down: the client sees a closed connection
            return
        upstream.settimeout(None)
        with self._lock:
            self._open.update((client, upstream))
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    end.close()
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._server.close()
        with self._lock:
            ends = list(self._open)
        for end in ends:
            with contextlib.suppress(OSError):
                end.close()
