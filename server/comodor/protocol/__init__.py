"""The wire protocol (``shared/spec/protocol.md``): its types, and the edge that converts.

This package is the single source of truth for the shapes clients see: the
language server, the MCP server and the CLI all structure incoming arguments
with :func:`structure` and turn results and events into JSON with
:func:`unstructure` and :class:`Wire`; ``schemas/`` is generated from these
classes (:mod:`comodor.protocol.schema_export`), and the TypeScript client's types are
generated from those schemas.

- :mod:`~comodor.protocol.fields` — validated field declarations (one validator).
- :mod:`~comodor.protocol.params` — what clients send.
- :mod:`~comodor.protocol.results` — what they get back.
- :mod:`~comodor.protocol.convert` — structuring, unstructuring, brain → wire.
"""

from __future__ import annotations

from .convert import Wire, json_type, lone_surrogate, structure, unstructure, view_of
from .editor import (
    DiagnosticObject,
    DocumentDiagnostics,
    FixObject,
    RangeObject,
    TextEditObject,
)
from .fields import SCHEMA, camel
from .params import (
    AgentEditParams,
    AssistantEditParams,
    BeginTaskParams,
    DeniedParams,
    DraftParams,
    EndTaskParams,
    ExportRulesParams,
    FeedbackParams,
    IdParams,
    LessonsParams,
    MessageParams,
    NoParams,
    NotHereParams,
    PinParams,
    PlaybookParams,
    RulesParams,
    SetRuleParams,
    TeachParams,
    TeachRuleParams,
    ToolParams,
    UndoParams,
)
from .results import (
    BeginTaskResult,
    ChartObject,
    ComparisonObject,
    ConsolidateResult,
    EndTaskResult,
    FeedbackResult,
    HoldoutObject,
    LessonObject,
    LessonResult,
    LessonsResult,
    MergeObject,
    OkResult,
    PathResult,
    PlaybookResult,
    ProgressChartResult,
    ProgressResult,
    RemovedResult,
    RuleObject,
    RuleResult,
    RulesResult,
    SeriesObject,
    StatsResult,
    ToolResult,
    UndoResult,
)

__all__ = [
    "SCHEMA",
    "AgentEditParams",
    "AssistantEditParams",
    "BeginTaskParams",
    "BeginTaskResult",
    "ChartObject",
    "ComparisonObject",
    "ConsolidateResult",
    "DeniedParams",
    "DiagnosticObject",
    "DocumentDiagnostics",
    "DraftParams",
    "EndTaskParams",
    "EndTaskResult",
    "ExportRulesParams",
    "FeedbackParams",
    "FeedbackResult",
    "FixObject",
    "HoldoutObject",
    "IdParams",
    "LessonObject",
    "LessonResult",
    "LessonsParams",
    "LessonsResult",
    "MergeObject",
    "MessageParams",
    "NoParams",
    "NotHereParams",
    "OkResult",
    "PathResult",
    "PinParams",
    "PlaybookParams",
    "PlaybookResult",
    "ProgressChartResult",
    "ProgressResult",
    "RangeObject",
    "RemovedResult",
    "RuleObject",
    "RuleResult",
    "RulesParams",
    "RulesResult",
    "SeriesObject",
    "SetRuleParams",
    "StatsResult",
    "TeachParams",
    "TeachRuleParams",
    "TextEditObject",
    "ToolParams",
    "ToolResult",
    "UndoParams",
    "UndoResult",
    "Wire",
    "camel",
    "json_type",
    "lone_surrogate",
    "structure",
    "unstructure",
    "view_of",
]
