"""``comodor-lsp doctor``: brain health, the team database, the watcher, the model endpoint.

One function, :func:`diagnose`, serves the CLI and the ``comodor.doctor``
command, so both always tell the same story.
"""

from __future__ import annotations

import attrs

from .app import ComodorApp
from .brain.store.sqlite_schema import SCHEMA_VERSION


@attrs.frozen
class Check:
    name: str
    ok: bool
    detail: str


def _brain(app: ComodorApp) -> Check:
    store = app.engine.store
    try:
        integrity = store.integrity_check()
    except Exception as error:  # a broken file must still produce a report
        return Check("brain", False, f"{store.path}: {error}")
    stats = app.engine.stats()
    detail = (
        f"{store.path} (schema {SCHEMA_VERSION}, integrity {integrity}): {stats.lessons} lessons, "
        f"{stats.rules} rules ({stats.confident_rules} confident), {stats.episodes} tasks"
    )
    notices = " ".join(app.engine.notices)
    return Check("brain", integrity == "ok", f"{detail}. {notices}".strip())


def _watcher(app: ComodorApp, probe: bool) -> Check:
    if app.workspace is None:
        return Check("watcher", True, "no workspace folder: nothing to watch")
    if not app.settings.watch.enabled:
        return Check("watcher", True, "off (watch.enabled is false)")
    if app.capture is None and probe:
        from .capture.watcher import WorkspaceWatcher

        notices: list[str] = []
        watcher = WorkspaceWatcher(
            app.workspace, on_changes=lambda _: None, on_notice=notices.append
        )
        watcher.start()
        watcher.wait_ready(10.0)
        mode = watcher.mode
        watcher.stop()
        detail = f"{mode} on {app.workspace}" + (f" — {notices[0]}" if notices else "")
        return Check("watcher", mode in ("native", "polling"), detail)
    return Check(
        "watcher", app.watching in ("native", "polling"), f"{app.watching} on {app.workspace}"
    )


def _model(app: ComodorApp) -> Check:
    settings = app.settings.reflect
    if not settings.active:
        return Check("model", True, "reflection is off; nothing is sent anywhere")
    from .reflect.gateway import ChatGateway
    from .reflect.reflection_error import ReflectError

    gateway = ChatGateway(
        settings.endpoint,
        settings.model,
        settings.api_key_env,
        timeout_s=min(settings.timeout_s, 15.0),
        max_retries=0,
    )
    try:
        return Check("model", True, gateway.ping())
    except ReflectError as error:
        return Check("model", False, str(error))
    finally:
        gateway.close()


def _database(app: ComodorApp) -> Check | None:
    """The team database: reachable, migrated, how fast, and what waits to be sent."""
    from .teamdb.team_store import TeamStore

    store = app.engine.store
    if not isinstance(store, TeamStore):
        return None
    from .teamdb.health import check_team

    ok, detail = check_team(store)
    return Check("database", ok, detail)


def diagnose(app: ComodorApp, *, probe_watcher: bool = True) -> list[Check]:
    checks = [_brain(app), _watcher(app, probe_watcher), _model(app)]
    database = _database(app)
    return [*checks[:1], database, *checks[1:]] if database is not None else checks
