"""``comodor mcp``: the brain as an MCP server over stdio, for assistants without an LSP.

Claude Code, Codex, Cursor, Cline and others speak MCP; this gives them the same
brain the language server uses (``$COMODOR_HOME/brain.db``), at the same time:
SQLite runs in WAL mode, the recall index follows other processes' writes
through the lesson log, and every tool call first catches up on rules (see
:meth:`ComodorApp.catch_up`). Tools are defined in :mod:`comodor.mcp_tools`;
this module is only the transport (the SDK's low-level server, so the schemas
and error results are exactly ours).

Brain calls block (SQLite, git), so they run on a worker thread, one at a time
and in arrival order, like the language server's brain thread.

Registering it, e.g. for Claude Code: ``claude mcp add comodor -- comodor mcp``;
for clients configured with JSON: ``{"command": "comodor", "args": ["mcp",
"--workspace", "/path/to/project"]}``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from comodor import __version__
from comodor.app import ComodorApp
from comodor.mcp_tools import TOOLS, call_tool
from comodor.settings import Settings

log = logging.getLogger(__name__)

RULES_URI = "comodor://rules"
LESSONS_URI = "comodor://lessons"
MARKDOWN = "text/markdown"

INSTRUCTIONS = (
    "Comodor is this user's learning memory for the project. Before working on a request, "
    "call comodor_begin_task with it and follow the playbook it returns; when done, call "
    "comodor_end_task with an honest outcome. When the user states a preference or a rule, "
    "teach it (comodor_teach, comodor_teach_rule); when they say one is wrong, comodor_forget."
)

RESOURCES = (
    types.Resource(
        name="house-rules",
        title="House rules",
        uri=RULES_URI,
        description="The project's confident house rules with their evidence, as Markdown.",
        mime_type=MARKDOWN,
    ),
    types.Resource(
        name="lessons",
        title="Lessons",
        uri=LESSONS_URI,
        description="What Comodor learned in this project (pinned first), as Markdown.",
        mime_type=MARKDOWN,
    ),
)


class BrainRunner:
    """Run blocking brain calls on a worker thread, one at a time, in order."""

    def __init__(self, app: ComodorApp) -> None:
        self.app = app
        self._limiter = anyio.CapacityLimiter(1)

    async def run(self, function: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(function, *args, limiter=self._limiter)


def build_server(runner: BrainRunner) -> Server[Any]:
    """The MCP server object, with tools and resources bound to ``runner``'s app."""
    app = runner.app

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        del ctx, params
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool.name,
                    title=tool.title,
                    description=tool.description,
                    input_schema=tool.input_schema(),
                    output_schema=tool.output_schema(),
                    annotations=types.ToolAnnotations(
                        title=tool.title,
                        read_only_hint=tool.read_only,
                        destructive_hint=tool.name == "comodor_forget",
                        open_world_hint=False,
                    ),
                )
                for tool in TOOLS.values()
            ]
        )

    async def call(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        del ctx
        outcome = await runner.run(call_tool, app, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.data,
            is_error=not outcome.ok,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        del ctx, params
        return types.ListResourcesResult(resources=list(RESOURCES))

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        del ctx
        uri = str(params.uri)
        if uri == RULES_URI:
            text = await runner.run(_fresh_rules, app)
        elif uri == LESSONS_URI:
            text = await runner.run(app.lessons_markdown)
        else:
            raise MCPError(types.INVALID_PARAMS, f"uri: no resource {uri!r}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MARKDOWN, text=text)]
        )

    return Server(
        "comodor",
        version=__version__,
        title="Comodor",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def _fresh_rules(app: ComodorApp) -> str:
    app.catch_up()
    return app.rules_markdown()


def open_app(workspace: Path) -> ComodorApp:
    """The app for ``workspace``, with the team's committed rules read in."""
    from comodor.team import import_team_rules

    app = ComodorApp(workspace, Settings())
    try:
        import_team_rules(app)
    except Exception:  # a malformed team file must not keep the tools away
        log.exception("reading team rules failed")
    return app


async def serve(workspace: Path) -> None:
    """Serve MCP over stdio until the client closes the connection."""
    app = await anyio.to_thread.run_sync(open_app, workspace)
    runner = BrainRunner(app)
    server = build_server(runner)

    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await anyio.to_thread.run_sync(app.close)


def run(workspace: Path) -> int:
    anyio.run(serve, workspace)
    return 0
