"""Notice every file write in the workspace, whoever makes it, as clean batched changes.

The tracker needs to see what a terminal agent wrote, and later the user's edits
and undos of it, without an editor telling us. This module turns watchdog's raw,
noisy event stream into what the tracker can reason about:

- one net change per path per batch (see :mod:`~comodor.capture.coalesce`), with
  atomic saves reported as a single change of their target;
- nothing the user would not call "their code" (:mod:`~comodor.capture.ignore`),
  nor binary or oversized files (checked when delivered);
- a ``vcs`` flag on changes git made (:mod:`~comodor.capture.vcs`).

Threads: watchdog's own (inotify reader, one emitter per watch, one dispatcher),
plus ours: a *coalescer* that batches and tags, and a *deliverer* that runs
``on_changes``. The watchdog handler only enqueues, so a slow callback never
stalls event reading; batches that pile up behind a slow callback are merged.

Timing: a batch closes after ``settle_s`` of quiet (or ``max_batch_s`` of
continuous activity), then waits ``vcs_lookback_s`` (only in a git repository)
before it is tagged, so a git event that reaches us a little after the working-tree
events it caused still flags them. A change at time ``t`` is VCS if git was active
in ``[t - vcs_lookback_s, t + vcs_quiet_s]``, extended over continuous activity.
In polling mode the lookback also grows by one polling interval, because git's
files and the working tree are scanned at different moments.

Watches (inotify): the root non-recursively, each non-ignored top-level folder
recursively, and the git directory non-recursively. So a ``node_modules`` or
``.venv`` at the top costs no watches; heavy folders deeper down are still watched
(watchdog cannot exclude subtrees), their events are dropped. With more than
``MAX_TOP_LEVEL_WATCHES`` top-level folders, one recursive watch on the root is
used instead (one thread per watch). watchdog 7.1 silently skips subfolders it
cannot watch once the inotify limit is hit mid-tree; only a failure on a watched
root is reported, and that is what triggers the polling fallback.
"""

from __future__ import annotations

import errno
import logging
import os
import queue
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch
from watchdog.observers.polling import PollingObserverVFS

from .coalesce import Batch
from .ignore import IgnoreRules
from .known import KnownFiles
from .vcs import VcsTimeline, find_git_dirs, is_vcs_signal

log = logging.getLogger(__name__)

MAX_BATCH_S = 1.0
VCS_LOOKBACK_S = 0.3
POLL_INTERVAL_S = 2.0
MAX_TOP_LEVEL_WATCHES = 32
BINARY_PROBE_BYTES = 8192
FLUSH_TIMEOUT_S = 10.0
_WATCH_LIMIT_ERRNOS = frozenset({errno.ENOSPC, errno.EMFILE})
_KEPT_EVENTS = frozenset({"created", "modified", "deleted", "moved"})


@attrs.frozen
class FileChange:
    """The net change of one file over a batch."""

    path: Path
    """Absolute path inside the (resolved) workspace root."""
    kind: str
    """``modified`` | ``created`` | ``deleted``."""
    vcs: bool = False
    """Made during a version-control operation (checkout, merge, stash, reset…)."""


_Raw = tuple[str, str, str, bool, float]
"""(event type, src path, dest path or "", is directory, monotonic time seen)."""


class _Flush:
    """Marker sent through both queues; set once everything before it is delivered."""

    def __init__(self) -> None:
        self.done = threading.Event()


_STOP = object()


class _Forwarder(FileSystemEventHandler):
    """Runs on watchdog's dispatcher thread: timestamp, shrink, enqueue. Nothing else."""

    def __init__(self, sink: Callable[[_Raw], None]) -> None:
        super().__init__()
        self._sink = sink

    def dispatch(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if kind not in _KEPT_EVENTS or (event.is_directory and kind == "modified"):
            return
        dest = os.fsdecode(event.dest_path) if event.dest_path else ""
        self._sink((kind, os.fsdecode(event.src_path), dest, event.is_directory, time.monotonic()))


def _watch_limit_notice(exc: OSError) -> str:
    if exc.errno in _WATCH_LIMIT_ERRNOS:
        return (
            f"Comodor could not watch this workspace natively ({exc.strerror or exc}): the "
            "system's inotify limit is used up, typically by many open projects or big "
            "folders such as node_modules. It is falling back to polling, which notices "
            "agent writes a few seconds later and costs more CPU. To fix it, raise the limit, "
            "e.g. `sudo sysctl fs.inotify.max_user_watches=524288` (and "
            "fs.inotify.max_user_instances=512), then restart the language server."
        )
    return (
        f"Comodor could not watch this workspace natively ({exc}). It is falling back to "
        "polling, which notices agent writes a few seconds later and costs more CPU."
    )


class WorkspaceWatcher:
    """Watch ``root`` and hand coalesced, filtered :class:`FileChange` batches to a callback.

    ``on_changes`` runs on the watcher's own thread, one batch at a time; it may be
    slow (batches queue and merge) and its exceptions are logged, never fatal.
    ``on_notice`` gets sentences meant for the user (e.g. the polling fallback).
    """

    def __init__(
        self,
        root: Path,
        *,
        on_changes: Callable[[list[FileChange]], None],
        exclude: Sequence[str] = (),
        max_file_bytes: int = 2_000_000,
        on_notice: Callable[[str], None] = lambda message: None,
        settle_s: float = 0.15,
        vcs_quiet_s: float = 1.0,
        observer_factory: Callable[[], BaseObserver] | None = None,
        vcs_lookback_s: float = VCS_LOOKBACK_S,
        max_batch_s: float = MAX_BATCH_S,
        poll_interval_s: float = POLL_INTERVAL_S,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self._on_changes = on_changes
        self._on_notice = on_notice
        self._max_file_bytes = max_file_bytes
        self._settle_s = settle_s
        self._max_batch_s = max_batch_s
        self._poll_interval_s = poll_interval_s
        self._observer_factory = observer_factory
        self._git = find_git_dirs(self.root)
        info_exclude = self._git.common_dir / "info" / "exclude" if self._git else None
        self._rules = IgnoreRules(self.root, exclude=exclude, git_info_exclude=info_exclude)
        self._git_prefix = str(self._git.git_dir) + os.sep if self._git else None
        self._timeline = VcsTimeline(
            quiet_s=vcs_quiet_s, lookback_s=vcs_lookback_s if self._git else 0.0
        )
        self._known = KnownFiles()
        self._raw: queue.SimpleQueue[_Raw | _Flush | object] = queue.SimpleQueue()
        self._out: queue.SimpleQueue[Batch | _Flush | object] = queue.SimpleQueue()
        self._batch = Batch()
        self._waiting: deque[Batch] = deque()
        self._handler = _Forwarder(self._raw.put)
        self._lock = threading.Lock()
        self._mode = "stopped"
        self._started = False
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._observer: BaseObserver | None = None
        self._per_top_level = False
        self._top_watches: dict[str, ObservedWatch] = {}
        self._coalescer: threading.Thread | None = None
        self._deliverer: threading.Thread | None = None

    # -- public API ---------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """``native`` (inotify…), ``polling``, ``starting`` (until ready) or ``stopped``."""
        return self._mode

    def is_ignored(self, path: Path) -> bool:
        """Would a change to ``path`` be dropped? Same rules as the watcher (not size/binary)."""
        absolute = os.path.abspath(path)
        if not absolute.startswith(str(self.root) + os.sep):
            absolute = os.path.realpath(absolute)
        return self._rules.is_ignored(absolute)

    def start(self) -> None:
        """Begin watching. Returns at once; scanning and watch setup run on our thread."""
        with self._lock:
            if self._started:
                return
            self._started = True
            self._mode = "starting"
        self._coalescer = threading.Thread(
            target=self._run_coalescer, name="comodor-watcher", daemon=True
        )
        self._deliverer = threading.Thread(
            target=self._run_deliverer, name="comodor-watcher-delivery", daemon=True
        )
        self._deliverer.start()
        self._coalescer.start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until watches are in place (changes before that are not seen)."""
        return self._ready.wait(timeout)

    def flush(self) -> None:
        """Deliver everything seen so far now, without waiting for quiet or lookback.

        Waits for the delivery, except when called from ``on_changes`` itself.
        """
        if not self._started or self._stopping.is_set():
            return
        marker = _Flush()
        self._raw.put(marker)
        if threading.current_thread() is self._deliverer:
            return
        if not marker.done.wait(FLUSH_TIMEOUT_S):
            log.warning("watcher flush timed out after %.0f s", FLUSH_TIMEOUT_S)

    def stop(self, timeout: float = 1.0) -> None:
        """Stop watching; idempotent. Undelivered changes are dropped (``flush()`` first).

        No callback starts after this returns; one already running is waited for
        until ``timeout``.
        """
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._stopping.is_set():
                return
            self._stopping.set()
            observer = self._observer
        if observer is not None:
            try:
                observer.stop()
            except Exception:
                log.exception("stopping the file observer failed")
        self._raw.put(_STOP)
        self._out.put(_STOP)
        threads: list[threading.Thread | BaseObserver | None] = [
            observer,
            self._coalescer,
            self._deliverer,
        ]
        for thread in threads:
            if thread is not None and thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))
        self._mode = "stopped"
        self._ready.set()

    # -- set-up (coalescer thread) ------------------------------------------------------

    def _setup(self) -> None:
        top_dirs = self._scan()
        if self._stopping.is_set():
            return
        try:
            self._start_observer(native=True, top_dirs=top_dirs)
        except OSError as exc:
            if not self.root.is_dir():
                raise  # nothing to poll either; reported as "cannot watch"
            log.warning("native file watching failed, polling instead: %s", exc)
            self._notice(_watch_limit_notice(exc))
            self._timeline.lookback_s += self._poll_interval_s if self._git else 0.0
            self._start_observer(native=False, top_dirs=top_dirs)

    def _scan(self) -> list[str]:
        """Learn which files exist (for created vs modified) and the top folders to watch."""
        top_dirs: list[str] = []
        root = str(self.root)
        for folder, dirnames, filenames in os.walk(root):
            if self._stopping.is_set():
                break
            kept = []
            for name in dirnames:
                path = os.path.join(folder, name)
                if os.path.islink(path) or self._rules.is_ignored(path, is_dir=True):
                    continue
                kept.append(name)
                if folder == root:
                    top_dirs.append(path)
            dirnames[:] = kept
            rel_folder = self._rules.relative(folder)
            for name in filenames:
                self._known.add(f"{rel_folder}/{name}" if rel_folder else name)
        return top_dirs

    def _start_observer(self, *, native: bool, top_dirs: list[str]) -> None:
        observer: BaseObserver | None = None
        try:
            if native:
                observer = (self._observer_factory or Observer)()
                self._per_top_level = len(top_dirs) <= MAX_TOP_LEVEL_WATCHES
            else:
                observer = PollingObserverVFS(
                    stat=os.lstat,
                    listdir=self._polling_listdir,
                    polling_interval=self._poll_interval_s,
                )
                self._per_top_level = False
            assert observer is not None
            root = str(self.root)
            if self._per_top_level:
                observer.schedule(self._handler, root, recursive=False)
                for path in top_dirs:
                    self._top_watches[path] = observer.schedule(self._handler, path, recursive=True)
            else:
                observer.schedule(self._handler, root, recursive=True)
            if self._git is not None:
                observer.schedule(self._handler, str(self._git.git_dir), recursive=False)
            with self._lock:
                if self._stopping.is_set():
                    return
                observer.start()
                self._observer = observer
                self._mode = "native" if native else "polling"
        except OSError:
            self._top_watches.clear()
            if observer is not None:
                _quietly_stop(observer)
            raise

    def _polling_listdir(self, path: str | None) -> Iterator[os.DirEntry[str]]:
        """``os.scandir`` minus ignored folders, so polling never walks node_modules."""
        assert path is not None
        inside = self._rules.relative(path) is not None or path == str(self.root)
        with os.scandir(path) as entries:
            for entry in entries:
                if (
                    inside
                    and entry.is_dir(follow_symlinks=False)
                    and self._rules.is_ignored(entry.path, is_dir=True)
                ):
                    continue
                yield entry

    # -- coalescing (coalescer thread) --------------------------------------------------

    def _run_coalescer(self) -> None:
        try:
            self._setup()
        except Exception as exc:
            log.exception("file watcher could not start")
            self._notice(f"Comodor cannot watch {self.root} for file changes: {exc}")
            self._mode = "stopped"
            self._ready.set()
            return
        self._ready.set()
        waiting = self._waiting
        while True:
            timeout = self._next_timeout(waiting)
            try:
                item = self._raw.get(timeout=timeout) if timeout is None or timeout > 0 else None
            except queue.Empty:
                item = None
            if item is _STOP:
                return
            if isinstance(item, _Flush):
                self._close_batch(waiting)
                while waiting:
                    self._release(waiting.popleft())
                self._out.put(item)
                continue
            if isinstance(item, tuple):
                try:
                    self._apply(item)
                except Exception:
                    log.exception("file watcher could not handle event %r", item)
            now = time.monotonic()
            batch = self._batch
            if batch.paths and (
                now - batch.opened_at >= self._max_batch_s
                or (now - batch.last_event_at >= self._settle_s and self._raw.empty())
            ):
                self._close_batch(waiting)
            while waiting and now >= waiting[0].last_event_at + self._timeline.lookback_s:
                self._release(waiting.popleft())

    def _next_timeout(self, waiting: deque[Batch]) -> float | None:
        deadlines = []
        batch = self._batch
        if batch.paths:
            deadlines.append(
                min(batch.last_event_at + self._settle_s, batch.opened_at + self._max_batch_s)
            )
        if waiting:
            deadlines.append(waiting[0].last_event_at + self._timeline.lookback_s)
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - time.monotonic()) + 0.001

    def _close_batch(self, waiting: deque[Batch]) -> None:
        if self._batch.paths:
            waiting.append(self._batch)
            self._batch = Batch()

    def _release(self, batch: Batch) -> None:
        for state in batch.paths.values():
            state.vcs = self._timeline.covers(state.last_seen)
        self._out.put(batch)

    def _record(self, path: str, *, existed_before: bool, exists_now: bool, at: float) -> None:
        """Add to the open batch, or to a closed one still waiting that has this path.

        A write that straddles a batch boundary (created in one, modified in the next)
        then stays one change. A waiting batch takes late events for a bounded time only.
        """
        for batch in self._waiting:
            if path in batch.paths and at - batch.opened_at < 3 * self._max_batch_s:
                batch.record(path, existed_before=existed_before, exists_now=exists_now, at=at)
                return
        self._batch.record(path, existed_before=existed_before, exists_now=exists_now, at=at)

    def _apply(self, raw: _Raw) -> None:
        kind, src, dest, is_dir, at = raw
        if self._git_prefix is not None and src == self._git_prefix + "index.lock":
            if kind == "created":
                self._timeline.hold(at)
            elif kind in {"moved", "deleted"}:  # renamed onto index, or removed: done
                self._timeline.release(at)
            return
        if self._git_event(src, at) or (dest and self._git_event(dest, at)):
            return
        if is_dir:
            self._apply_dir(kind, src, dest, at)
        elif kind == "moved":
            self._gone(src, at)
            self._appear(dest, at)
        elif kind == "created":
            self._appear(src, at)
        elif kind == "deleted":
            self._gone(src, at)
        else:
            self._touched(src, at)

    def _git_event(self, path: str, at: float) -> bool:
        """Consume events inside the git dir, marking the VCS timeline for signals."""
        prefix = self._git_prefix
        if prefix is None or not path.startswith(prefix):
            return False
        if is_vcs_signal(path[len(prefix) :].replace(os.sep, "/")):
            self._timeline.mark(at)
        return True

    def _apply_dir(self, kind: str, src: str, dest: str, at: float) -> None:
        if kind in {"deleted", "moved"}:
            self._forget_tree(src, at)
            self._drop_top_watch(src)
            if self._rules.is_ignored(src, is_dir=True):
                # e.g. a virtualenv removed: a new folder of that name may be code.
                self._rules.invalidate()
        target = dest if kind == "moved" else src
        at_top = _parent(target) == str(self.root)
        if kind in {"created", "moved"} and self._per_top_level and at_top:
            self._watch_new_top_level(target, at)

    def _forget_tree(self, folder: str, at: float) -> None:
        rel = self._rules.relative(folder)
        if rel is None:
            return
        for file_rel in self._known.pop_tree(rel):
            path = os.path.join(str(self.root), file_rel)
            if not self._rules.is_ignored(path, is_dir=False):
                self._record(path, existed_before=True, exists_now=False, at=at)

    def _drop_top_watch(self, folder: str) -> None:
        watch = self._top_watches.pop(folder, None)
        observer = self._observer
        if watch is not None and observer is not None:
            try:
                observer.unschedule(watch)
            except Exception:
                log.debug("unscheduling %s failed", folder, exc_info=True)

    def _watch_new_top_level(self, folder: str, at: float) -> None:
        """A top-level folder appeared: watch it, and report what is already inside."""
        observer = self._observer
        if observer is None or os.path.islink(folder) or folder in self._top_watches:
            return
        if self._rules.is_ignored(folder, is_dir=True):
            return
        try:
            self._top_watches[folder] = observer.schedule(self._handler, folder, recursive=True)
        except FileNotFoundError:
            return
        except OSError as exc:
            self._notice(
                f"Comodor cannot watch the new folder {folder}; changes in it will be missed. "
                + _watch_limit_notice(exc)
            )
        for parent, dirnames, filenames in os.walk(folder):
            dirnames[:] = [
                name
                for name in dirnames
                if not self._rules.is_ignored(os.path.join(parent, name), is_dir=True)
            ]
            for name in filenames:
                self._appear(os.path.join(parent, name), at)

    def _note_rule_file(self, path: str) -> None:
        if os.path.basename(path) in {".gitignore", "pyvenv.cfg"}:
            self._rules.invalidate()

    def _appear(self, path: str, at: float) -> None:
        self._note_rule_file(path)
        rel = self._rules.relative(path)
        if rel is None or self._rules.is_ignored(path, is_dir=False):
            return
        existed = rel in self._known
        self._known.add(rel)
        self._record(path, existed_before=existed, exists_now=True, at=at)

    def _gone(self, path: str, at: float) -> None:
        self._note_rule_file(path)
        rel = self._rules.relative(path)
        if rel is None or self._rules.is_ignored(path, is_dir=False):
            return
        self._known.discard(rel)
        self._record(path, existed_before=True, exists_now=False, at=at)

    def _touched(self, path: str, at: float) -> None:
        self._note_rule_file(path)
        rel = self._rules.relative(path)
        if rel is None or self._rules.is_ignored(path, is_dir=False):
            return
        self._known.add(rel)
        self._record(path, existed_before=True, exists_now=True, at=at)

    # -- delivery (deliverer thread) ----------------------------------------------------

    def _run_deliverer(self) -> None:
        while True:
            items: list[Any] = [self._out.get()]
            while True:
                try:
                    items.append(self._out.get_nowait())
                except queue.Empty:
                    break
            merged: Batch | None = None
            markers: list[_Flush] = []
            stop = False
            for item in items:
                if item is _STOP:
                    stop = True
                elif isinstance(item, _Flush):
                    markers.append(item)
                elif isinstance(item, Batch):
                    if merged is None:
                        merged = item
                    else:
                        merged.absorb(item)
            if merged is not None and not self._stopping.is_set():
                self._deliver(merged)
            for marker in markers:
                marker.done.set()
            if stop:
                return

    def _deliver(self, batch: Batch) -> None:
        changes = []
        for path, state in batch.paths.items():
            kind = state.kind
            if kind is None or (kind != "deleted" and not self._readable_text(path)):
                continue
            changes.append(FileChange(path=Path(path), kind=kind, vcs=state.vcs))
        if not changes:
            return
        try:
            self._on_changes(changes)
        except Exception:
            log.exception("file change callback failed; the watcher keeps going")

    def _readable_text(self, path: str) -> bool:
        """A regular text file within the size limit, not a link out of the workspace."""
        try:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                if self._rules.relative(os.path.realpath(path)) is None:
                    return False
                info = os.stat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_size > self._max_file_bytes:
                return False
            with open(path, "rb") as handle:
                head = handle.read(BINARY_PROBE_BYTES)
        except OSError:
            return False
        return b"\0" not in head

    def _notice(self, message: str) -> None:
        try:
            self._on_notice(message)
        except Exception:
            log.exception("notice callback failed")


def _parent(path: str) -> str:
    return os.path.dirname(path.rstrip(os.sep))


def _quietly_stop(observer: BaseObserver) -> None:
    try:
        observer.stop()
        if observer.is_alive():
            observer.join(1.0)
    except Exception:
        log.debug("stopping a failed observer", exc_info=True)
