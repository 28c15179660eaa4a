"""The protocol's commands, each a few lines from typed params to a brain call.

One table, :data:`COMMANDS`, maps every ``comodor.*`` command to its params
class, its result class and its implementation. The language server registers
every entry, the MCP server calls the same entries, and ``schemas/`` is
generated from the same classes, so the three can never drift apart. Params
arrive validated (:func:`comodor.protocol.structure`); results are built with
the app's :class:`~comodor.protocol.Wire`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from . import protocol as p
from .brain.errors import InvalidInput
from .brain.models import Message

if TYPE_CHECKING:
    from .hosts import CommandHost


@attrs.frozen
class Command:
    name: str
    params: type[Any]
    result: type[Any]
    run: Callable[[CommandHost, Any], Any]
    summary: str
    reads: bool = False
    """Only reads the brain: hosts may answer it while a write waits for a lock."""
    fresh: bool = False
    """Reads rules or lessons: first make the caches current with every commit
    (another process may have taught a rule a moment ago)."""


def _teach(app: CommandHost, params: p.TeachParams) -> p.LessonResult:
    lesson = app.engine.teach(params.text, kind=params.kind, pinned=params.pinned)
    return p.LessonResult(app.wire.lesson(lesson))


def _teach_rule(app: CommandHost, params: p.TeachRuleParams) -> p.RuleResult:
    from .conventions.taught import statement_dimension

    # "Use single quotes for strings." is quotes.style = single: checked like a learned rule
    dimension = statement_dimension(params.statement)
    return p.RuleResult(app.wire.rule(app.engine.teach_rule(params.statement, dimension)))


def _not_here(app: CommandHost, params: p.NotHereParams) -> p.RuleResult:
    return p.RuleResult(app.rule_exception(params.id, params.uri, params.place))


def _forget(app: CommandHost, params: p.IdParams) -> p.RemovedResult:
    return p.RemovedResult(app.engine.forget(params.id))


def _forget_rule(app: CommandHost, params: p.IdParams) -> p.RemovedResult:
    return p.RemovedResult(app.engine.forget_rule(params.id))


def _pin(app: CommandHost, params: p.PinParams) -> p.OkResult:
    return p.OkResult(app.engine.pin(params.id, params.pinned))


def _set_rule(app: CommandHost, params: p.SetRuleParams) -> p.OkResult:
    return p.OkResult(app.engine.set_rule(params.id, pinned=params.pinned, active=params.active))


def _lessons(app: CommandHost, params: p.LessonsParams) -> p.LessonsResult:
    return p.LessonsResult(app.wire.lessons(app.engine.search(params.query, params.limit)))


def _rules(app: CommandHost, params: p.RulesParams) -> p.RulesResult:
    rules = app.engine.all_rules()
    if not params.include_unconfident:
        rules = [rule for rule in rules if rule.confident]
    return p.RulesResult(app.wire.rules(rules))


def _playbook(app: CommandHost, params: p.PlaybookParams) -> p.PlaybookResult:
    query = params.query
    if not query and params.uri is not None:
        query = app.document_query(params.uri)  # what was prefetched for that document
    playbook = app.engine.playbook(query, params.max_tokens)
    return p.PlaybookResult(
        text=playbook.text,
        lessons=app.wire.lessons(playbook.lessons),
        rules=app.wire.rules(playbook.rules),
        prefetched=playbook.prefetched,
        tokens=playbook.tokens,
    )


def _begin_task(app: CommandHost, params: p.BeginTaskParams) -> p.BeginTaskResult:
    task = app.engine.begin_task(params.goal)
    return p.BeginTaskResult(
        task_id=task.id,
        text=task.playbook.text,
        lessons=app.wire.lessons(task.playbook.lessons),
        rules=app.wire.rules(task.playbook.rules),
        prefetched=task.playbook.prefetched,
        holdout=task.holdout,
    )


def _end_task(app: CommandHost, params: p.EndTaskParams) -> p.EndTaskResult:
    messages = [p.view_of(Message, message) for message in params.messages]
    episode_id = app.engine.end_task(
        params.task_id,
        params.success,
        stopped=params.stopped,
        steps=params.steps,
        elapsed=params.elapsed,
        approvals=params.approvals,
        tokens=params.tokens,
        messages=messages,
    )
    return p.EndTaskResult(episode_id)


def _feedback(app: CommandHost, params: p.FeedbackParams) -> p.FeedbackResult:
    return p.FeedbackResult(app.engine.feedback(params.good, params.note, params.task_id))


def _denied(app: CommandHost, params: p.DeniedParams) -> p.RulesResult:
    rules = app.engine.on_denied(params.tool, params.subject, params.reason)
    return p.RulesResult(app.wire.rules(rules))


def _agent_edit(app: CommandHost, params: p.AgentEditParams) -> p.OkResult:
    path = app.file_from_uri(params.uri)
    if params.text is not None and len(params.text) > app.settings.watch.max_file_bytes:
        raise InvalidInput("text", "is larger than watch.maxFileBytes")
    assert app.tracker is not None  # file_from_uri guarantees a workspace
    app.tracker.agent_edit(path, params.text)
    return p.OkResult(True)


def _undo(app: CommandHost, params: p.UndoParams) -> p.UndoResult:
    keys = []
    for position, uri in enumerate(params.uris):
        path = app.file_from_uri(uri, f"uris[{position}]")
        assert app.tracker is not None
        keys.append(app.tracker.key(path))
    return p.UndoResult(app.engine.on_undo(keys))


def _export_rules(app: CommandHost, params: p.ExportRulesParams) -> p.PathResult:
    raw = params.path if params.path is not None else ".comodor/house-rules.md"
    return p.PathResult(str(app.export_rules(raw)))


def _progress(app: CommandHost, params: p.NoParams) -> p.ProgressResult:
    from .protocol.progress import progress_result

    del params
    return progress_result(app.engine.progress())


def _progress_chart(app: CommandHost, params: p.NoParams) -> p.ProgressChartResult:
    """The progress result and its pictures, drawn from the wire JSON every client gets."""
    from .progress_chart import comparison_svg, progress_svg, series_svg

    result = _progress(app, params)
    wire = p.unstructure(result)
    compared = (wire["holdout"] or {}).get("comparisons") or []
    return p.ProgressChartResult(
        progress=result,
        svg=progress_svg(wire),
        charts=[p.ChartObject(key=s["key"], svg=series_svg(s)) for s in wire["series"]],
        comparisons=[p.ChartObject(key=c["key"], svg=comparison_svg(c)) for c in compared],
    )


def _stats(app: CommandHost, params: p.NoParams) -> p.StatsResult:
    del params
    return p.view_of(p.StatsResult, app.engine.stats(), watching=app.watching)


def _tool(app: CommandHost, params: p.ToolParams) -> p.ToolResult:
    """An agent tool of the MCP table, run through whichever door the agent uses."""
    from .mcp_tools import call_tool

    outcome = call_tool(app, params.name, params.arguments)
    return p.ToolResult(is_error=not outcome.ok, text=outcome.text, data=outcome.data)


def _consolidate(app: CommandHost, params: p.NoParams) -> p.ConsolidateResult:
    del params
    done = app.engine.consolidate()
    merges = [p.MergeObject(merge.kept, merge.merged) for merge in done.merges]
    return p.ConsolidateResult(done.removed, done.merged, merges)


COMMANDS: dict[str, Command] = {
    command.name: command
    for command in (
        Command(
            "comodor.teach",
            p.TeachParams,
            p.LessonResult,
            _teach,
            "Teach a lesson (pinned by default).",
        ),
        Command(
            "comodor.teachRule",
            p.TeachRuleParams,
            p.RuleResult,
            _teach_rule,
            "Teach a house rule; confident at once.",
        ),
        Command("comodor.forget", p.IdParams, p.RemovedResult, _forget, "Forget a lesson."),
        Command(
            "comodor.forgetRule", p.IdParams, p.RemovedResult, _forget_rule, "Forget a house rule."
        ),
        Command(
            "comodor.notHere",
            p.NotHereParams,
            p.RuleResult,
            _not_here,
            "A house rule does not apply at this place: a vote against it there.",
        ),
        Command("comodor.pin", p.PinParams, p.OkResult, _pin, "Pin or unpin a lesson."),
        Command(
            "comodor.setRule",
            p.SetRuleParams,
            p.OkResult,
            _set_rule,
            "Pin, unpin, enable or disable a house rule.",
        ),
        Command(
            "comodor.lessons",
            p.LessonsParams,
            p.LessonsResult,
            _lessons,
            "Search lessons (newest first without a query).",
            reads=True,
        ),
        Command(
            "comodor.rules",
            p.RulesParams,
            p.RulesResult,
            _rules,
            "List house rules.",
            reads=True,
            fresh=True,
        ),
        Command(
            "comodor.playbook",
            p.PlaybookParams,
            p.PlaybookResult,
            _playbook,
            "The playbook an assistant would get for a request.",
            reads=True,
            fresh=True,
        ),
        Command(
            "comodor.beginTask",
            p.BeginTaskParams,
            p.BeginTaskResult,
            _begin_task,
            "Begin a task: recall, and remember what was recalled.",
            fresh=True,
        ),
        Command(
            "comodor.endTask",
            p.EndTaskParams,
            p.EndTaskResult,
            _end_task,
            "End a task: record it and credit what was recalled.",
        ),
        Command(
            "comodor.feedback",
            p.FeedbackParams,
            p.FeedbackResult,
            _feedback,
            "This helped / this didn't: credit a task's lessons.",
        ),
        Command(
            "comodor.denied", p.DeniedParams, p.RulesResult, _denied, "The user denied a tool call."
        ),
        Command(
            "comodor.agentEdit",
            p.AgentEditParams,
            p.OkResult,
            _agent_edit,
            "An agent wrote a file.",
        ),
        Command(
            "comodor.undo",
            p.UndoParams,
            p.UndoResult,
            _undo,
            "Mark the last agent write of files as undone.",
        ),
        Command(
            "comodor.exportRules",
            p.ExportRulesParams,
            p.PathResult,
            _export_rules,
            "Export the confident house rules as Markdown.",
            fresh=True,
        ),
        Command(
            "comodor.progress",
            p.NoParams,
            p.ProgressResult,
            _progress,
            "Whether the assistant is getting better.",
            reads=True,
        ),
        Command(
            "comodor.progressChart",
            p.NoParams,
            p.ProgressChartResult,
            _progress_chart,
            "Progress, and the same result drawn as standalone SVG charts.",
            reads=True,
        ),
        Command(
            "comodor.stats",
            p.NoParams,
            p.StatsResult,
            _stats,
            "Counts for this project.",
            reads=True,
            fresh=True,
        ),
        Command(
            "comodor.tool",
            p.ToolParams,
            p.ToolResult,
            _tool,
            "Run an agent tool (as the MCP server serves it) for the editor's agent mode.",
        ),
        Command(
            "comodor.consolidate",
            p.NoParams,
            p.ConsolidateResult,
            _consolidate,
            "Forget lessons that decayed below the minimum confidence.",
        ),
    )
}


def nearest_command(name: str) -> str | None:
    """The command ``name`` most likely meant (``rules``, ``comodor.rule`` -> ``comodor.rules``).

    Every door that refuses an unknown command (``call``, ``workspace/executeCommand``)
    suggests from this one table.
    """
    import difflib

    prefix = "comodor."
    short = {full.removeprefix(prefix).lower(): full for full in COMMANDS}
    typed = name.strip().lower().removeprefix(prefix)
    found = difflib.get_close_matches(typed, list(short), n=1, cutoff=0.6)
    return short[found[0]] if found else None
