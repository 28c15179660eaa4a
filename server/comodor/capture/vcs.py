"""When is git rewriting the working tree? Told from activity in the git directory.

A checkout, reset, stash or merge rewrites files the agent may have written; the
tracker must not read that as the user correcting the agent. Git takes
``index.lock`` *before* it touches the working tree and renames it onto ``index``
(and rewrites ``HEAD``/``ORIG_HEAD``…) after, so "from the first git event until a
quiet period after the last" brackets the whole operation.

Deliberately not signals: ``FETCH_HEAD`` (IDE auto-fetch writes it every few
minutes and never touches the working tree; ``git pull`` is caught by its merge or
rebase step), ``COMMIT_EDITMSG``, ``config``, ``objects/`` and ``logs/``. Known false
positive: ``git status``/``git add`` also take ``index.lock``, so an agent write within
the quiet period of one is flagged as VCS.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

SIGNAL_FILES = frozenset(
    {
        "HEAD",
        "index",
        "ORIG_HEAD",
        "MERGE_HEAD",
        "REBASE_HEAD",
        "CHERRY_PICK_HEAD",
        "REVERT_HEAD",
        "AUTO_MERGE",
        "BISECT_HEAD",
    }
)
SIGNAL_DIRS = frozenset({"rebase-merge", "rebase-apply", "sequencer"})


@attrs.frozen
class GitDirs:
    """The git directory of a workspace (the per-worktree one) and the shared one."""

    git_dir: Path
    common_dir: Path


def find_git_dirs(root: Path) -> GitDirs | None:
    """The git dirs governing ``root``, found by walking up; None outside a repository.

    Handles ``.git`` as a folder, and as a file (``gitdir: …``) for worktrees and
    submodules. Never raises: a broken ``.git`` file just means no VCS detection.
    """
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                git_dir = dot_git
            elif dot_git.is_file():
                line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
                if not line.startswith("gitdir:"):
                    return None
                target = Path(line[len("gitdir:") :].strip())
                git_dir = target if target.is_absolute() else folder / target
                if not git_dir.is_dir():
                    return None
            else:
                continue
            git_dir = Path(os.path.realpath(git_dir))
            common = git_dir
            commondir_file = git_dir / "commondir"
            if commondir_file.is_file():
                text = commondir_file.read_text(encoding="utf-8", errors="replace").strip()
                common = Path(os.path.realpath(git_dir / text))
            return GitDirs(git_dir=git_dir, common_dir=common)
        except OSError:
            return None
    return None


def is_vcs_signal(relative: str) -> bool:
    """Whether this path (relative to a git dir, ``/``-separated) shows git at work.

    Inside ``refs/`` only the stash ref counts (seen when the git dir is watched deeply).
    """
    head, _, rest = relative.partition("/")
    name = head.removesuffix(".lock")
    if not rest:
        return name in SIGNAL_FILES or name in SIGNAL_DIRS or name.startswith("index.stash.")
    if head == "refs":
        return rest.removesuffix(".lock") == "stash"
    return head in SIGNAL_DIRS


class VcsTimeline:
    """Spans of git activity, to answer "was this change made by git?".

    A change at time ``t`` is VCS if some span ``[first, last]`` of git events (gaps
    shorter than ``quiet_s`` merged) has ``first - lookback_s <= t <= last + quiet_s``.
    The lookback covers events that reach us out of order: git's own events travel
    on another watch, so a working-tree event can be seen before the ``index.lock``
    that preceded it. Not thread-safe: used on the watcher's coalescing thread.
    """

    def __init__(self, *, quiet_s: float, lookback_s: float, keep_s: float = 120.0) -> None:
        self.quiet_s = quiet_s
        self.lookback_s = lookback_s
        self._keep_s = keep_s
        self._spans: list[list[float]] = []
        self._held_since: float | None = None

    def hold(self, at: float) -> None:
        """Git took ``index.lock``: everything until it lets go is git's work.

        A checkout of thousands of files keeps the lock for seconds with no other
        git event in between, far longer than the quiet period.
        """
        if self._held_since is None:
            self._held_since = at
        self.mark(at)

    def release(self, at: float) -> None:
        """Git let go of ``index.lock``: close one span over the whole operation."""
        since, self._held_since = self._held_since, None
        if since is None:
            self.mark(at)
            return
        self._spans = [span for span in self._spans if span[1] < since]
        self._spans.append([since, at])

    def mark(self, at: float) -> None:
        """Record a git event seen at monotonic time ``at``."""
        if self._spans and at <= self._spans[-1][1] + self.quiet_s:
            self._spans[-1][1] = max(self._spans[-1][1], at)
            return
        self._spans.append([at, at])
        horizon = at - self._keep_s
        while self._spans and self._spans[0][1] < horizon:
            self._spans.pop(0)

    def covers(self, at: float) -> bool:
        """Whether a change seen at ``at`` was part of a git operation."""
        if self._held_since is not None and at >= self._held_since - self.lookback_s:
            return True
        return any(
            first - self.lookback_s <= at <= last + self.quiet_s for first, last in self._spans
        )
