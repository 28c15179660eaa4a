"""The protocol's command names for ``comodor-lsp call``: the list, and the nearest to a typo.

``call comodor.nope`` must not open the brain to say the name is unknown; it says
which names exist and which one was probably meant, from the one command table
(:data:`comodor.commands.COMMANDS`), so the list can never fall behind the protocol.
"""

from __future__ import annotations

import difflib

PREFIX = "comodor."


def listing() -> str:
    """Every command with its one-line summary, in the table's order."""
    from ..commands import COMMANDS

    width = max(len(name) for name in COMMANDS)
    return "\n".join(f"  {name.ljust(width)}  {entry.summary}" for name, entry in COMMANDS.items())


def nearest(name: str) -> str | None:
    """The command ``name`` most likely meant (``rules``, ``comodor.rule`` → ``comodor.rules``)."""
    from ..commands import COMMANDS

    short = {full.removeprefix(PREFIX).lower(): full for full in COMMANDS}
    typed = name.strip().lower().removeprefix(PREFIX)
    found = difflib.get_close_matches(typed, list(short), n=1, cutoff=0.6)
    return short[found[0]] if found else None


def unknown(name: str) -> str:
    """What ``call`` prints for a name the protocol does not have."""
    guess = nearest(name)
    hint = f" Did you mean {guess}?" if guess else ""
    return f"comodor-lsp: unknown command {name!r}.{hint} The protocol's commands:\n{listing()}"
