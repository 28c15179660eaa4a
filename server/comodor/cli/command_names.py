"""The protocol's command names for ``comodor-lsp call``: the list, and the nearest to a typo.

``call comodor.nope`` must not open the brain to say the name is unknown; it says
which names exist and which one was probably meant, from the one command table
(:data:`comodor.commands.COMMANDS`), so the list can never fall behind the protocol.
"""

from __future__ import annotations

PREFIX = "comodor."


def listing() -> str:
    """Every command with its one-line summary, in the table's order."""
    from ..commands import COMMANDS

    width = max(len(name) for name in COMMANDS)
    return "\n".join(f"  {name.ljust(width)}  {entry.summary}" for name, entry in COMMANDS.items())


def unknown(name: str) -> str:
    """What ``call`` prints for a name the protocol does not have."""
    from ..commands import nearest_command

    guess = nearest_command(name)
    hint = f" Did you mean {guess}?" if guess else ""
    return f"comodor-lsp: unknown command {name!r}.{hint} The protocol's commands:\n{listing()}"
