"""Fold a burst of raw file events into one net change per path.

Editors and git produce several events per logical write (git even deletes and
re-creates each file it checks out). What the tracker needs is the net effect over
the batch, so each path keeps only "did it exist before the batch" and "does it
exist now": created+modified = created, created+deleted = nothing, deleted+created =
modified. The kind falls out of those two bits.
"""

from __future__ import annotations

import attrs


@attrs.define
class PathState:
    """One path's net change within a batch."""

    existed_before: bool
    exists_now: bool
    last_seen: float
    """Monotonic time of the latest event, used to decide whether git made it."""
    vcs: bool = False

    @property
    def kind(self) -> str | None:
        """``created``/``modified``/``deleted``, or None when the batch cancels out."""
        if self.exists_now:
            return "modified" if self.existed_before else "created"
        return "deleted" if self.existed_before else None


@attrs.define
class Batch:
    """Paths changed since the batch opened, in first-seen order."""

    paths: dict[str, PathState] = attrs.field(factory=dict)
    opened_at: float = 0.0
    last_event_at: float = 0.0

    def __len__(self) -> int:
        return len(self.paths)

    def record(self, path: str, *, existed_before: bool, exists_now: bool, at: float) -> None:
        """Note an event; ``existed_before`` only counts for the path's first event."""
        state = self.paths.get(path)
        if not self.paths:
            self.opened_at = at
        self.last_event_at = max(self.last_event_at, at)
        if state is None:
            self.paths[path] = PathState(existed_before, exists_now, at)
        else:
            state.exists_now = exists_now
            state.last_seen = max(state.last_seen, at)

    def absorb(self, later: Batch) -> None:
        """Append a later batch (for batches queued behind a slow callback)."""
        for path, state in later.paths.items():
            mine = self.paths.get(path)
            if mine is None:
                self.paths[path] = state
            else:
                mine.exists_now = state.exists_now
                mine.last_seen = state.last_seen
                mine.vcs = state.vcs
        self.last_event_at = max(self.last_event_at, later.last_event_at)
