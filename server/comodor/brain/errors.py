"""Errors the brain raises at its public boundary.

Callers (the language server, the MCP server, the CLI) translate these into their
own error shapes; the brain itself knows nothing about JSON-RPC.
"""

from __future__ import annotations


class BrainError(Exception):
    """Something the brain could not do; the message is meant for the user."""


class InvalidInput(BrainError, ValueError):
    """An argument was missing, of the wrong type or out of range.

    ``field`` names the argument so the caller can say exactly what was wrong.
    Raised *before* anything is written, so bad input never changes the brain.
    """

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class BrainUnavailable(BrainError):
    """The brain file cannot be written (read-only folder, disk full…)."""

    reason: str = ""
    """The cause in a few words ("the disk is full")."""
