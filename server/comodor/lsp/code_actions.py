"""Code actions on Comodor diagnostics: fix this place, fix the file, "Not here", forget.

For each Comodor diagnostic the client sends back (VS Code's Ctrl+., Neovim's
``vim.lsp.buf.code_action()``): a ``quickfix`` whose edit makes that place follow
the rule, preferred; "Fix all Comodor issues in this file" when there is more to
fix; "Not here", an exception vote for the rule at that place
(``comodor.notHere``); and "Forget this rule" (``comodor.forgetRule``). For the
document, whatever the cursor is on: ``source.fixAll.comodor`` with every fix that
fits together, which ``editor.codeActionsOnSave`` can run.

Fixes are worked out off the event loop, only for the places asked about: proving a
rename safe costs far more than finding the place. A "fix all" offered in a menu
is worked out when chosen (``codeAction/resolve``) for clients that can resolve;
asked for by kind (``only``), or by a client that cannot resolve, it comes whole.
"""

from __future__ import annotations

from lsprotocol import types

from ..protocol import DocumentDiagnostics
from ..protocol.editor import FIX_ALL_KIND
from .diagnostics import SOURCE, Judged, publisher_of
from .server import ComodorServer

FIX_ALL = FIX_ALL_KIND
QUICKFIX = types.CodeActionKind.QuickFix.value
FIX_ALL_TITLE = "Fix all Comodor issues"


def _kind_text(kind: types.CodeActionKind | str) -> str:
    return kind.value if isinstance(kind, types.CodeActionKind) else kind


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether ``kind`` is asked for (kinds are hierarchical: ``source`` covers ours)."""
    if not only:
        return True
    return any(kind == asked or kind.startswith(asked + ".") for asked in only)


def _ours(diagnostic: types.Diagnostic) -> bool:
    """One of ours: by its source, or by its data when a client dropped the source."""
    data = diagnostic.data
    return diagnostic.source == SOURCE or (
        isinstance(data, dict) and "ruleId" in data and "place" in data
    )


def _resolves_edits(ls: ComodorServer) -> bool:
    """Whether the client fills in a code action's edit later (``codeAction/resolve``)."""
    capabilities = ls.client_capabilities
    document = capabilities.text_document if capabilities else None
    code_action = document.code_action if document else None
    support = code_action.resolve_support if code_action else None
    return support is not None and "edit" in support.properties


async def code_action(
    ls: ComodorServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    publisher = publisher_of(ls)
    if publisher is None or ls.app is None:
        return None
    uri = params.text_document.uri
    only = [_kind_text(kind) for kind in params.context.only] if params.context.only else None
    ours = [d for d in params.context.diagnostics if _ours(d)]
    quickfixes = _wanted(QUICKFIX, only) and bool(ours)
    source_fix_all = _wanted(FIX_ALL, only)
    if not quickfixes and not source_fix_all:
        return None
    judged = await publisher.judge(uri)
    if judged is None or not judged.report.diagnostics:
        return None
    # Asked for by kind (codeActionsOnSave, "Fix All"): worked out now. Offered in a
    # menu: worked out when chosen, if the client can ask for that later.
    explicit = only is not None and source_fix_all
    eager = explicit or not _resolves_edits(ls)
    lines = _lines_of(ours) if quickfixes else None
    report, converted = judged.report, judged.diagnostics
    if quickfixes or eager:
        fixed = await publisher.with_fixes(uri, judged, lines, fix_all=eager)
        if fixed is None:
            return None
        report, converted = fixed
    actions: list[types.CodeAction | None] = []
    if quickfixes:
        for diagnostic in ours:
            actions.extend(_for_diagnostic(ls, uri, judged, report, converted, diagnostic))
        if len(judged.report.diagnostics) > 1:
            actions.append(
                _fix_all(ls, uri, judged, report, QUICKFIX, f"{FIX_ALL_TITLE} in this file", eager)
            )
    if source_fix_all:
        actions.append(_fix_all(ls, uri, judged, report, FIX_ALL, FIX_ALL_TITLE, eager))
    return [action for action in actions if action is not None] or None


def _lines_of(diagnostics: list[types.Diagnostic]) -> tuple[int, int]:
    starts = [d.range.start.line for d in diagnostics]
    return min(starts), max(starts)


def _fix_all(
    ls: ComodorServer,
    uri: str,
    judged: Judged,
    report: DocumentDiagnostics,
    kind: str,
    title: str,
    eager: bool,
) -> types.CodeAction | None:
    publisher = publisher_of(ls)
    assert publisher is not None
    if not eager:
        return types.CodeAction(
            title=title, kind=kind, data={"uri": uri, "version": judged.version, "fixAll": True}
        )
    if report.fix_all is None:
        return None
    return types.CodeAction(
        title=title, kind=kind, edit=publisher.workspace_edit(uri, judged, report.fix_all)
    )


async def resolve(ls: ComodorServer, action: types.CodeAction) -> types.CodeAction:
    """Work out the edit of a "fix all" offered in a menu, now that the user chose it."""
    publisher = publisher_of(ls)
    data = action.data if isinstance(action.data, dict) else None
    if publisher is None or data is None or not data.get("fixAll"):
        return action
    uri = data.get("uri")
    judged = await publisher.judge(uri) if isinstance(uri, str) else None
    if judged is None or judged.version != data.get("version"):
        return action  # the document changed since: nothing is applied
    fixed = await publisher.with_fixes(uri, judged, None, fix_all=True)  # type: ignore[arg-type]
    if fixed is not None and fixed[0].fix_all is not None:
        action.edit = publisher.workspace_edit(uri, judged, fixed[0].fix_all)  # type: ignore[arg-type]
    return action


def _for_diagnostic(
    ls: ComodorServer,
    uri: str,
    judged: Judged,
    report: DocumentDiagnostics,
    converted: tuple[types.Diagnostic, ...],
    diagnostic: types.Diagnostic,
) -> list[types.CodeAction]:
    """The actions for one of our diagnostics, if it is still in the document's report."""
    publisher = publisher_of(ls)
    assert publisher is not None
    for item, ours in zip(report.diagnostics, converted, strict=True):
        if ours.range != diagnostic.range or ours.code != diagnostic.code:
            continue
        actions: list[types.CodeAction] = []
        if item.fix is not None:
            actions.append(
                types.CodeAction(
                    title=item.fix.title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=True,
                    edit=publisher.workspace_edit(uri, judged, item.fix),
                )
            )
        actions.append(
            _command_action(
                "Not here: this rule does not apply at this place",
                diagnostic,
                types.Command(
                    title="Not here",
                    command="comodor.notHere",
                    arguments=[{"id": item.rule_id, "uri": uri, "place": item.place}],
                ),
            )
        )
        actions.append(
            _command_action(
                "Forget this house rule",
                diagnostic,
                types.Command(
                    title="Forget this house rule",
                    command="comodor.forgetRule",
                    arguments=[{"id": item.rule_id}],
                ),
            )
        )
        return actions
    return []


def register(server: ComodorServer) -> None:
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL],
            resolve_provider=True,
        ),
    )(code_action)
    server.feature(types.CODE_ACTION_RESOLVE)(resolve)


def _command_action(
    title: str, diagnostic: types.Diagnostic, command: types.Command
) -> types.CodeAction:
    """A quick fix that runs one of Comodor's commands about ``diagnostic``'s rule."""
    return types.CodeAction(
        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], command=command
    )
