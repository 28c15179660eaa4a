"""Capture for one workspace: the watcher, and the conventions scan, on threads of their own.

Neither touches the brain from its own thread. The watcher's thread reads
changed files and hands classification to the brain worker (see
``CaptureTracker.on_disk_changes``); the scan's thread reads the project and
hands its votes to the worker. The scan runs once per change of the project
(its fingerprint is kept in the brain), and each run *replaces* the previous
scan's votes. Both are started by the application for hosts that live long
(the language server), never by the command line.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..brain.engine import LearningEngine
from ..brain.worker import BrainWorker
from ..conventions.scanning.scan import project_fingerprint, scan_project
from ..settings import WatchSettings
from .tracker import CaptureTracker

log = logging.getLogger(__name__)

FINGERPRINT_KEY = "scan-fingerprint:"


class Capture:
    """The running capture of one workspace: its watcher and its scan thread."""

    def __init__(
        self,
        engine: LearningEngine,
        tracker: CaptureTracker,
        workspace: Path,
        worker: BrainWorker,
        watch: WatchSettings,
        on_notice: Callable[[str], None],
    ) -> None:
        self.engine = engine
        self.tracker = tracker
        self.workspace = workspace
        self.worker = worker
        self.watch = watch
        self.on_notice = on_notice
        self.watcher: Any = None
        self._stopping = threading.Event()
        self._scan_thread: threading.Thread | None = None

    @property
    def mode(self) -> str:
        """The watcher's state: ``native``, ``polling``, ``starting``, ``stopped`` or ``off``."""
        return str(self.watcher.mode) if self.watcher is not None else "off"

    def start(self, *, scan: bool) -> Capture:
        if scan:
            self._scan_thread = threading.Thread(
                target=self._scan, name="comodor-scan", daemon=True
            )
            self._scan_thread.start()
        if self.watch.enabled:
            self._start_watcher()
        return self

    def _start_watcher(self) -> None:
        from .watcher import WorkspaceWatcher

        watcher = WorkspaceWatcher(
            self.workspace,
            on_changes=self.tracker.on_disk_changes,
            exclude=self.watch.exclude,
            max_file_bytes=self.watch.max_file_bytes,
            on_notice=self.on_notice,
        )
        self.tracker.is_ignored = watcher.is_ignored
        watcher.start()
        self.watcher = watcher

    def _scan(self) -> None:
        """On the scan thread: read the project; the brain worker stores what it found."""
        engine = self.engine
        meta_key = FINGERPRINT_KEY + engine.project_scope
        try:
            fingerprint = project_fingerprint(self.workspace)
            known = self.worker.submit_read(lambda: engine.store.get_meta(meta_key)).result()
            if known != fingerprint and not self._stopping.is_set():
                scan = scan_project(self.workspace)

                def store() -> None:
                    engine.record_votes(
                        scan.votes, origin="scan", replace=True, scope=engine.project_scope
                    )
                    engine.store.set_meta(meta_key, scan.fingerprint)

                self.worker.post(store, "store the project scan")
            self.worker.post(engine.prune_checkpoints, "prune checkpoints")
        except Exception:
            if not self._stopping.is_set():  # a scan cut short by shutdown is not an error
                log.exception("project scan failed")

    def stop(self, timeout: float = 0.5) -> None:
        self._stopping.set()
        if self.watcher is not None:
            self.watcher.stop(timeout)
        if self._scan_thread is not None:
            self._scan_thread.join(timeout)
