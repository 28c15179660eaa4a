"""What the parts of the brain share: the store, the settings, the scopes, the bus.

The brain is split by concern (lessons and recall, house rules, tasks and
credit, checkpoints); each part gets this one object instead of a back
reference to the façade, so the parts depend on shared state, not on each
other's insides.
"""

from __future__ import annotations

import threading

import attrs

from ..settings import LearningSettings
from .blobs import BlobStore
from .events import EventBus
from .store import Store


@attrs.define
class Shared:
    """One brain's shared state. ``lock`` guards the in-memory caches, never SQLite."""

    store: Store
    project_scope: str
    settings: LearningSettings
    bus: EventBus
    session_id: str
    blobs: BlobStore
    lock: threading.RLock = attrs.field(factory=threading.RLock)
    generation: int = 0
    """Bumped on every change that can alter recall; prefetched results check it."""

    @property
    def scopes(self) -> list[str]:
        """The buckets of memory that apply to this project."""
        return ["global", self.project_scope]

    @property
    def write_scope(self) -> str:
        return self.project_scope if self.settings.share_scope == "project" else "global"

    def invalidate(self) -> None:
        """Something recall depends on changed: prefetched answers are stale now."""
        with self.lock:
            self.generation += 1
