"""Team rules: a committed ``house-rules.md`` read back as evidence.

A teammate exports their confident rules (``comodor.exportRules`` writes
``.comodor/house-rules.md``) and commits the file; everyone who opens the
project then starts with those rules. Each file is one origin,
``team:<relative path>``, whose votes are *replaced* on every read, so reading
the same file twice never counts twice and deleting a line removes its vote.

Avoiding double counting, precisely:

- **Our own export is not evidence.** When the engine writes the export it keeps
  the digest of what it wrote (brain meta ``rules-export:<path>``). A file whose
  bytes still equal our last export is skipped as a whole: re-reading it would
  prop our rules up with our own votes, and a rule the user forgot would come
  back from the file it was exported to. Once a teammate's version lands (a pull
  changes the bytes) it is read.
- **A team vote never stacks on our own evidence.** An entry is skipped when this
  brain already holds non-team votes for the same key and language in the
  project: the user's own corrections, settings and teaching decide that
  dimension, and the team file only seeds rules we know nothing about yet. (A
  teammate's file and ours agreeing is then not two votes for one observation.)
- Both files (``.comodor/house-rules.md`` and a root ``house-rules.md``) are read;
  the same rule in both is one dimension with two team votes, which only moves
  its agreement, never its source.

A committed file is untrusted text: its rules are data, not instructions. Each
statement is reduced to plain text (:func:`comodor.markup.plain_text`: no links,
images, HTML or URIs), at most 300 characters; a file is read up to
``MAX_TEAM_BYTES`` and ``MAX_TEAM_RULES`` entries, and when it holds more the
user is told rather than left guessing. The rules are marked ``team`` so hover,
playbook and instruction files say where they came from.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import attrs

from .brain.models import Rule, Vote
from .brain.rules.judgement import TEAM_ORIGIN, export_meta_key, parse_markdown, text_digest
from .markup import MAX_RULE_CHARS, plain_text
from .paths import resolve_inside

if TYPE_CHECKING:
    from .hosts import RulesFileHost

log = logging.getLogger(__name__)

TEAM_FILES = (".comodor/house-rules.md", "house-rules.md")
TEAM_PREFIX = TEAM_ORIGIN
TEAM_WEIGHT = 2.0
"""Like a fact from a project config file: enough for a rule nobody contradicts."""
MAX_TEAM_BYTES = 512_000
MAX_TEAM_RULES = 500


def _own_dimensions(app: RulesFileHost) -> set[tuple[str, str | None]]:
    """(key, language) of project rules that have evidence from outside the team files."""
    engine = app.engine
    own: set[tuple[str, str | None]] = set()
    for row in engine.store.rules([engine.project_scope]):
        if any(not vote.origin.startswith(TEAM_PREFIX) for vote in row.votes):
            own.add((row.key, row.language))
    return own


@attrs.frozen
class TeamImport:
    """What reading the team files did: rules that became confident, and what to tell."""

    learned: list[Rule]
    notices: list[str]


def _read_team_file(app: RulesFileHost, relative: str, notices: list[str]) -> str | None:
    """The file's text (up to the cap), or None when absent, unsafe, or our own export."""
    assert app.workspace is not None
    try:
        path = resolve_inside(app.workspace, relative)
    except (ValueError, OSError):
        notices.append(f"Team rules: {relative} points outside the workspace; it was not read.")
        return None
    try:
        if not path.is_file():
            return None
        size = path.stat().st_size
        with path.open("rb") as handle:
            data = handle.read(MAX_TEAM_BYTES)
    except OSError as error:
        log.warning("team rules: cannot read %s: %s", relative, error)
        return None
    if size > MAX_TEAM_BYTES:
        data = data[: data.rfind(b"\n") + 1]  # whole lines only
        notices.append(
            f"Team rules: {relative} is {size // 1024} KB; only its first "
            f"{MAX_TEAM_BYTES // 1024} KB were read."
        )
    elif app.engine.store.get_meta(export_meta_key(path)) == text_digest(data):
        return None  # exactly what this brain exported: our own evidence, not the team's
    return data.decode("utf-8", "replace")


def import_team_rules(app: RulesFileHost) -> TeamImport:
    """Read the committed rules files; return the rules that became confident."""
    notices: list[str] = []
    if app.workspace is None:
        return TeamImport([], notices)
    engine = app.engine
    own = _own_dimensions(app)
    learned: list[Rule] = []
    for relative in TEAM_FILES:
        text = _read_team_file(app, relative, notices)
        votes: list[Vote] = []
        entries = parse_markdown(text) if text is not None else []
        if len(entries) > MAX_TEAM_RULES:
            notices.append(
                f"Team rules: {relative} lists {len(entries)} rules; only the first "
                f"{MAX_TEAM_RULES} were read."
            )
        for key, value, language, category, raw_statement in entries[:MAX_TEAM_RULES]:
            statement = plain_text(raw_statement, MAX_RULE_CHARS)
            if (key, language) in own or not statement:
                continue
            votes.append(
                Vote(
                    key=key[:120],
                    value=value[:120],
                    statement=statement,
                    category=category,
                    language=language,
                    kind="evidence",
                    weight=TEAM_WEIGHT,
                    detail=f"from {relative} (team)",
                )
            )
        # replace=True even with no votes: a deleted file or line drops its votes
        learned += engine.record_votes(
            votes, origin=TEAM_PREFIX + relative, replace=True, scope=engine.project_scope
        )
    for notice in notices:
        log.warning("%s", notice)
    return TeamImport(learned, notices)
