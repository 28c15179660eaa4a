"""Votes: the single currency between what Comodor sees and the house rules it keeps.

Every analyser (a user's correction, a config file, a count over the code) speaks in
votes for one value of one dimension. The statement a rule shows the agent is never
written by the analyser: it is looked up in :data:`CATALOG`, so a vote for ``single``
can never carry the sentence for ``double``.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..brain.models import Vote

__all__ = ["CATALOG", "CATEGORIES", "CONSENSUS", "KINDS", "Dimension", "Vote"]

CATEGORIES = frozenset({"style", "workflow", "preference", "avoid"})
CONSENSUS = "consensus"
"""The kind of an observation of the code so overwhelming it is a rule on its own."""
KINDS = frozenset({"correction", "evidence", "observation", CONSENSUS})
OPEN_VALUE = "*"
"""Catalog key for a dimension whose values are open (a number), with ``{value}`` in the text."""


@attrs.frozen
class Dimension:
    """A convention with competing values; each value owns its imperative sentence."""

    key: str
    category: str
    statements: Mapping[str, str]

    def statement_for(self, value: str) -> str:
        """Return the sentence for ``value``; unknown values are a programming error."""
        if value in self.statements:
            return self.statements[value]
        template = self.statements.get(OPEN_VALUE)
        if template is not None and value.isdigit():
            return template.format(value=value)
        raise ValueError(f"{value!r} is not a value of {self.key!r}")


def _dim(key: str, category: str, **statements: str) -> Dimension:
    return Dimension(key=key, category=category, statements=statements)


CATALOG: Mapping[str, Dimension] = {
    d.key: d
    for d in (
        _dim(
            "quotes.style",
            "style",
            single="Use single quotes for strings.",
            double="Use double quotes for strings.",
        ),
        _dim(
            "indent.style",
            "style",
            spaces="Indent with spaces, not tabs.",
            tabs="Indent with tabs, not spaces.",
        ),
        Dimension(
            key="indent.width",
            category="style",
            statements={
                "2": "Indent by 2 spaces per level.",
                "4": "Indent by 4 spaces per level.",
                "8": "Indent by 8 spaces per level.",
            },
        ),
        _dim(
            "python.return_annotations",
            "style",
            added="Annotate the return type of every function (`-> T`).",
            removed="Do not add return type annotations to functions.",
        ),
        _dim(
            "python.string_format",
            "style",
            fstring="Format strings with f-strings, not str.format() or %.",
            format="Format strings with str.format() or %, not f-strings.",
        ),
        _dim(
            "js.semicolons",
            "style",
            always="End statements with semicolons.",
            never="Do not end statements with semicolons.",
        ),
        _dim(
            "verbosity",
            "preference",
            concise=(
                "Keep changes short: write only the code the task needs, "
                "without extra helpers, checks or scaffolding."
            ),
        ),
        _dim(
            "comments",
            "avoid",
            fewer="Do not add explanatory comments; let the code speak for itself.",
        ),
        _dim(
            "python.logging",
            "preference",
            logging="Report through the logging module (logger.info/...), not print().",
            print="Use print() for output, not the logging module.",
        ),
        _dim(
            "naming.functions",
            "style",
            snake_case="Name functions in snake_case.",
            camelCase="Name functions in camelCase.",
        ),
        _dim(
            "naming.variables",
            "style",
            snake_case="Name variables in snake_case.",
            camelCase="Name variables in camelCase.",
        ),
        _dim(
            "naming.classes",
            "style",
            PascalCase="Name classes in PascalCase.",
            snake_case="Name classes in snake_case.",
            camelCase="Name classes in camelCase.",
        ),
        _dim(
            "python.import_style",
            "style",
            **{
                "from": "Import names from modules (`from module import name`), not whole modules.",
                "module": "Import whole modules (`import module`) and qualify names as "
                "`module.name`.",
            },
        ),
        _dim(
            "js.import_style",
            "style",
            named="Use named imports (`import { name } from 'module'`), not namespace or "
            "default imports.",
            namespace="Import modules whole (`import * as module from 'module'`) and qualify "
            "names as `module.name`.",
        ),
        _dim(
            "trailing_commas",
            "style",
            always="Put a trailing comma after the last item of multi-line literals and calls.",
            never="Do not put a trailing comma after the last item of multi-line literals.",
        ),
        Dimension(
            key="line_length",
            category="style",
            statements={OPEN_VALUE: "Keep lines at most {value} characters long."},
        ),
        _dim(
            "tests.runner",
            "workflow",
            pytest="Write and run tests with pytest.",
            jest="Write and run tests with Jest.",
            vitest="Write and run tests with Vitest.",
        ),
    )
}


def make_vote(
    key: str,
    value: str,
    *,
    kind: str,
    language: str | None,
    weight: float = 1.0,
    detail: str = "",
) -> Vote:
    """Build a vote whose statement and category come from the catalog, never the caller."""
    if kind not in KINDS:
        raise ValueError(f"unknown vote kind {kind!r}")
    dimension = CATALOG[key]
    return Vote(
        key=key,
        value=value,
        statement=dimension.statement_for(value),
        category=dimension.category,
        language=language,
        kind=kind,
        weight=weight,
        detail=detail,
    )
