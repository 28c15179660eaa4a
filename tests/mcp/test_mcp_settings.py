"""An MCP server with a bad setting says so, in the same words as the editor and the CLI."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.lsp.session import ROOT


async def test_a_bad_setting_is_logged_in_the_words_every_door_uses(
    workspace: Path, tmp_path: Path
) -> None:
    home = Path(os.environ["COMODOR_HOME"])
    (home / "settings.json").write_text(json.dumps({"diagnostics": {"severity": "loud"}}))
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "comodor_lsp", "mcp", "--workspace", str(workspace)],
        env={"COMODOR_HOME": str(home)},
        cwd=str(ROOT),
    )
    log = tmp_path / "mcp.log"
    with log.open("w") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as session,
        ):
            await session.initialize()
            tools = await session.list_tools()
    assert tools.tools, "the tools still work"
    said = log.read_text()
    assert (
        f'Comodor settings: diagnostics.severity: "loud" is not allowed in {home}/settings.json; '
        'it must be one of "error", "warning", "information", "hint", "off"; it is ignored '
        "until it is fixed."
    ) in said
    assert "Traceback" not in said
