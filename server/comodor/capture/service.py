"""Starting capture for a workspace: the watcher, and the conventions scan.

Both run off the caller's thread: the watcher on its own threads, the scan on a
background thread started by the engine. The scan runs once per change of the
project (its fingerprint is kept in the brain), and each run *replaces* the
previous scan's votes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from comodor.app import ComodorApp
from comodor.capture.scan import scan_project

log = logging.getLogger(__name__)

FINGERPRINT_KEY = "scan-fingerprint:"


def scan_now(app: ComodorApp, *, force: bool = False) -> bool:
    """Read the project's conventions unless nothing changed since the last scan."""
    if app.workspace is None:
        return False
    engine = app.engine
    scan = scan_project(app.workspace)
    meta_key = FINGERPRINT_KEY + engine.project_scope
    if not force and engine.store.get_meta(meta_key) == scan.fingerprint:
        return False
    engine.record_votes(scan.votes, origin="scan", replace=True, scope=engine.project_scope)
    engine.store.set_meta(meta_key, scan.fingerprint)
    return True


def start_capture(app: ComodorApp, on_notice: Callable[[str], None]) -> Any:
    """Start watching the workspace and scanning it; return the watcher (or None)."""
    if app.workspace is None or app.tracker is None:
        return None

    def scan() -> None:
        scan_now(app)
        app.engine.prune_checkpoints()

    app.engine.project_scanner = scan
    app.engine.bootstrap_project()
    if not app.settings.watch.enabled:
        return None
    try:
        from comodor.capture.watcher import WorkspaceWatcher
    except ImportError:  # pragma: no cover - the watcher ships with the package
        log.warning("the workspace watcher is not available")
        return None
    tracker = app.tracker
    watcher = WorkspaceWatcher(
        app.workspace,
        on_changes=tracker.on_disk_changes,
        exclude=app.settings.watch.exclude,
        max_file_bytes=app.settings.watch.max_file_bytes,
        on_notice=on_notice,
    )
    tracker.is_ignored = watcher.is_ignored
    watcher.start()
    app.watcher = watcher
    return watcher
