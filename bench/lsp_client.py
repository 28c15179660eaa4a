"""The benchmarks drive a real ``comodor-lsp serve`` with the project's one test client.

Benchmarks must measure the server a user runs, not an in-process shortcut, so they play
the editor and the agent over stdio with :class:`comodor_lsp.testing.Editor`, the same
client the demo and the tests use, each server with a throw-away brain (``home``).
"""

from __future__ import annotations

from comodor_lsp.testing import Editor, running_server, server_env

BenchClient = Editor
"""The name the benchmarks have always used for it."""

__all__ = ["BenchClient", "Editor", "running_server", "server_env"]
