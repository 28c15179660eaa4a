"""``workspace/executeCommand``: every command of :data:`comodor.commands.COMMANDS`.

Each handler hands the raw argument to the app, which runs it on the brain
worker (reads on the read lane, so they answer even while a write waits for
another process's lock). Bad input becomes JSON-RPC InvalidParams (-32602)
naming the field; a brain that cannot be written becomes a server error the
editor shows; nothing is half-written because the app validates before it writes.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams, JsonRpcServerError

from ..brain.errors import BrainError, InvalidInput
from ..commands import COMMANDS
from .server import ComodorServer, JsonReady

log = logging.getLogger(__name__)

BRAIN_ERROR = -32001


async def execute(ls: ComodorServer, name: str, args: tuple[Any, ...]) -> Any:
    """Run command ``name`` with the client's arguments; translate errors to JSON-RPC."""
    if len(args) > 1:
        raise JsonRpcInvalidParams(
            f"argument: {name} takes exactly one argument, a JSON object; got {len(args)}"
        )
    argument = args[0] if args else None
    app = ls.require_app()
    await ls.settings_applied()
    try:
        result = await asyncio.wrap_future(app.call(name, argument))
    except InvalidInput as error:
        raise JsonRpcInvalidParams(str(error), data={"field": error.field}) from None
    except BrainError as error:
        raise JsonRpcServerError(str(error), code=BRAIN_ERROR) from None  # type: ignore[no-untyped-call]
    return JsonReady(result) if isinstance(result, dict) else result


def _handler(name: str) -> Any:
    async def run(ls: ComodorServer, *args: Any) -> Any:
        return await execute(ls, name, args)

    run.__name__ = name.replace(".", "_")
    # pygls reads a command handler's type hints and signature on every call; with
    # string annotations (``from __future__ import annotations``) that evaluated each
    # one anew, per request. Resolved once, here.
    run.__annotations__ = {"ls": ComodorServer, "args": Any, "return": Any}
    run.__signature__ = inspect.signature(run)  # type: ignore[attr-defined]
    return run


def register(server: ComodorServer) -> None:
    for name in COMMANDS:
        server.command(name)(_handler(name))
