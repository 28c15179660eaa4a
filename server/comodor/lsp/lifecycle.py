"""Start, configuration and shutdown.

``initialize`` resolves the settings (user file ← ``initializationOptions``) and
opens the brain (on the brain worker) for the first workspace folder;
``initialized`` pulls the ``comodor`` configuration section and starts the
background parts through the app: the freshness poller, the team's committed
rules, capture and the live sync of instruction files. ``shutdown`` stops all
of it well within a second and never waits on the client.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from .. import config
from ..app import ComodorApp
from ..brain.errors import InvalidInput
from ..document_capture import uri_to_path
from ..protocol.editor import MEMORY_CAPABILITY
from . import diagnostics
from .server import ComodorServer

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
        except InvalidInput:
            return None
    if params.root_path:
        return Path(params.root_path)
    return None


def _wants_command_links(params: types.InitializeParams, options: Any) -> bool:
    if isinstance(options, dict) and isinstance(options.get("hoverCommandLinks"), bool):
        return bool(options["hoverCommandLinks"])
    name = params.client_info.name if params.client_info else ""
    return "code" in name.lower()  # VS Code, code-server, Code - OSS


def _declares_memory(params: types.InitializeParams) -> bool:
    experimental = params.capabilities.experimental
    return isinstance(experimental, dict) and experimental.get(MEMORY_CAPABILITY) is True


async def initialize(ls: ComodorServer, params: types.InitializeParams) -> None:
    ls.loop = asyncio.get_running_loop()
    options = params.initialization_options
    ls.loaded = config.load(options)
    ls.command_links = _wants_command_links(params, options)
    ls.memory_notifications = _declares_memory(params)
    workspace = _workspace(params)
    settings = ls.loaded.settings
    app = await ls.brain.run(lambda: ComodorApp(workspace, settings, worker=ls.brain))
    app.subscribe(ls.on_event)
    ls.app = app
    diagnostics.attach(ls)
    tell_settings_problems(ls)
    for notice in app.notices:
        ls.tell_user(notice)


async def initialized(ls: ComodorServer, params: types.InitializedParams) -> None:
    del params
    await _pull_in_flight(ls)
    app = ls.require_app()
    ls.brain.post(app.engine.warm, "build the recall index")
    app.check_brain(on_notice=ls.tell_user)
    app.watch_other_processes()
    if app.workspace is not None:
        ls.brain.post(lambda: read_team_rules(ls, app), "read the team's rules")

        def start_watching() -> None:
            # Capture builds the tracker at first use; it, the watcher (watchdog) and
            # sync take ~170 ms to load and start: on a thread, not on the event loop
            # that answers the editor meanwhile.
            app.start_capture(on_notice=ls.tell_user)
            app.start_live_sync()

        await asyncio.to_thread(start_watching)


async def did_change_configuration(
    ls: ComodorServer, params: types.DidChangeConfigurationParams
) -> None:
    del params
    await _pull_in_flight(ls)


async def _pull_in_flight(ls: ComodorServer) -> None:
    """Pull the settings, and let every command that arrives meanwhile wait for them.

    Both ``initialized`` and ``workspace/didChangeConfiguration`` are notifications: the
    user's next request may already be queued behind them (a playbook right after
    "learning off" must not still recall), so the pull is registered in
    ``settings_in_flight`` before its first await.
    """
    pulling = asyncio.ensure_future(pull_configuration(ls))
    ls.settings_in_flight.add(pulling)
    pulling.add_done_callback(ls.settings_in_flight.discard)
    await pulling


async def shutdown(ls: ComodorServer, params: None) -> None:
    del params
    for timer in ls.timers.values():
        timer.cancel()
    ls.timers.clear()
    if ls.diagnostics is not None:
        ls.diagnostics.close()
    app = ls.app
    loop = asyncio.get_running_loop()
    closing = loop.run_in_executor(None, app.close) if app is not None else None
    if closing is not None:
        try:
            await asyncio.wait_for(asyncio.shield(closing), timeout=0.8)
        except TimeoutError:
            log.warning("shutdown: background work did not stop in time; exiting anyway")
    ls.brain.stop(0.1)


async def pull_configuration(ls: ComodorServer) -> None:
    """Re-read the ``comodor`` section; it overrides the trusted settings field by field."""
    capabilities = ls.client_capabilities
    workspace = capabilities.workspace if capabilities else None
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
        pulled = values[0] if values else None
        ls.loaded = config.load(workspace_layer=pulled or {}, base=ls.loaded.trusted)
        tell_settings_problems(ls)
    app = ls.app
    if app is not None:
        settings = ls.loaded.settings
        await ls.brain.run(lambda: app.configure(settings))
    if ls.diagnostics is not None:
        ls.diagnostics.schedule_all()  # severity, configRules or learning may have changed


def tell_settings_problems(ls: ComodorServer) -> None:
    """Show each settings problem once per session, in the words every door uses.

    A configuration pull re-resolves every layer, so the same problem comes back at
    each ``didChangeConfiguration``; the user is told the first time only.
    """
    for problem in ls.loaded.problems:
        if problem not in ls.told_settings:
            ls.told_settings.add(problem)
            ls.tell_user(config.ignored(problem))


def read_team_rules(ls: ComodorServer, app: ComodorApp) -> None:
    """Read committed ``house-rules.md`` files (on the brain worker) and say what was off."""
    for notice in app.read_team_rules().notices:
        ls.tell_user(notice)


def register(server: ComodorServer) -> None:
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(types.SHUTDOWN)(shutdown)
