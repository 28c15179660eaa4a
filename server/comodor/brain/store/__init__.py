"""The brain file: one SQLite database, safe to share between processes.

:class:`BrainStore` is typed access to it, assembled from one part per concern
(lessons and skills, rules and votes, episodes and signals, checkpoints, the
learned vocabulary) over
:class:`~comodor.brain.store.database.Database`, which owns the file, its
migrations, its transactions and its two connections (see that module for the
rules every query follows).
"""

from __future__ import annotations

from .checkpoints import CheckpointRows
from .database import Database
from .episodes import EpisodeRows
from .lessons import LessonRows
from .rows import AgentWrite, RuleRow, VoteRow
from .rules import RuleRows
from .vocabulary import VocabularyRows

__all__ = ["AgentWrite", "BrainStore", "Database", "RuleRow", "VoteRow"]


class BrainStore(LessonRows, RuleRows, EpisodeRows, CheckpointRows, VocabularyRows):
    """Typed access to the brain file. Thread-safe; several processes may share the file."""
