"""Start, configuration and shutdown.

``initialize`` opens the brain (on the brain thread) for the first workspace
folder; ``initialized`` pulls the ``comodor`` configuration section and starts
the watcher, the project scan, the team's committed rules and the live sync of
instruction files in the background; ``shutdown`` stops all of
it well within a second and never waits on the client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from comodor.app import ComodorApp, uri_to_path
from comodor.lsp.server import ComodorServer
from comodor.settings import Settings, merge, restrict_to_user_level
from comodor.sync import LiveSync
from comodor.team import import_team_rules

log = logging.getLogger(__name__)


def _workspace(params: types.InitializeParams) -> Path | None:
    uri = None
    if params.workspace_folders:
        uri = params.workspace_folders[0].uri
    elif params.root_uri:
        uri = params.root_uri
    if uri:
        try:
            return uri_to_path(uri)
        except ValueError:
            return None
    if params.root_path:
        return Path(params.root_path)
    return None


def _wants_command_links(params: types.InitializeParams, options: Any) -> bool:
    if isinstance(options, dict) and isinstance(options.get("hoverCommandLinks"), bool):
        return bool(options["hoverCommandLinks"])
    name = params.client_info.name if params.client_info else ""
    return "code" in name.lower()  # VS Code, code-server, Code - OSS


def register(server: ComodorServer) -> None:
    @server.feature(types.INITIALIZE)
    async def initialize(ls: ComodorServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        options = params.initialization_options
        problems: list[str] = []
        ls.init_settings = merge(Settings(), options, problems)
        ls.settings = ls.init_settings
        ls.command_links = _wants_command_links(params, options)
        workspace = _workspace(params)
        app = await ls.brain.run(lambda: ComodorApp(workspace, ls.settings))
        app.on_memory(ls.notify_memory)
        ls.app = app
        for problem in problems:
            log.warning("initializationOptions: %s", problem)
        for notice in app.engine.notices:
            ls.tell_user(notice)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: ComodorServer, params: types.InitializedParams) -> None:
        del params
        await pull_configuration(ls)
        app = ls.require_app()
        ls.brain.submit(app.engine.warm)
        if app.workspace is not None:
            ls.brain.submit(lambda: read_team_rules(app, ls.tell_user))
            await ls.brain.run(lambda: start_capture(ls))
            ls.live_sync = LiveSync(app)
            ls.live_sync.start()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: ComodorServer, params: types.DidChangeConfigurationParams
    ) -> None:
        del params
        await pull_configuration(ls)
        if ls.live_sync is not None:
            ls.live_sync.poke()  # sync.targets may have changed

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: ComodorServer, params: None) -> None:
        del params
        for timer in ls.timers.values():
            timer.cancel()
        ls.timers.clear()
        watcher, ls.watcher = ls.watcher, None
        live_sync, ls.live_sync = ls.live_sync, None
        app = ls.app
        loop = asyncio.get_running_loop()

        def stop_everything() -> None:
            if live_sync is not None:
                live_sync.stop(0.2)
            if watcher is not None:
                watcher.stop(0.5)
            if app is not None:
                app.close()

        closing = loop.run_in_executor(None, stop_everything)
        try:
            await asyncio.wait_for(asyncio.shield(closing), timeout=0.8)
        except TimeoutError:
            log.warning("shutdown: background work did not stop in time; exiting anyway")
        ls.brain.stop(0.1)


async def pull_configuration(ls: ComodorServer) -> None:
    """Re-read the ``comodor`` section; it overrides initializationOptions field by field."""
    capabilities = ls.client_capabilities
    workspace = capabilities.workspace if capabilities else None
    settings = ls.init_settings
    if workspace is not None and workspace.configuration:
        try:
            values = await asyncio.wait_for(
                ls.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="comodor")])
                ),
                timeout=5.0,
            )
        except Exception as error:  # a client that cannot answer must not stop us
            log.warning("workspace/configuration failed: %s", error)
            values = []
        problems: list[str] = []
        pulled = merge(ls.init_settings, values[0] if values else None, problems)
        settings = restrict_to_user_level(pulled, ls.init_settings)
        for problem in problems:
            log.warning("configuration: %s", problem)
    ls.settings = settings
    app = ls.app
    if app is not None:
        await ls.brain.run(lambda: app.configure(settings))


def start_capture(ls: ComodorServer) -> None:
    """Start the workspace watcher and the project scan (on the brain thread)."""
    app = ls.require_app()
    from comodor.capture.service import start_capture as start

    ls.watcher = start(app, on_notice=ls.tell_user)


def read_team_rules(app: ComodorApp, tell_user: Callable[[str], None]) -> None:
    """Read committed ``house-rules.md`` files (on the brain thread); never fatal."""
    try:
        for notice in import_team_rules(app).notices:
            tell_user(notice)
    except Exception:
        log.exception("reading team rules failed")
