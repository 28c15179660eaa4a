"""The one exception the reflection package raises.

Callers (the learning engine, ``comodor-lsp doctor``) only need to catch a single
type and show its message; every message is one line that names the problem
so a user can fix their configuration without reading a traceback.
"""

from __future__ import annotations


class ReflectError(Exception):
    """A reflection call failed; ``str(err)`` is a one-line, user-facing reason."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        # Collapse any stray newlines so logs and status bars stay one line.
        super().__init__(" ".join(message.split()))
        #: The HTTP status behind the failure, when there was one (e.g. 401).
        self.status = status
