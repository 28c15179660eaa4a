"""An MCP server with a bad setting says so, in the same words as the editor and the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.mcp.conftest import mcp_session


async def test_a_bad_setting_is_logged_in_the_words_every_door_uses(
    workspace: Path, tmp_path: Path
) -> None:
    home = Path(os.environ["COMODOR_HOME"])
    (home / "settings.json").write_text(json.dumps({"diagnostics": {"severity": "loud"}}))
    log = tmp_path / "mcp.log"
    with log.open("w") as errlog:
        async with mcp_session(workspace, errlog=errlog) as session:
            tools = await session.list_tools()
    assert tools.tools, "the tools still work"
    said = log.read_text()
    assert (
        f'Comodor settings: diagnostics.severity: "loud" is not allowed in {home}/settings.json; '
        'it must be one of "error", "warning", "information", "hint", "off"; it is ignored '
        "until it is fixed."
    ) in said
    assert "Traceback" not in said
