"""The brain's storage: one interface, two backends, written once.

The table code is one mixin per concern (lessons and skills, rules and votes,
episodes and signals, checkpoints) over :class:`~.base.StoreBase`, in the SQL
SQLite and PostgreSQL share. A concrete store is those mixins plus a backend:

* :class:`BrainStore` — the SQLite file (:class:`~.database.Database`: the file, its
  migrations, its transactions and its two connections; see that module for the
  rules every query follows). The default; it needs nothing.

What the rest of the brain may call is the :class:`~.interface.Store` protocol.
"""

from __future__ import annotations

from .checkpoint_table import CheckpointRows
from .database import Database
from .episode_table import EpisodeRows
from .interface import TEAM_IDS, LogPosition, Store
from .lesson_table import LessonRows
from .rows import AgentWrite, RuleRow, VoteRow
from .rule_table import RuleRows
from .vocabulary_table import VocabularyRows

__all__ = [
    "TEAM_IDS",
    "AgentWrite",
    "BrainStore",
    "Database",
    "LogPosition",
    "RuleRow",
    "Store",
    "VoteRow",
]


class BrainStore(LessonRows, RuleRows, EpisodeRows, CheckpointRows, VocabularyRows, Database):
    """Typed access to the brain file. Thread-safe; several processes may share the file."""
