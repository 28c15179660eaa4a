"""Secrets in what the brain derives and checkpoints: pitfall rules and blob names.

A pitfall rule quotes a normalised tool error. Normalising first and redacting afterwards
would lower-case and digit-replace a secret into fragments no rule recognises, which would
then reach AGENTS.md. And a checkpoint blob named by the hash of the raw text would let
anyone holding the brain folder confirm a guessed password offline.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from comodor_lsp.brain.blobs import BlobStore, content_key, text_hash
from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Message
from comodor_lsp.brain.redaction.redactor import redact
from comodor_lsp.brain.rules.signals import Pitfall, normalise_error

from tests.support.secrets import SECRET_SAMPLES, SecretSample

# One-line contexts are what a tool error's first line looks like.
ONE_LINE = [sample for sample in SECRET_SAMPLES if "\n" not in sample.context.strip()]


def _traces(sample: SecretSample, text: str) -> list[str]:
    """Pieces of the secret in *text*, also as the normaliser would have mangled them."""
    lowered = text.lower()
    return [piece for piece in sample.own_shingles if piece.lower() in lowered]


@pytest.mark.parametrize("sample", ONE_LINE, ids=lambda sample: sample.name)
def test_a_repeated_failure_quoting_a_secret_makes_a_pitfall_without_it(
    engine: LearningEngine, brain_path: Path, sample: SecretSample
) -> None:
    error = f"deploy failed: {sample.context} (exit 1)"
    task = engine.begin_task("deploy the service")
    engine.end_task(
        task.id,
        False,
        messages=[
            Message("tool", "deploy", error, True),
            Message("assistant", None, "retrying"),
            Message("tool", "deploy", error, True),
        ],
    )
    pitfalls = [rule for rule in engine.all_rules() if rule.key.startswith("pitfall.")]
    assert len(pitfalls) == 1
    rule = pitfalls[0]
    assert rule.statement.startswith("`deploy` keeps failing with")
    for text in (rule.statement, rule.key, rule.detail):
        assert _traces(sample, text) == [], text
    # Nor anywhere in the brain's files (the votes behind the rule, the WAL), in any case.
    for path in brain_path.parent.rglob("*"):
        if path.is_file():
            data = path.read_bytes().decode("latin-1").lower()
            assert not [f for f in sample.fragments if f.lower() in data], path


@pytest.mark.parametrize(
    "secret",
    [
        "github_pat_11FAKE0ABCDEFGHIJKLMNOPQ_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM",
        "npm_FAKEaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        "AKIAFAKE234567ABCDEF",
    ],
)
def test_known_kinds_keep_no_fragment_after_normalising(secret: str) -> None:
    normalised = normalise_error(f"Error: auth with {secret} rejected at 10:42:07")
    assert "[REDACTED:" in normalised
    assert secret[4:12].lower() not in normalised
    assert not any(secret[i : i + 8].lower() in normalised for i in range(len(secret) - 7))


def test_normalising_keeps_markers_intact_and_still_groups_runs() -> None:
    one = normalise_error("connect postgres://app:Hunter2x9@db:5432/app failed after 31s")
    two = normalise_error("connect postgres://app:Other7pw4@db:5432/app failed after 12s")
    assert one == two
    assert "[REDACTED:url-credentials]" in one
    assert "hunter2x9" not in one


@pytest.mark.parametrize("at", range(80, 100))
def test_a_pitfall_statement_never_cuts_a_marker_in_half(at: int) -> None:
    error = "x" * at + " [REDACTED:aws-access-key] and more"
    statement = Pitfall("deploy", error, 2).statement
    assert "[REDACTE" not in statement.replace("[REDACTED:aws-access-key]", "")


def test_blobs_are_named_by_the_redacted_text_not_the_secret(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    text = 'DB_PASSWORD=Hunter2x9\nAPI_TOKEN="FAKEtok3nValue99"\n'
    key = blobs.put(text)
    assert key == content_key(text) == hashlib.sha256(redact(text).encode()).hexdigest()
    assert key != text_hash(text)
    # A guessed password cannot be confirmed: every password gives the same name.
    assert blobs.put(text.replace("Hunter2x9", "Guess1234x")) == key
    stored = next(path for path in (tmp_path / "blobs").rglob("*") if path.is_file())
    assert stored.name == key
    assert b"Hunter2x9" not in stored.read_bytes()
    assert blobs.get(key) == redact(text)


def test_no_stored_hash_is_the_hash_of_a_text_with_a_secret(engine: LearningEngine) -> None:
    before = 'password = "Hunter2x9"\n'
    after = 'password = "Hunter2x9"\nretries = 3\n'
    engine.record_agent_write("settings.py", before, after)
    write = engine.store.last_agent_write(engine.project_scope, "settings.py")
    assert write is not None
    stored = {write.before_hash, write.after_hash, write.last_hash}
    assert stored == {content_key(before), content_key(after)}
    assert not stored & {text_hash(before), text_hash(after)}


def test_undo_and_unchanged_saves_are_still_recognised_by_content_keys(
    engine: LearningEngine, tmp_path: Path
) -> None:
    from comodor_lsp.capture.tracker import CaptureTracker

    root = tmp_path / "ws"
    root.mkdir()
    path = root / "settings.py"
    before = 'DB_PASSWORD = "Hunter2x9"\nDEBUG = True\n'
    after = 'DB_PASSWORD = "Hunter2x9"\nDEBUG = False\n'
    tracker = CaptureTracker(engine, root)
    tracker.did_open(path, before)
    path.write_text(after)
    tracker.agent_edit(path, after)
    assert tracker.did_save(path, after).kind == "unchanged"  # the agent's own text
    corrected = 'DB_PASSWORD = "Hunter2x9"\nDEBUG = False  # for now\n'
    assert tracker.did_save(path, corrected).kind == "correction"
    assert tracker.did_save(path, corrected).kind == "unchanged"
    assert tracker.did_save(path, before).kind == "undo"
    write = engine.store.last_agent_write(engine.project_scope, "settings.py")
    assert write is not None and write.status == "undone"
    assert write.last_hash == content_key(corrected)
