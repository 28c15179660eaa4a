"""MCP tools and resources over stdio, sharing one brain with a running language server."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from comodor_lsp.mcp_tools import TOOLS, ForgetParams
from comodor_lsp.protocol.schema_export import object_schema

from tests.lsp.session import Session, check, schema
from tests.mcp.conftest import mcp_session

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

SUBJECTS = {
    "comodor_playbook": "playbook",
    "comodor_begin_task": "begin",
    "comodor_end_task": "end",
    "comodor_teach": "teach",
    "comodor_teach_rule": "rule",
    "comodor_rules": "rule",
    "comodor_feedback": "feedback",
    "comodor_forget": "forget",
}


async def call(mcp: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must succeed; check its result against the command's schema."""
    result = await mcp.call_tool(tool, arguments)
    assert not result.is_error, result.content
    data = result.structured_content
    assert isinstance(data, dict)
    check(f"commands/{TOOLS[tool].command}.result.json", data)
    return data


def without_help(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        name: {key: value for key, value in prop.items() if key != "description"}
        for name, prop in properties.items()
    }


async def test_every_tool_shares_the_brain_with_the_language_server(
    lsp: Session, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docstrings = (await lsp.command("comodor.teachRule", {"statement": "Write docstrings"}))["rule"]
    async with mcp_session(workspace) as mcp:
        listed = {tool.name: tool for tool in (await mcp.list_tools()).tools}
        assert set(listed) == set(SUBJECTS)
        for name, tool in listed.items():
            assert SUBJECTS[name] in name and tool.description
            command = TOOLS[name].command
            expected = (
                object_schema(ForgetParams, params=True)
                if name == "comodor_forget"
                else schema(f"commands/{command}.params.json")
            )
            properties = without_help(tool.input_schema["properties"])
            wanted = {k: v for k, v in expected["properties"].items() if k != "uri"}
            if name == "comodor_forget":
                wanted["kind"]["enum"] = ["lesson", "rule"]
            assert properties == wanted, name
            assert tool.input_schema.get("required", []) == expected.get("required", [])
            result_schema = schema(f"commands/{command}.result.json")
            assert tool.output_schema == {
                key: value
                for key, value in result_schema.items()
                if key not in ("$schema", "title")
            }

        # a rule taught over LSP is listed by the MCP tool
        rules = await call(mcp, "comodor_rules", {})
        assert [rule["statement"] for rule in rules["rules"]] == ["Write docstrings"]
        confident = await call(mcp, "comodor_rules", {"includeUnconfident": False})
        assert [rule["id"] for rule in confident["rules"]] == [docstrings["id"]]

        lesson = (await call(mcp, "comodor_teach", {"text": "testing: run pytest with -x"}))[
            "lesson"
        ]
        found = await lsp.command("comodor.lessons", {"query": "pytest"})
        assert [item["id"] for item in found["lessons"]] == [lesson["id"]]

        playbook = await mcp.call_tool("comodor_playbook", {"query": "add testing to the parser"})
        text = playbook.content[0].text  # type: ignore[union-attr]
        assert "Write docstrings" in text and "run pytest with -x" in text
        check("commands/comodor.playbook.result.json", playbook.structured_content)

        # a task begun over MCP is an episode the language server reports
        begun = await call(mcp, "comodor_begin_task", {"goal": "add testing to the parser"})
        assert [item["id"] for item in begun["lessons"]] == [lesson["id"]]
        ended = await call(
            mcp,
            "comodor_end_task",
            {
                "taskId": begun["taskId"],
                "success": True,
                "stopped": "done",
                "steps": 4,
                "elapsed": 12.5,
                "approvals": 1,
                "tokens": 900,
                "messages": [{"role": "user", "content": "add tests"}],
            },
        )
        assert ended["episodeId"] == begun["taskId"]
        progress = await lsp.command("comodor.progress")
        assert progress["episodes"] == 1 and progress["successRate"] == 1.0

        feedback = await call(
            mcp, "comodor_feedback", {"good": True, "note": "nice", "taskId": begun["taskId"]}
        )
        assert feedback["credited"] == 1

        # a rule taught over MCP is seen by the language server, and forgotten again
        taught = (await call(mcp, "comodor_teach_rule", {"statement": "Never push to main"}))[
            "rule"
        ]
        over_lsp = (await lsp.command("comodor.rules"))["rules"]
        assert "Never push to main" in [rule["statement"] for rule in over_lsp]
        forgotten = await call(mcp, "comodor_forget", {"id": taught["id"], "kind": "rule"})
        assert forgotten == {"removed": True}
        over_lsp = (await lsp.command("comodor.rules"))["rules"]
        assert [rule["statement"] for rule in over_lsp] == ["Write docstrings"]

        resources = {str(item.uri) for item in (await mcp.list_resources()).resources}
        assert resources == {"comodor://rules", "comodor://lessons"}
        rules_md = (await mcp.read_resource("comodor://rules")).contents[0]
        assert "Write docstrings" in rules_md.text and "Never push" not in rules_md.text  # type: ignore[union-attr]
        lessons_md = (await mcp.read_resource("comodor://lessons")).contents[0]
        assert "When testing: run pytest with -x" in lessons_md.text  # type: ignore[union-attr]

        assert await call(mcp, "comodor_forget", {"id": lesson["id"]}) == {"removed": True}
        assert (await lsp.command("comodor.lessons", {"query": "pytest"}))["lessons"] == []

        # round trip of a tool call (reported, bounded loosely: the machine is shared)
        timings = []
        for _ in range(15):
            started = time.perf_counter()
            await mcp.call_tool("comodor_rules", {})
            timings.append(time.perf_counter() - started)
        median = statistics.median(timings)
        with capsys.disabled():
            print(
                f"\nMCP comodor_rules round trip: median {median * 1000:.1f} ms, "
                f"max {max(timings) * 1000:.1f} ms"
            )
        assert median < 2.0


BAD = [
    pytest.param("comodor_begin_task", {}, "goal", id="missing-goal"),
    pytest.param("comodor_begin_task", {"goal": ""}, "goal", id="empty-goal"),
    pytest.param("comodor_end_task", {"taskId": "7", "success": True}, "taskId", id="id-string"),
    pytest.param("comodor_end_task", {"taskId": 1}, "success", id="missing-success"),
    pytest.param(
        "comodor_end_task",
        {"taskId": 1, "success": True, "messages": [{"role": "robot"}]},
        "messages[0].role",
        id="nested",
    ),
    pytest.param("comodor_teach", {"text": "x" * 1_000_000}, "text", id="huge-text"),
    pytest.param("comodor_teach", {"text": 12}, "text", id="text-number"),
    pytest.param("comodor_teach_rule", {"statement": "y" * 5000}, "statement", id="huge-rule"),
    pytest.param("comodor_rules", {"includeUnconfident": "yes"}, "includeUnconfident", id="flag"),
    pytest.param("comodor_playbook", {"query": "q", "maxTokens": 0}, "maxTokens", id="zero"),
    pytest.param("comodor_feedback", {"note": "meh"}, "good", id="missing-good"),
    pytest.param("comodor_forget", {"id": 1, "kind": "everything"}, "kind", id="kind"),
    pytest.param("comodor_forget", {"id": True}, "id", id="id-bool"),
    pytest.param("comodor_nope", {}, "name", id="unknown-tool"),
]


async def test_invalid_arguments_are_error_results_naming_the_argument(workspace: Path) -> None:
    async with mcp_session(workspace) as mcp:
        await call(mcp, "comodor_teach", {"text": "existing: must survive"})
        await call(mcp, "comodor_begin_task", {"goal": "an open task"})
        before = (await mcp.read_resource("comodor://lessons")).contents[0]
        for case in BAD:
            tool, arguments, field = case.values
            result = await mcp.call_tool(tool, arguments)  # type: ignore[arg-type]
            assert result.is_error, case.id
            text = result.content[0].text  # type: ignore[union-attr]
            assert f"`{field}`" in text or text.startswith(f"{field}:"), (case.id, text)
            assert len(text) < 500
        after = (await mcp.read_resource("comodor://lessons")).contents[0]
        assert after == before
        assert (await call(mcp, "comodor_rules", {}))["rules"] == []


async def test_a_committed_house_rules_file_is_read_at_start(workspace: Path) -> None:
    (workspace / ".comodor").mkdir()
    (workspace / ".comodor" / "house-rules.md").write_text(
        "# House rules\n\n## Style\n\n"
        "- Use tabs for indentation — *python · 2 corrections · 100% agree* "
        "<!-- comodor: indent.style=tab lang=python -->\n"
    )
    async with mcp_session(workspace) as mcp:
        (rule,) = (await call(mcp, "comodor_rules", {}))["rules"]
        assert (rule["key"], rule["value"], rule["language"]) == ("indent.style", "tab", "python")
        assert rule["confident"] and ".comodor/house-rules.md" in rule["evidence"]
        rules_md = (await mcp.read_resource("comodor://rules")).contents[0]
        assert "Use tabs for indentation" in rules_md.text  # type: ignore[union-attr]
