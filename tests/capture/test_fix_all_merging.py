"""Fix-all takes every fix that fits with the ones before it, and no fix that collides."""

from __future__ import annotations

from comodor_lsp.diagnostics.violations.model import Fix, Replacement, merge_fixes
from hypothesis import given, settings
from hypothesis import strategies as st


def _overlap(a: Replacement, b: Replacement) -> bool:
    if a == b:
        return False
    if a.start == a.end == b.start == b.end:
        return True
    return a.start < b.end and b.start < a.end


def _reference(fixes: list[Fix]) -> tuple[Replacement, ...]:
    """The rule spelled out: each fix against everything taken so far."""
    taken: list[Replacement] = []
    seen: set[tuple[Replacement, ...]] = set()
    for fix in fixes:
        if fix.replacements in seen:
            continue
        seen.add(fix.replacements)
        if any(_overlap(new, old) for new in fix.replacements for old in taken):
            continue
        taken.extend(fix.replacements)
    return tuple(sorted(set(taken)))


@st.composite
def replacements(draw: st.DrawFn) -> Replacement:
    line = draw(st.integers(0, 3))
    column = draw(st.integers(0, 6))
    length = draw(st.integers(0, 4))
    return Replacement((line, column), (line, column + length), draw(st.sampled_from("ab")))


@st.composite
def fix_lists(draw: st.DrawFn) -> list[Fix]:
    fixes = []
    for _ in range(draw(st.integers(0, 25))):
        parts = sorted(set(draw(st.lists(replacements(), min_size=1, max_size=2))))
        if len(parts) == 2 and _overlap(parts[0], parts[1]):
            parts = parts[:1]  # one fix never overlaps itself
        fixes.append(Fix("fix", tuple(parts)))
    return fixes


@settings(max_examples=300, deadline=None)
@given(fix_lists())
def test_fix_all_takes_exactly_the_fixes_that_fit(fixes: list[Fix]) -> None:
    assert merge_fixes(fixes) == _reference(fixes)


def test_two_insertions_at_one_place_are_not_both_taken() -> None:
    first = Fix("a", (Replacement((0, 1), (0, 1), ","),))
    second = Fix("b", (Replacement((0, 1), (0, 1), ";"),))
    assert merge_fixes([first, second]) == first.replacements
