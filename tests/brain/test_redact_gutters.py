"""Secrets behind a gutter: a credential file shown as a diff, quoted, numbered, logged, or
pasted after a label is redacted as well as the file itself.

Every rule that reads a line from its start missed such a secret (one kind in thirty of the
corpora, behind any one gutter); :func:`comodor.brain.redaction.views.gutter_view` reads those lines
again with the gutter cut off. The corpus test reads every batch's kinds (but the leaks each
batch lists as still stored) behind each gutter and behind the labels the every-door session
types before a paste.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import pytest
from comodor_lsp.brain.redaction import RULES
from comodor_lsp.brain.redaction.matching import SHORTCUTS_FROM, read
from comodor_lsp.brain.redaction.redactor import find_secrets, redact
from comodor_lsp.brain.redaction.views import View, _gutter_lines, gutter_view

from tests.support import (
    eighth_batch_secrets,
    fifth_batch_secrets,
    ninth_batch_secrets,
    seventh_batch_secrets,
    sixth_batch_secrets,
    tenth_batch_secrets,
)
from tests.support.fourth_batch_secrets import build_fourth_batch
from tests.support.unlisted_secrets import UnlistedSample, build_unlisted
from tests.support.unseen_secrets import build_unseen


def _every_line(gutter: Callable[[int], str]) -> Callable[[str], str]:
    return lambda text: "\n".join(gutter(i) + line for i, line in enumerate(text.split("\n")))


GUTTERS: dict[str, Callable[[str], str]] = {
    "an agent's patch": lambda text: "@@ -1,3 +1,40 @@\n" + _every_line(lambda i: "+")(text),
    "a quote in a chat": _every_line(lambda i: "> "),
    "a numbered code view": _every_line(lambda i: f"{i + 1:>6}\t"),
    "an editor's gutter": _every_line(lambda i: f"{i + 12} | "),
    "a log's timestamps": _every_line(lambda i: f"2026-12-04 10:00:{i % 60:02d},123 INFO "),
    "a shell prompt": _every_line(lambda i: "$ "),
    "a label typed before the paste": lambda text: "the config I use: " + text,
    # The labels the every-door session types before each paste (a lesson, a rule, a denial).
    "a lesson's label": lambda text: "credentials: " + text,
    "a rule's verb": lambda text: "Keep " + text,
    "a note's label": lambda text: "note: " + text,
}


@functools.cache
def _corpus() -> list[UnlistedSample]:
    return [
        *build_unlisted(0),
        *build_unseen(0),
        *build_fourth_batch(0),
        *(
            sample
            for batch, build in (
                (fifth_batch_secrets, fifth_batch_secrets.build_fifth_batch),
                (sixth_batch_secrets, sixth_batch_secrets.build_sixth_batch),
                (seventh_batch_secrets, seventh_batch_secrets.build_seventh_batch),
                (eighth_batch_secrets, eighth_batch_secrets.build_eighth_batch),
                (ninth_batch_secrets, ninth_batch_secrets.build_ninth_batch),
                (tenth_batch_secrets, tenth_batch_secrets.build_tenth_batch),
            )
            for sample in build(0)
            if sample.name not in batch.STILL_STORED
        ),
    ]


@functools.cache
def _stored_alone() -> frozenset[str]:
    return frozenset(s.name for s in _corpus() if s.shingles & _pieces_in(redact(s.context)))


def _pieces_in(text: str) -> set[str]:
    """Every 8-character piece of *text* (redacted once, then looked up, not once a piece)."""
    return {text[i : i + 8] for i in range(len(text) - 7)}


def _stored_behind(gutter: Callable[[str], str]) -> list[str]:
    """Kinds a piece of whose secret survives behind *gutter* but not on its own.

    (A URL's whole text is one corpus's secret, and its host is kept on purpose.)
    """
    stored = []
    for sample in _corpus():
        if sample.name in _stored_alone():
            continue
        shown = gutter(sample.context)
        rest = shown.replace(sample.secret, "\0")
        pieces = {piece for piece in sample.shingles if piece not in rest}
        redacted = redact(shown)
        if any(piece in redacted for piece in pieces):
            stored.append(sample.name)
    return stored


@pytest.mark.parametrize("shown_as", list(GUTTERS))
def test_every_corpus_secret_is_redacted_behind_a_gutter(shown_as: str) -> None:
    assert _stored_behind(GUTTERS[shown_as]) == []


def test_a_pgpass_line_added_by_an_agents_patch_is_redacted_where_it_stands() -> None:
    patch = (
        "--- a/deploy/pgpass\n+++ b/deploy/pgpass\n@@ -1,1 +1,2 @@\n"
        " db.internal:5432:reports:svc_reports:*\n"
        "+db.internal:5432:orders:svc_orders:Tulip38-Quarry!\n"
    )
    redacted = redact(patch)
    assert "Tulip38-Quarry!" not in redacted
    assert "\n+db.internal:5432:orders:svc_orders:[REDACTED:" in redacted


def test_a_quoted_config_block_keeps_its_quote_marks_and_loses_its_secret() -> None:
    quoted = "> [client]\n> user = backup\n> password = Orchid71+Lantern\n> host = db1\n"
    redacted = redact(quoted)
    assert "Orchid71+Lantern" not in redacted
    assert redacted.startswith("> [client]\n> user = backup\n> password = [REDACTED:")
    assert redacted.endswith("]\n> host = db1\n")


LOOK_ALIKES = [
    # a doctest, a REPL session, a shell session: code behind a prompt stays code
    ">>> from decimal import Decimal\n>>> Decimal('1.33') + Decimal('1.27')\nDecimal('2.60')\n",
    "$ git log --oneline -3\n$ export PATH=$HOME/.local/bin:$PATH\n",
    # a diff of ordinary code and config
    "@@ -3,4 +3,4 @@\n def connect(self):\n-    self.timeout = 30\n+    self.timeout = 60\n"
    "     return self.pool.get(key=self.cache_key)\n",
    # numbered lines and a log
    "  12\tdef rotate(key_id: str) -> None:\n  13\t    store.rotate(key_id)\n",
    "2026-12-04 10:00:01,123 INFO token refreshed for user 4412 (expires in 3600 s)\n",
    # a label before a pasted table without secrets
    "the release plan: | Step | Owner |\n|---|---|\n| tag | alice |\n",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_code_and_prose_behind_a_gutter_are_kept(text: str) -> None:
    assert redact(text) == text


def test_text_without_any_gutter_gets_no_second_reading() -> None:
    assert gutter_view("password = x\nuser = y\n") is None


def test_the_second_reading_maps_each_secret_back_to_where_it_stands() -> None:
    text = "  1\tmachine api.example.com\n  2\tlogin ci\n  3\tpassword Heron52.Ledger\n"
    [found] = find_secrets(text)
    assert text[found.start : found.end] == "Heron52.Ledger"


# A label before any paste, in a short text: a command and its output, a properties line, an export.


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "credentials: $ op item get 'Prod DB' --fields label=username,label=password"
            " --reveal\norders,Biscuit_lighthouse_19Qmk\n",
            "Biscuit_lighthouse_19Qmk",
        ),
        ("Keep $ bw get password prod-grafana\nRiverbank.gecko.8406Iep\n", "Riverbank.gecko"),
        (
            "note: Title,URL,Username,Password,Notes,OTPAuth\n"
            "Grafana,https://grafana.acme.example,admin,Kestrel.biscuit.3902TCUDB,,\n",
            "Kestrel.biscuit.3902TCUDB",
        ),
    ],
)
def test_a_secret_pasted_after_any_label_in_a_short_text_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "Keep $ git log --oneline -3\nabc1234 Fix the login form\n",
        "note: Title,URL,Username\nGrafana,https://grafana.acme.example,admin\n",
        "Remember: the token expires after an hour, so refresh it first.\n",
    ],
)
def test_prose_and_commands_after_a_label_are_kept(text: str) -> None:
    assert redact(text) == text


def test_a_long_text_is_not_read_a_second_time_after_a_label_on_its_first_line() -> None:
    text = "Summary: " + "x = 1\n" * 1000
    assert gutter_view(text) is None


_LINE_STARTS = ("", " ", "\t", "  ", " \t ", "\n", "\n\n")
_LINE_BODIES = (
    *("- a", "+b", "> q", "$ ls", "% x", "* it", "12 | x", "  12\ttab", "3: y", "@dec", "#c", ""),
    *("[2024-01-02T10:11:12Z] INFO x", "2024-01-02 10:11:12,123 ERROR y", "\u2022 bullet"),
    *("@@ -1,2 +1,2 @@", " ctx", "x = 1", "password = hunter22", "--x", ">>> 1", "\u00e9-x"),
)


def _shown(view: View | None) -> object:
    return None if view is None else (view.text, view._view_starts, view._text_starts)


@pytest.mark.parametrize("seed", range(40))
def test_the_lines_found_with_the_prefixes_give_the_view_every_line_gives(seed: int) -> None:
    """A long text's view is built from the lines the prefix pass says may have a gutter
    (:func:`comodor_lsp.brain.redaction.matching.read`): the same view as trying every line,
    whatever blanks, breaks and gutters start them and the text."""
    rng = random.Random(seed)
    lines = [rng.choice(_LINE_STARTS) + rng.choice(_LINE_BODIES) for _ in range(400)]
    text = rng.choice(("", "\n", " ", "- ", "\n- ")) + "\n".join(lines)
    assert len(text) >= SHORTCUTS_FROM
    found = read(text, RULES)[1]
    assert found is not None
    assert _shown(_gutter_lines(text, found)) == _shown(_gutter_lines(text, None))
