"""``comodor-lsp mcp``: the brain as an MCP server over stdio, for assistants without an LSP.

Claude Code, Codex, Cursor, Cline and others speak MCP; this gives them the same
brain the language server uses (the same settings sources, :mod:`comodor.config`),
at the same time: SQLite runs in WAL mode and the app follows other processes'
writes (:meth:`ComodorApp.watch_other_processes`). Tools are defined in
:mod:`comodor.mcp_tools`; this module is only the transport (the SDK's
low-level server, so the schemas and error results are exactly ours).

Brain calls block (SQLite, git), so they run on the app's brain worker, writes
in arrival order and reads on the read lane, like the language server's.

Registering it, e.g. for Claude Code: ``claude mcp add comodor-lsp -- comodor-lsp mcp``;
for clients configured with JSON: ``{"command": "comodor-lsp", "args": ["mcp",
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

from . import SERVER_NAME, __version__
from .app import ComodorApp
from .mcp_tools import TOOLS, call_tool

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


def build_server(app: ComodorApp) -> Server[Any]:
    """The MCP server object, with tools and resources bound to ``app``."""
    worker = app.worker

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
        arguments = params.arguments
        outcome = await worker.run(lambda: call_tool(app, params.name, arguments))
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
            text = await worker.run_read(app.rules_markdown)
        elif uri == LESSONS_URI:
            text = await worker.run_read(app.lessons_markdown)
        else:
            raise MCPError(types.INVALID_PARAMS, f"uri: no resource {uri!r}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MARKDOWN, text=text)]
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        title="Comodor",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def open_app(workspace: Path) -> ComodorApp:
    """The app for ``workspace``, following other processes, with the team's rules read.

    Settings problems are logged in the words every door uses (``config.ignored``).
    """
    from . import config

    loaded = config.for_workspace(workspace)
    for problem in loaded.problems:
        log.warning("%s", config.ignored(problem))
    app = ComodorApp(workspace, loaded.settings)
    for notice in app.notices:
        log.warning("%s", notice)
    try:
        for notice in app.read_team_rules().notices:
            log.warning("%s", notice)
    except Exception:  # a malformed team file must not keep the tools away
        log.exception("reading team rules failed")
    app.check_brain(on_notice=lambda notice: log.warning("%s", notice))
    app.watch_other_processes()
    return app


async def serve(workspace: Path) -> None:
    """Serve MCP over stdio until the client closes the connection."""
    app = await anyio.to_thread.run_sync(open_app, workspace)
    server = build_server(app)

    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await anyio.to_thread.run_sync(app.close)


def run(workspace: Path) -> int:
    anyio.run(serve, workspace)
    return 0
