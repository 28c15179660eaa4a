"""Code actions on Comodor diagnostics: fix this place, fix the file, "Not here", forget.

For each Comodor diagnostic the client sends back (VS Code's Ctrl+., Neovim's
``vim.lsp.buf.code_action()``): a ``quickfix`` whose edit makes that place follow
the rule, preferred; "Fix all Comodor issues in this file" when there is more to
fix; "Not here", an exception vote for the rule at that place
(``comodor.notHere``); and "Forget this rule" (``comodor.forgetRule``). For the
document, whatever the cursor is on: ``source.fixAll.comodor`` with every fix that
fits together, which ``editor.codeActionsOnSave`` can run.

Answered from the document's last report (see :mod:`.diagnostics`); computed off
the event loop only when the document changed since.
"""

from __future__ import annotations

from lsprotocol import types

from .diagnostics import SOURCE, Judged
from .server import ComodorServer

FIX_ALL = "source.fixAll.comodor"
QUICKFIX = types.CodeActionKind.QuickFix.value


def _kind_text(kind: types.CodeActionKind | str) -> str:
    return kind.value if isinstance(kind, types.CodeActionKind) else kind


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether ``kind`` is asked for (kinds are hierarchical: ``source`` covers ours)."""
    if not only:
        return True
    return any(kind == asked or kind.startswith(asked + ".") for asked in only)


async def code_action(
    ls: ComodorServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    publisher = ls.diagnostics
    if publisher is None or ls.app is None:
        return None
    uri = params.text_document.uri
    only = [_kind_text(kind) for kind in params.context.only] if params.context.only else None
    ours = [d for d in params.context.diagnostics if d.source == SOURCE]
    wants_fix_all = _wanted(FIX_ALL, only)
    if not ours and not wants_fix_all:
        return None
    judged = await publisher.judge(uri)
    if judged is None:
        return None
    actions: list[types.CodeAction] = []
    if _wanted(QUICKFIX, only):
        for diagnostic in ours:
            actions.extend(_for_diagnostic(ls, uri, judged, diagnostic))
        fix_all = judged.report.fix_all
        fixable = sum(1 for item in judged.report.diagnostics if item.fix is not None)
        if ours and fix_all is not None and fixable > 1:
            actions.append(
                types.CodeAction(
                    title=f"{fix_all.title} in this file",
                    kind=types.CodeActionKind.QuickFix,
                    edit=publisher.workspace_edit(uri, judged, fix_all),
                )
            )
    if wants_fix_all and judged.report.fix_all is not None:
        actions.append(
            types.CodeAction(
                title=judged.report.fix_all.title,
                kind=FIX_ALL,
                edit=publisher.workspace_edit(uri, judged, judged.report.fix_all),
            )
        )
    return actions or None


def _for_diagnostic(
    ls: ComodorServer, uri: str, judged: Judged, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    """The actions for one of our diagnostics, if it is still in the document's report."""
    publisher = ls.diagnostics
    assert publisher is not None
    for item, converted in zip(judged.report.diagnostics, judged.diagnostics, strict=True):
        if converted.range != diagnostic.range or converted.code != diagnostic.code:
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
            types.CodeAction(
                title="Not here: this rule does not apply at this place",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(
                    title="Not here",
                    command="comodor.notHere",
                    arguments=[{"id": item.rule_id, "uri": uri, "place": item.place}],
                ),
            )
        )
        actions.append(
            types.CodeAction(
                title="Forget this house rule",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(
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
            resolve_provider=False,
        ),
    )(code_action)
