"""The MCP tools: protocol commands, described for an agent, with nothing re-implemented.

Each tool routes its arguments to one protocol command and runs it through
:meth:`ComodorApp.execute`, so the MCP server validates, redacts and answers
exactly like the language server. The same table is VS Code's language-model tools
(``comodor.tool`` runs a tool through the language server; ``clientgen`` writes the
manifest), so an agent in the editor and an agent over MCP get the same words. Input schemas are
generated from the same attrs params classes as ``schemas/``; output schemas
from the same result classes. This module knows nothing about the MCP SDK, so
it can be tested without a transport (see :mod:`comodor.mcp_server` for that).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from . import protocol
from .brain.errors import BrainError, InvalidInput
from .protocol.jsonschema import object_schema

if TYPE_CHECKING:
    from .hosts import ToolHost


@attrs.frozen
class ForgetParams:
    """``comodor_forget``: one tool for both kinds of memory, told apart by ``kind``."""

    id: int
    kind: str = "lesson"


FORGET_KINDS = {"lesson": "comodor.forget", "rule": "comodor.forgetRule"}


def _route_forget(arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    params = protocol.structure(arguments, ForgetParams)
    command = FORGET_KINDS.get(params.kind)
    if command is None:
        raise InvalidInput("kind", f"must be one of {', '.join(FORGET_KINDS)}")
    return command, {"id": params.id}


@attrs.frozen
class McpTool:
    """One tool: its name and description for the agent, and the command it runs."""

    name: str
    title: str
    description: str
    command: str
    """The protocol command it runs (for ``comodor_forget``: the lesson one; see ``route``)."""
    params: type[Any]
    """Params class for the input schema: the command's (tested), or the tool's own."""
    result: type[Any]
    """The command's result class, the tool's output schema."""
    arguments: dict[str, str] = attrs.field(factory=dict)
    """Per-argument help for the agent (camelCase names)."""
    hidden: tuple[str, ...] = ()
    """Params that make no sense over MCP (left out of the schema, still accepted)."""
    route: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]] | None = None
    render: Callable[[Any], str] | None = None
    read_only: bool = False

    def input_schema(self) -> dict[str, Any]:
        schema = object_schema(self.params, params=True)
        properties: dict[str, Any] = schema["properties"]
        for name in self.hidden:
            properties.pop(name, None)
        if self.params is ForgetParams:
            properties["kind"]["enum"] = list(FORGET_KINDS)
        for name, text in self.arguments.items():
            properties[name]["description"] = text
        return schema

    def output_schema(self) -> dict[str, Any]:
        return object_schema(self.result, params=False)

    def resolve(self, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if self.route is not None:
            return self.route(arguments)
        return self.command, arguments


def _as_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)


def _render_playbook(data: Any) -> str:
    return str(data["text"]) or "Nothing learned in this project applies to this request yet."


def _render_begin(data: Any) -> str:
    head = f"taskId: {data['taskId']} (pass it to comodor_end_task when you have finished)."
    playbook = str(data["text"]) or "Nothing learned in this project applies yet."
    return f"{head}\n\n{playbook}"


def _render_rules(data: Any) -> str:
    rules = data["rules"]
    if not rules:
        return "No house rules yet."
    lines = []
    for rule in rules:
        state = "confident" if rule["confident"] else "not yet confident"
        if not rule["active"]:
            state += ", disabled"
        where = f"{rule['language']}; " if rule["language"] else ""
        lines.append(
            f"- [rule {rule['id']}] {rule['statement']} ({where}{rule['evidence']}; {state})"
        )
    return "\n".join(lines)


TOOLS_LIST = (
    McpTool(
        name="comodor_begin_task",
        title="Begin a task (get the playbook)",
        description=(
            "Call this FIRST, before you start working on a user's request in this project: "
            "once per request, with the request as `goal`. Returns a `taskId` and a playbook: "
            "the house rules and lessons Comodor learned from this user's own corrections, "
            "settings and feedback. Follow the playbook while you work (house rules are counted "
            "from the user's behaviour; if what you observe contradicts an entry, trust the "
            "observation and say so). Keep the taskId and call comodor_end_task when done."
        ),
        command="comodor.beginTask",
        params=protocol.BeginTaskParams,
        result=protocol.BeginTaskResult,
        arguments={"goal": "The user's request, in their words."},
        render=_render_begin,
    ),
    McpTool(
        name="comodor_end_task",
        title="End a task (report the outcome)",
        description=(
            "Call this AFTER you have finished (or given up on) a request you began with "
            "comodor_begin_task. Report honestly: `success` is true only if the request was "
            "actually done and works; the lessons that were recalled are credited or debited "
            "by it, so an inflated success teaches the wrong thing. Add `steps` (tool calls "
            "made) and `elapsed` seconds when you know them; `messages` (the transcript) lets "
            "Comodor learn from repeated tool failures."
        ),
        command="comodor.endTask",
        params=protocol.EndTaskParams,
        result=protocol.EndTaskResult,
        arguments={
            "taskId": "The taskId comodor_begin_task returned.",
            "success": "Whether the request was completed and works.",
            "stopped": (
                "Why the task ended: 'done', 'failed', or 'cancelled' (the user stopped it; "
                "nothing is credited and it is left out of progress)."
            ),
            "steps": "How many tool calls or steps the task took.",
            "elapsed": "Seconds from begin to end.",
            "approvals": "How many times the user had to approve an action.",
            "tokens": "Tokens spent on the task, if known.",
            "messages": "The task's transcript: {role: user|assistant|tool, name?, content?, "
            "isError?}.",
        },
    ),
    McpTool(
        name="comodor_playbook",
        title="Playbook for a request",
        description=(
            "What Comodor knows that applies to a request, without starting a task: house "
            "rules first, then lessons. Use it to check the house rules before a change when "
            "you are already inside a task; prefer comodor_begin_task at the start of a request."
        ),
        command="comodor.playbook",
        params=protocol.PlaybookParams,
        result=protocol.PlaybookResult,
        arguments={
            "query": "The request or the change you are about to make.",
            "maxTokens": "Budget for the lessons part of the playbook.",
        },
        hidden=("uri",),
        render=_render_playbook,
        read_only=True,
    ),
    McpTool(
        name="comodor_teach",
        title="Teach a lesson",
        description=(
            "Call this when the user states a preference, a fact about the project or a "
            "lesson worth keeping ('always run the tests with -x', 'the API lives in api/'). "
            "Write it as 'trigger: guidance' (when this happens: do that); without a colon "
            "it applies generally. Stored pinned, so it is in every playbook until forgotten."
        ),
        command="comodor.teach",
        params=protocol.TeachParams,
        result=protocol.LessonResult,
        arguments={
            "text": "'When: what to do', 1 to 2000 characters.",
            "kind": "preference, fact, heuristic, pitfall or env.",
            "pinned": "Keep it in every playbook (default true).",
        },
    ),
    McpTool(
        name="comodor_teach_rule",
        title="Teach a house rule",
        description=(
            "Call this when the user states a rule for all code in this project, as one "
            "imperative sentence ('Use tabs for indentation', 'Never commit to main'). It is "
            "confident at once, applies to every language, shows in every playbook and in the "
            "synced instruction files (AGENTS.md…)."
        ),
        command="comodor.teachRule",
        params=protocol.TeachRuleParams,
        result=protocol.RuleResult,
        arguments={"statement": "One imperative sentence, up to 300 characters."},
    ),
    McpTool(
        name="comodor_rules",
        title="List house rules",
        description=(
            "The house rules of this project with their evidence (corrections, config files, "
            "what the user said) and whether each is confident yet. Use it to see a rule's id "
            "before forgetting it, or to explain why you follow a rule."
        ),
        command="comodor.rules",
        params=protocol.RulesParams,
        result=protocol.RulesResult,
        arguments={"includeUnconfident": "Also list rules still gathering evidence."},
        render=_render_rules,
        read_only=True,
    ),
    McpTool(
        name="comodor_feedback",
        title="Record the user's feedback",
        description=(
            "Call this when the user says the result was good or bad ('that helped', 'that was "
            "wrong'). Credits the lessons recalled for the task (default: the last task that "
            "ended); `note` keeps their words."
        ),
        command="comodor.feedback",
        params=protocol.FeedbackParams,
        result=protocol.FeedbackResult,
        arguments={
            "good": "true when the user was happy with the result.",
            "note": "The user's words, briefly.",
            "taskId": "The task the feedback is about (default: the last one that ended).",
        },
    ),
    McpTool(
        name="comodor_forget",
        title="Forget a lesson or a house rule",
        description=(
            "Call this when the user says a lesson or a rule is wrong or no longer wanted. "
            "`kind` says which: 'lesson' (ids from playbooks) or 'rule' (ids from "
            "comodor_rules). A forgotten rule also leaves the synced instruction files."
        ),
        command="comodor.forget",
        params=ForgetParams,
        result=protocol.RemovedResult,
        arguments={"id": "The lesson's or the rule's id.", "kind": "'lesson' or 'rule'."},
        route=_route_forget,
    ),
)
TOOLS: dict[str, McpTool] = {tool.name: tool for tool in TOOLS_LIST}


@attrs.frozen
class ToolOutcome:
    """A tool's answer: text for the agent, the protocol's result as structured data."""

    ok: bool
    text: str
    data: dict[str, Any] | None = None


def call_tool(app: ToolHost, name: str, arguments: object) -> ToolOutcome:
    """Run a tool (blocking: call it off the event loop). Bad input is an error outcome."""
    tool = TOOLS.get(name)
    if tool is None:
        return ToolOutcome(False, f"name: no tool {name!r}; tools: {', '.join(TOOLS)}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return ToolOutcome(False, "arguments: expected one JSON object")
    try:
        command, argument = tool.resolve(arguments)
        data = app.execute(command, argument)
    except InvalidInput as error:
        return ToolOutcome(False, f"Invalid argument `{error.field}`: {error.problem}")
    except BrainError as error:
        return ToolOutcome(False, f"Comodor could not do that: {error}")
    render = tool.render or _as_json
    return ToolOutcome(True, render(data), data)
