"""``comodor-lsp doctor``: settings, brain health, the team database, the watcher, the model.

Each check is ``ok``, ``warn`` (works, but the user should know) or ``fail``
(something the user believes works does not); any fail makes the command exit 1.
The doctor must tell the truth about what an editor would get, so it never runs on
a temporary brain: a home it cannot write is a fail, not "ok" for a throw-away
file. A team database that cannot be used (no driver, a URL that is not
PostgreSQL, a refused login) is a fail of its own, and the local brain under it
is still checked, so one broken part never hides the state of the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import attrs

from .app import ComodorApp
from .brain.errors import BrainError, BrainUnavailable
from .brain.store.sqlite_schema import SCHEMA_VERSION
from .config import Loaded

Status = Literal["ok", "warn", "fail"]


def sentence(text: str) -> str:
    """``text`` as one sentence that ends with its full stop (every line doctor prints)."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


@attrs.frozen
class Check:
    name: str
    status: Status
    detail: str = attrs.field(converter=sentence)

    @property
    def ok(self) -> bool:
        """False only for a fail: a warning does not change the exit code."""
        return self.status != "fail"


def _settings(problems: tuple[str, ...]) -> list[Check]:
    if not problems:
        return [Check("settings", "ok", "no problems found")]
    return [
        Check(
            "settings",
            "fail",
            f"{problem}; an editor ignores it and uses the value below it",
        )
        for problem in problems
    ]


def _open(workspace: Path | None, loaded: Loaded) -> tuple[ComodorApp | None, list[Check]]:
    """The app as a command-line run opens it (no temporary brain), and why it could not be.

    When a team database is set and opening fails, the local file alone is tried
    next: that tells a team problem (a ``database`` fail) from a brain problem.
    """
    settings = loaded.settings
    try:
        return ComodorApp(workspace, settings, temporary_fallback=False), []
    except BrainError as error:
        first = error
    if not settings.brain.url.strip():
        return None, [_unusable_brain(first)]
    local_only = attrs.evolve(settings, brain=attrs.evolve(settings.brain, url=""))
    try:
        app = ComodorApp(workspace, local_only, temporary_fallback=False)
    except BrainError as error:
        return None, [_unusable_brain(error)]
    unshared = f"{sentence(str(first))} Until that is fixed, nothing is shared with the team"
    return app, [Check("database", "fail", unshared)]


def _unusable_brain(error: BrainError) -> Check:
    if not isinstance(error, BrainUnavailable):  # another program's file, a newer schema
        return Check("brain", "fail", str(error))
    return Check(
        "brain",
        "fail",
        f"{sentence(str(error))} An editor would run on a temporary brain and keep nothing "
        "it learns; make the folder writable, or set COMODOR_HOME to a folder that is",
    )


def _brain(app: ComodorApp) -> Check:
    store = app.engine.store
    local = getattr(store, "local", store)  # a team store keeps the local file under it
    try:
        integrity = store.integrity_check()
    except Exception as error:  # a broken file must still produce a report
        return Check("brain", "fail", f"{store.path}: {error}")
    stats = app.engine.stats()
    detail = (
        f"{store.path} (schema {SCHEMA_VERSION}, integrity {integrity}): {stats.lessons} lessons, "
        f"{stats.rules} rules ({stats.confident_rules} confident), {stats.episodes} tasks"
    )
    # Outages of a team database are the database check's to report.
    notices = [n for n in app.engine.notices if "team database" not in n]
    if integrity != "ok" or getattr(local, "read_only", False):
        status: Status = "fail"
    else:
        status = "warn" if notices else "ok"
    return Check("brain", status, " ".join([sentence(detail), *map(sentence, notices)]))


def _watcher(workspace: Path | None, loaded: Loaded, app: ComodorApp | None) -> Check:
    settings = loaded.settings
    if workspace is None:
        return Check("watcher", "ok", "no workspace folder: nothing to watch")
    if not settings.watch.enabled:
        return Check("watcher", "warn", "off (watch.enabled is false): corrections are not learned")
    if app is not None and app.capture is not None:
        mode = app.watching
        return Check(
            "watcher", "ok" if mode in ("native", "polling") else "fail", f"{mode} on {workspace}"
        )
    from .capture.watcher import WorkspaceWatcher

    notices: list[str] = []
    watcher = WorkspaceWatcher(workspace, on_changes=lambda _: None, on_notice=notices.append)
    watcher.start()
    watcher.wait_ready(10.0)
    mode = watcher.mode
    watcher.stop()
    detail = f"{mode} on {workspace}" + (f" — {notices[0]}" if notices else "")
    return Check("watcher", "ok" if mode in ("native", "polling") else "fail", detail)


def _model(loaded: Loaded) -> Check:
    settings = loaded.settings.reflect
    if not settings.active:
        if settings.enabled:
            missing = "reflect.endpoint" if not settings.endpoint.strip() else "reflect.model"
            return Check(
                "model", "fail", f"reflect.enabled is true but {missing} is empty: nothing runs"
            )
        return Check("model", "ok", "reflection is off; nothing is sent anywhere")
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
        return Check("model", "ok", gateway.ping())
    except ReflectError as error:
        return Check("model", "fail", str(error))
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
    return Check("database", "ok" if ok else "fail", detail)


def diagnose(workspace: Path | None, loaded: Loaded) -> list[Check]:
    """Every check, in the order a user reads them: settings, brain, database, watcher, model."""
    checks = _settings(loaded.problems)
    app, failures = _open(workspace, loaded)
    try:
        if app is not None:
            checks.append(_brain(app))
            database = _database(app)
            if database is not None:
                checks.append(database)
        checks.extend(failures)
        checks.append(_watcher(workspace, loaded, app))
    finally:
        if app is not None:
            app.close()
    checks.append(_model(loaded))
    return checks
