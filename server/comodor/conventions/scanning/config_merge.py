"""One rule per dimension and language, however many config files speak to it.

A project's config files overlap: ``.editorconfig`` says ``[*] max_line_length = 100``
and ruff says ``line-length = 100`` for Python; ``.editorconfig`` says ``[*]
indent_size = 4`` and ``[*.ts] indent_size = 2``. Rules are kept per language, and a
rule without a language applies to every language, so casting those votes as they
come would show a TypeScript file both "indent by 4" and "indent by 2", and a Python
file the same line limit twice. Here the votes of one dimension are settled first:

* when every language-specific vote agrees with the catch-all value, they all join
  the catch-all rule (language None): one rule whose evidence names every file;
* when some language says otherwise (or turns the dimension off, like tabs turn off a
  width), the catch-all is cast once per language of the project instead, and the
  languages that differ keep their own value, with any source that agrees beside it.

Code observations join the rule their language's config already makes when they
agree; an overwhelming observation the config contradicts stays an ordinary one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence

import attrs

from ..votes import CONSENSUS, Vote


def _retarget(votes: Iterable[Vote], language: str | None) -> list[Vote]:
    return [attrs.evolve(vote, language=language) for vote in votes]


def settle(
    votes: Sequence[tuple[Vote, bool]],
    languages: Collection[str],
    opted_out: Collection[tuple[str, str]] = (),
) -> list[Vote]:
    """Config votes (each marked more specific than the catch-all or not), settled.

    A vote without a language that is not marked specific is the catch-all; a tool's
    vote for its languages (ruff: Python) is specific. ``languages`` are the project's.
    """
    by_key: dict[str, list[tuple[Vote, bool]]] = defaultdict(list)
    for vote, specific in votes:
        by_key[vote.key].append((vote, specific))
    settled: list[Vote] = []
    for key, found in by_key.items():
        catch_all = [vote for vote, specific in found if vote.language is None and not specific]
        per_language: dict[str, list[Vote]] = defaultdict(list)
        for vote, _ in found:
            if vote.language is not None:
                per_language[vote.language].append(vote)
        values = {vote.value for vote in catch_all}
        if len(values) != 1:  # no catch-all, or one that contradicts itself: as they came
            settled += [vote for vote, _ in found]
            continue
        (value,) = values
        off = {language for name, language in opted_out if name == key}
        differ = off | {
            language
            for language, chosen in per_language.items()
            if any(vote.value != value for vote in chosen)
        }
        if not differ:
            settled += catch_all + _retarget(
                (vote for chosen in per_language.values() for vote in chosen), None
            )
            continue
        for language in sorted(set(languages) | set(per_language)):
            own = per_language.get(language, [])
            if language in differ:
                own_values = {vote.value for vote in own}
                agreeing = [vote for vote in catch_all if vote.value in own_values]
                settled += own + _retarget(agreeing, language)
            else:
                settled += _retarget(catch_all, language) + own
    return settled


def with_observations(config: Sequence[Vote], observed: Sequence[Vote]) -> list[Vote]:
    """Observations beside the settled config votes, joined to the rule they agree with.

    An observation whose value the config casts for every language joins that rule
    (no second rule saying the same for one language). An overwhelming observation
    (:data:`CONSENSUS`) that a config file contradicts for its language is demoted to
    an ordinary observation: the written rule stands, the code's majority is drift.
    """
    stated: dict[tuple[str, str | None], set[str]] = defaultdict(set)
    for vote in config:
        stated[(vote.key, vote.language)].add(vote.value)
    merged: list[Vote] = []
    for observation in observed:
        vote = observation
        for_all = stated.get((vote.key, None), set())
        own = stated.get((vote.key, vote.language), set())
        if own or for_all:
            agrees = vote.value in (own or for_all)
            if not agrees and vote.kind == CONSENSUS:
                vote = attrs.evolve(vote, kind="observation")
            if agrees and not own:
                vote = attrs.evolve(vote, language=None)
        merged.append(vote)
    return [*config, *merged]


_KIND_ORDER = {"evidence": 0, CONSENSUS: 1, "observation": 2}


def combine(votes: Sequence[Vote]) -> list[Vote]:
    """One vote per (dimension, language, value) of a scan, naming every source.

    The brain keeps one vote per rule, origin and value, so two config files of one
    scan saying the same thing must become one vote: the strongest kind, the strongest
    weight (two files agreeing do not make a rule twice as hard to correct), and a
    detail that starts with every source (``.editorconfig [*], pyproject.toml: …``),
    which is what the rule's evidence shows.
    """
    grouped: dict[tuple[str, str | None, str], list[Vote]] = defaultdict(list)
    for vote in votes:
        grouped[(vote.key, vote.language, vote.value)].append(vote)
    combined: list[Vote] = []
    for same in grouped.values():
        if len(same) == 1:
            combined += same
            continue
        same.sort(key=lambda vote: _KIND_ORDER.get(vote.kind, 9))
        sources: list[str] = []
        said: list[str] = []
        for vote in same:
            source, colon, text = vote.detail.partition(": ")
            if vote.kind == "evidence" and colon:
                sources.append(source)
                said.append(text)
            else:
                said.append(vote.detail)
        detail = "; ".join(dict.fromkeys(said))
        if sources:
            detail = f"{', '.join(dict.fromkeys(sources))}: {detail}"
        combined.append(
            attrs.evolve(same[0], weight=max(vote.weight for vote in same), detail=detail)
        )
    return combined
