"""The brain file: one SQLite database, safe to share between processes.

:class:`BrainStore` is typed access to it, assembled from one part per concern
(lessons and skills, rules and votes, episodes and signals, checkpoints) over
:class:`~comodor.brain.store.database.Database`, which owns the file, its
migrations, its transactions and its two connections (see that module for the
rules every query follows).
"""

from __future__ import annotations

from comodor.brain.store.checkpoints import CheckpointRows
from comodor.brain.store.database import Database
from comodor.brain.store.episodes import EpisodeRows
from comodor.brain.store.lessons import LessonRows
from comodor.brain.store.rows import AgentWrite, RuleRow, VoteRow
from comodor.brain.store.rules import RuleRows

__all__ = ["AgentWrite", "BrainStore", "Database", "RuleRow", "VoteRow"]


class BrainStore(LessonRows, RuleRows, EpisodeRows, CheckpointRows):
    """Typed access to the brain file. Thread-safe; several processes may share the file."""
