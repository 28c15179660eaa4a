"""The workspace watcher against real files, a real git and real watchdog observers.

Timing is event-driven: every wait is "until this shows up, or fail after a generous
deadline", because the CI machine is small and busy. "Not reported" is checked with a
sentinel: write the ignored file first, then a normal one, wait for the normal one.
"""

from __future__ import annotations

import errno
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from comodor_lsp.capture.watcher import FileChange, WorkspaceWatcher
from watchdog.observers.api import BaseObserver

DEADLINE_S = 30.0


class Recorder:
    """Collects batches from the watcher thread; tests wait on conditions."""

    def __init__(self) -> None:
        self.batches: list[list[FileChange]] = []
        self._cond = threading.Condition()

    def __call__(self, changes: list[FileChange]) -> None:
        with self._cond:
            self.batches.append(list(changes))
            self._cond.notify_all()

    @property
    def changes(self) -> list[FileChange]:
        with self._cond:
            return [change for batch in self.batches for change in batch]

    def for_path(self, path: Path) -> list[FileChange]:
        return [change for change in self.changes if change.path == path]

    def wait_until(self, condition: Callable[[], bool], timeout: float = DEADLINE_S) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not condition():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out; got {self.batches!r}")
                self._cond.wait(remaining)

    def wait_for(self, path: Path, timeout: float = DEADLINE_S) -> list[FileChange]:
        self.wait_until(lambda: any(c.path == path for b in self.batches for c in b), timeout)
        return self.for_path(path)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "commit.gpgsign", "false")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# ws\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial")
    return root.resolve()


@pytest.fixture
def start_watcher() -> Iterator[Callable[..., tuple[WorkspaceWatcher, Recorder]]]:
    started: list[WorkspaceWatcher] = []

    def start(root: Path, **options: object) -> tuple[WorkspaceWatcher, Recorder]:
        recorder = Recorder()
        watcher = WorkspaceWatcher(root, on_changes=recorder, **options)  # type: ignore[arg-type]
        started.append(watcher)
        watcher.start()
        assert watcher.wait_ready(DEADLINE_S)
        return watcher, recorder

    yield start
    for watcher in started:
        watcher.stop()


def test_a_plain_write_to_an_existing_file_is_reported_as_modified(repo, start_watcher):
    _, rec = start_watcher(repo)
    target = repo / "src" / "app.py"
    target.write_text("print('changed')\n")
    assert rec.wait_for(target) == [FileChange(target, "modified", vcs=False)]


def test_a_new_file_is_reported_as_created(repo, start_watcher):
    _, rec = start_watcher(repo)
    target = repo / "src" / "new.py"
    target.write_text("x = 1\n")
    assert rec.wait_for(target) == [FileChange(target, "created")]


@pytest.mark.parametrize("temp_name", [("tmp", ""), (".app.py.", ".tmp"), ("app.py.tmp.", "")])
def test_an_atomic_save_is_one_modification_of_the_target(repo, start_watcher, temp_name):
    watcher, rec = start_watcher(repo)
    target = repo / "src" / "app.py"
    prefix, suffix = temp_name
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=suffix)
    os.write(fd, b"print('atomic')\n")
    os.close(fd)
    os.replace(temp, target)
    rec.wait_for(target)
    watcher.flush()
    assert rec.changes == [FileChange(target, "modified")]


def test_a_file_moved_in_from_outside_the_workspace_is_created(repo, tmp_path, start_watcher):
    _, rec = start_watcher(repo)
    outside = tmp_path / "outside.py"
    outside.write_text("moved = True\n")
    target = repo / "src" / "moved.py"
    os.replace(outside, target)
    assert rec.wait_for(target) == [FileChange(target, "created")]
    assert all(change.path.is_relative_to(repo) for change in rec.changes)


def test_a_file_moved_out_of_the_workspace_is_deleted(repo, tmp_path, start_watcher):
    _, rec = start_watcher(repo)
    target = repo / "src" / "app.py"
    os.replace(target, tmp_path / "gone.py")
    assert rec.wait_for(target) == [FileChange(target, "deleted")]


def test_deleting_a_file_is_reported_as_deleted(repo, start_watcher):
    _, rec = start_watcher(repo)
    target = repo / "README.md"
    target.unlink()
    assert rec.wait_for(target) == [FileChange(target, "deleted")]


def test_a_file_created_and_deleted_within_a_batch_is_not_reported(repo, start_watcher):
    watcher, rec = start_watcher(repo, settle_s=1.0)
    scratch = repo / "src" / "scratch.py"
    scratch.write_text("x\n")
    scratch.unlink()
    sentinel = repo / "src" / "sentinel.py"
    sentinel.write_text("s\n")
    rec.wait_for(sentinel)
    watcher.flush()
    assert rec.for_path(scratch) == []


def _write_ignored(root: Path, case: str) -> Path:
    if case == "gitignored":
        (root / ".gitignore").write_text("*.log\nsecret/\n")
        (root / "secret").mkdir()
        (root / "secret" / "key.py").write_text("k\n")
        path = root / "debug.log"
    elif case == "nested gitignore":
        (root / "src" / ".gitignore").write_text("generated_*.py\n")
        path = root / "src" / "generated_api.py"
    elif case == "node_modules":
        (root / "node_modules" / "pkg").mkdir(parents=True)
        path = root / "node_modules" / "pkg" / "index.js"
    elif case == ".venv":
        (root / ".venv" / "lib").mkdir(parents=True)
        path = root / ".venv" / "lib" / "site.py"
    elif case == "folder holding pyvenv.cfg":
        (root / "src" / "myenv").mkdir()
        (root / "src" / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
        path = root / "src" / "myenv" / "tool.py"
    elif case == ".comodor":
        (root / ".comodor").mkdir()
        path = root / ".comodor" / "state.json"
    elif case == "exclude glob":
        (root / "src" / "fixtures").mkdir()
        path = root / "src" / "fixtures" / "big.py"
    elif case == "editor swap file":
        path = root / "src" / ".app.py.swp"
    elif case == "binary":
        path = root / "src" / "blob.py"
        path.write_bytes(b"abc\0def" * 10)
        return path
    elif case == "oversized":
        path = root / "src" / "huge.py"
        path.write_text("x = 1\n" * 2000)
        return path
    else:
        raise AssertionError(case)
    path.write_text("ignored\n")
    return path


@pytest.mark.parametrize(
    "case",
    [
        "gitignored",
        "nested gitignore",
        "node_modules",
        ".venv",
        "folder holding pyvenv.cfg",
        ".comodor",
        "exclude glob",
        "editor swap file",
        "binary",
        "oversized",
    ],
)
def test_noise_is_never_reported(repo, start_watcher, case):
    watcher, rec = start_watcher(repo, exclude=["src/fixtures/"], max_file_bytes=10_000)
    ignored = _write_ignored(repo, case)
    sentinel = repo / "src" / "sentinel.py"
    sentinel.write_text("s\n")
    rec.wait_for(sentinel)
    watcher.flush()
    reported = {change.path for change in rec.changes}
    assert ignored not in reported
    assert not any(".git" in path.parts for path in reported)
    assert watcher.is_ignored(ignored) or case in {"binary", "oversized"}


def test_a_gitignore_negation_is_reported(repo, start_watcher):
    (repo / ".gitignore").write_text("*.log\n!keep.log\n")
    _, rec = start_watcher(repo)
    kept = repo / "keep.log"
    kept.write_text("kept\n")
    assert rec.wait_for(kept) == [FileChange(kept, "created")]


def _branch_rewriting(repo: Path, count: int) -> list[Path]:
    files = [repo / "src" / f"mod_{i:02}.py" for i in range(count)]
    for path in files:
        path.write_text("v = 'main'\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "main files")
    git(repo, "checkout", "-qb", "other")
    for path in files:
        path.write_text("v = 'other'\n")
    git(repo, "commit", "-qam", "other files")
    git(repo, "checkout", "-q", "main")
    return files


def test_a_branch_checkout_reports_every_rewritten_file_as_vcs(repo, start_watcher):
    files = _branch_rewriting(repo, 50)
    _, rec = start_watcher(repo)
    git(repo, "checkout", "-q", "other")
    rec.wait_until(lambda: {c.path for c in rec.changes} >= set(files))
    assert {c.path for c in rec.changes} == set(files)
    assert all(change.vcs for change in rec.changes), [c for c in rec.changes if not c.vcs]
    assert all(change.kind == "modified" for change in rec.changes)


def test_git_checkout_of_one_file_is_flagged_as_vcs(repo, start_watcher):
    target = repo / "src" / "app.py"
    target.write_text("print('agent wrote this')\n")
    _, rec = start_watcher(repo)
    git(repo, "checkout", "--", "src/app.py")
    assert rec.wait_for(target) == [FileChange(target, "modified", vcs=True)]


def test_git_stash_is_flagged_as_vcs(repo, start_watcher):
    target = repo / "src" / "app.py"
    target.write_text("print('agent wrote this')\n")
    _, rec = start_watcher(repo)
    git(repo, "stash")
    assert rec.wait_for(target) == [FileChange(target, "modified", vcs=True)]


def test_an_agent_write_after_git_went_quiet_is_not_vcs(repo, start_watcher):
    target = repo / "src" / "app.py"
    target.write_text("print('agent wrote this')\n")
    _, rec = start_watcher(repo, vcs_quiet_s=0.3)
    git(repo, "checkout", "--", "src/app.py")
    rec.wait_for(target)
    time.sleep(0.3 + 0.3 + 0.2)  # let the VCS window (quiet + lookback) pass, then write
    later = repo / "src" / "later.py"
    later.write_text("agent = True\n")
    assert rec.wait_for(later) == [FileChange(later, "created", vcs=False)]


def test_a_linked_worktree_checkout_is_flagged_as_vcs(repo, tmp_path, start_watcher):
    _branch_rewriting(repo, 3)
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "wt-branch", "main")
    worktree = worktree.resolve()
    _, rec = start_watcher(worktree)
    git(worktree, "checkout", "-q", "other")
    target = worktree / "src" / "mod_00.py"
    assert rec.wait_for(target) == [FileChange(target, "modified", vcs=True)]


@pytest.mark.slow  # a stress test (5,000 real writes): the slow tier's, not the inner loop's
def test_a_storm_of_5000_writes_is_reported_once_per_file_in_few_batches(repo, start_watcher):
    watcher, rec = start_watcher(repo)
    folders = [repo / "src" / f"pkg{i}" for i in range(10)]
    for folder in folders:
        folder.mkdir()
    files = [folder / f"m{i:04}.py" for folder in folders for i in range(500)]
    cpu_before, main_before = time.process_time(), time.thread_time()
    wall_before = time.monotonic()
    for path in files:
        path.write_text("x = 1\n")
    rec.wait_until(lambda: len({c.path for c in rec.changes} & set(files)) == len(files), 120)
    wall = time.monotonic() - wall_before
    # Watcher CPU: the whole process minus this (writing, waiting) thread.
    cpu = (time.process_time() - cpu_before) - (time.thread_time() - main_before)
    watcher.flush()
    paths = [c.path for c in rec.changes if c.path in set(files)]
    assert len(set(paths)) == 5000
    # A write the kernel reports as CREATE, then (after the writer was preempted) CLOSE_WRITE
    # can straddle a batch boundary on a loaded machine; within a batch, never twice.
    assert len(paths) - 5000 <= 50, f"{len(paths) - 5000} files reported twice"
    for batch in rec.batches:
        inside = [c.path for c in batch if c.path in set(files)]
        assert len(inside) == len(set(inside))
    print(f"storm: {len(rec.batches)} batches, wall {wall:.2f}s, watcher CPU {cpu:.2f}s")
    assert len(rec.batches) <= 40


def test_a_slow_callback_loses_no_changes(repo):
    seen: list[FileChange] = []
    cond = threading.Condition()

    def slow(changes: list[FileChange]) -> None:
        time.sleep(0.5)
        with cond:
            seen.extend(changes)
            cond.notify_all()

    watcher = WorkspaceWatcher(repo, on_changes=slow, settle_s=0.05)
    watcher.start()
    try:
        assert watcher.wait_ready(DEADLINE_S)
        files = []
        for i in range(20):
            path = repo / "src" / f"slow{i}.py"
            path.write_text("x\n")
            files.append(path)
            time.sleep(0.05)
        with cond:
            assert cond.wait_for(lambda: {c.path for c in seen} >= set(files), DEADLINE_S)
    finally:
        watcher.stop()


def test_a_failing_callback_does_not_stop_the_watcher(repo, start_watcher):
    calls: list[list[FileChange]] = []

    def flaky(changes: list[FileChange]) -> None:
        calls.append(changes)
        if len(calls) == 1:
            raise RuntimeError("tracker bug")

    watcher = WorkspaceWatcher(repo, on_changes=flaky)
    watcher.start()
    try:
        assert watcher.wait_ready(DEADLINE_S)
        (repo / "src" / "first.py").write_text("1\n")
        deadline = time.monotonic() + DEADLINE_S
        while not calls and time.monotonic() < deadline:
            time.sleep(0.02)
        second = repo / "src" / "second.py"
        second.write_text("2\n")
        while time.monotonic() < deadline and not any(
            c.path == second for batch in calls for c in batch
        ):
            time.sleep(0.02)
        assert any(c.path == second for batch in calls for c in batch)
    finally:
        watcher.stop()


def test_files_in_a_new_top_level_folder_are_reported(repo, start_watcher):
    _, rec = start_watcher(repo)
    folder = repo / "newpkg" / "deep"
    folder.mkdir(parents=True)
    early = folder / "early.py"
    early.write_text("early\n")
    rec.wait_for(early)
    late = folder / "late.py"
    late.write_text("late\n")
    assert rec.wait_for(late) == [FileChange(late, "created")]


def test_a_symlink_pointing_out_of_the_workspace_is_not_reported(repo, tmp_path, start_watcher):
    outside = tmp_path / "outside.py"
    outside.write_text("secret\n")
    watcher, rec = start_watcher(repo)
    link = repo / "src" / "link.py"
    link.symlink_to(outside)
    sentinel = repo / "src" / "sentinel.py"
    sentinel.write_text("s\n")
    rec.wait_for(sentinel)
    watcher.flush()
    assert rec.for_path(link) == []


def test_stop_returns_within_a_second_and_is_idempotent(repo):
    watcher = WorkspaceWatcher(repo, on_changes=lambda changes: None)
    watcher.start()
    assert watcher.wait_ready(DEADLINE_S)
    (repo / "src" / "pending.py").write_text("x\n")
    started = time.monotonic()
    watcher.stop()
    assert time.monotonic() - started < 1.0
    watcher.stop()
    assert watcher.mode == "stopped"


def test_running_out_of_inotify_watches_falls_back_to_polling(repo, start_watcher):
    def no_inotify() -> BaseObserver:
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    notices: list[str] = []
    watcher, rec = start_watcher(
        repo, observer_factory=no_inotify, on_notice=notices.append, poll_interval_s=0.5
    )
    assert watcher.mode == "polling"
    assert len(notices) == 1
    assert "polling" in notices[0]
    assert "max_user_watches" in notices[0]
    target = repo / "src" / "app.py"
    target.write_text("print('polled')\n")
    assert rec.wait_for(target) == [FileChange(target, "modified")]
