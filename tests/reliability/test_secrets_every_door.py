"""Every door, every byte: the fake-secret corpora through real sessions, then a scan.

``test_secrets_everywhere`` pushes the listed corpus through the stored doors of a local
brain. These sessions (two, each every other secret, run side by side) go wider, as issue 27
asks: every corpus (the listed kinds, the unlisted ones the redactor was not written against,
and every later batch, each by a fresh author), a team brain on a throwaway PostgreSQL, the
server's own debug log, and every message the server sent back to the editor (diagnostics,
hover, memory notifications, command results). Afterwards every byte
it wrote is read -- brain, -wal, -shm, blobs, every file under the workspace and
COMODOR_HOME, the log, every request body the model endpoint received, every LSP message,
and a ``pg_dump --data-only`` of the team database -- and no 8-character piece of any
secret may appear in any of them (the criterion of ``tests/support/unlisted_secrets.py``).

After the clean verdict the same scan is shown to flag a secret planted in plain text in
each kind of place (a file in the workspace and in COMODOR_HOME, the log, an LSP message, a
team-database row), so a scan that reads nothing cannot pass. Run against the redactor
before its pgpass fix, it fails on ``*:*:*:replicator:<password>`` taught as a rule (team
database, AGENTS.md, house-rules.md, hover, memory notifications, the log).

What is not scanned: the user's own files (``USERS_OWN``: the agent wrote the secrets there,
they are the user's to keep), text the words of the pieces alone would match, and chance
matches of a piece of hex or digits alone, which is widened to 12 hex characters or 16
digits (see :func:`_telling` and :func:`_widened`).
"""

from __future__ import annotations

import functools
import json
import os
import queue
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from tests.support.eighth_batch_secrets import STILL_STORED as EIGHTH_STILL_STORED
from tests.support.eighth_batch_secrets import build_eighth_batch
from tests.support.fake_llm import FakeLLM, Reply
from tests.support.fifth_batch_secrets import STILL_STORED, build_fifth_batch
from tests.support.fourth_batch_secrets import build_fourth_batch
from tests.support.ninth_batch_secrets import STILL_STORED as NINTH_STILL_STORED
from tests.support.ninth_batch_secrets import build_ninth_batch
from tests.support.postgres import Cluster
from tests.support.rpc import SERVER, RawServer
from tests.support.secrets import SECRET_SAMPLES
from tests.support.seventh_batch_secrets import STILL_STORED as SEVENTH_STILL_STORED
from tests.support.seventh_batch_secrets import build_seventh_batch
from tests.support.sixth_batch_secrets import STILL_STORED as SIXTH_STILL_STORED
from tests.support.sixth_batch_secrets import build_sixth_batch
from tests.support.tenth_batch_secrets import STILL_STORED as TENTH_STILL_STORED
from tests.support.tenth_batch_secrets import build_tenth_batch
from tests.support.unlisted_secrets import build_unlisted
from tests.support.unseen_secrets import build_unseen

pytestmark = pytest.mark.slow


KNOWN_FIFTH_BATCH_LEAKS: Final = STILL_STORED
"""Fifth-batch kinds left out of this scan (neither sent nor looked for), each a known leak.

Their pieces would also be found in the older samples that share them (people's passwords
begin with the same few words), so they are left out whole rather than forgiven when found.
"""

KNOWN_SIXTH_BATCH_LEAKS: Final = SIXTH_STILL_STORED
"""Sixth-batch kinds left out of this scan, for the same reason, each a known leak."""

KNOWN_SEVENTH_BATCH_LEAKS: Final = SEVENTH_STILL_STORED
"""Seventh-batch kinds left out of this scan, for the same reason, each a known leak."""

KNOWN_EIGHTH_BATCH_LEAKS: Final = EIGHTH_STILL_STORED
"""Eighth-batch kinds left out of this scan, for the same reason, each a known leak."""

KNOWN_NINTH_BATCH_LEAKS: Final = NINTH_STILL_STORED
"""Ninth-batch kinds left out of this scan, for the same reason, each a known leak (none)."""

KNOWN_TENTH_BATCH_LEAKS: Final = TENTH_STILL_STORED
"""Tenth-batch kinds left out of this scan, for the same reason, each a known leak."""


@functools.cache
def _every_corpus() -> list[tuple[str, str, str]]:
    """(name, secret, context) of every corpus, drawn on first use: collecting the inner-loop
    tier imports this module in every worker, and drawing ~640 samples there costs a second."""
    return (
        [(f"listed:{s.name or s.kind}", s.secret, s.context) for s in SECRET_SAMPLES]
        + [(f"unlisted:{s.name}", s.secret, s.context) for s in build_unlisted(0)]
        + [(f"unseen:{s.name}", s.secret, s.context) for s in build_unseen(0)]
        + [(f"fourth:{s.name}", s.secret, s.context) for s in build_fourth_batch(0)]
        + [
            (f"fifth:{s.name}", s.secret, s.context)
            for s in build_fifth_batch(0)
            if s.name not in KNOWN_FIFTH_BATCH_LEAKS
        ]
        + [
            (f"sixth:{s.name}", s.secret, s.context)
            for s in build_sixth_batch(0)
            if s.name not in KNOWN_SIXTH_BATCH_LEAKS
        ]
        + [
            (f"seventh:{s.name}", s.secret, s.context)
            for s in build_seventh_batch(0)
            if s.name not in KNOWN_SEVENTH_BATCH_LEAKS
        ]
        + [
            (f"eighth:{s.name}", s.secret, s.context)
            for s in build_eighth_batch(0)
            if s.name not in KNOWN_EIGHTH_BATCH_LEAKS
        ]
        + [
            (f"ninth:{s.name}", s.secret, s.context)
            for s in build_ninth_batch(0)
            if s.name not in KNOWN_NINTH_BATCH_LEAKS
        ]
        + [
            (f"tenth:{s.name}", s.secret, s.context)
            for s in build_tenth_batch(0)
            if s.name not in KNOWN_TENTH_BATCH_LEAKS
        ]
    )


@functools.cache
def _surroundings() -> str:
    """The corpus with every secret cut out: a piece found here says nothing about a secret."""
    return "\0".join(context.replace(secret, "\0") for _, secret, context in _every_corpus())


_PROSE = re.compile(
    r"[^A-Za-z0-9]*(?:[A-Z]?[a-z]+|[A-Z]+)(?:[^A-Za-z0-9]+(?:[A-Z]?[a-z]+|[A-Z]+))*[^A-Za-z0-9]*"
)
"""Words and punctuation, as prose and log lines are made of: ``response``, `` PRIVATE``."""


def _pieces(secret: str, size: int) -> set[str]:
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


_FEW_BITS: Final = (
    (16, re.compile(r"[0-9.:_-]{8}")),
    (12, re.compile(r"[0-9a-f.:_-]{8}|[0-9A-F.:_-]{8}")),
)
"""Pieces of digits or of hex alone (and separators): 32 bits or fewer, which chance matches."""


def _widened(secret: str, piece: str) -> str:
    """*piece*, or the longer piece of *secret* around it when it alone says too little.

    The team database holds hundreds of random 32-hex ids and float timestamps: with the
    fourth batch's hex secrets, some 8-hex piece (32 bits) or run of digits matched one of
    them by chance now and then (``8a58ff23`` of a macaroon inside a uuid4 hex; ``.1395516``
    of a token inside ``1796411563.1395516``). Such a piece stands for 12 hex characters (48
    bits) or 16 digits instead; a secret that short is checked whole.
    """
    for width, shape in _FEW_BITS:
        if shape.fullmatch(piece):
            if len(secret) <= width:
                return secret
            at = min(secret.index(piece), len(secret) - width)
            return secret[at : at + width]
    return piece


def _telling(secret: str) -> frozenset[str]:
    """The pieces of *secret* whose presence anywhere means the secret leaked.

    The 8-character pieces of :attr:`UnlistedSample.shingles`, less those any line of the
    corpus holds anyway outside its secret (``-----BEGIN``, ``username=``) and those made
    of words alone (``response`` of a Digest header, ``ignature`` of a SigV4 one): the
    server's log and messages are full of words. A secret of words alone (a recovery
    phrase) is checked by its runs of three words instead (:func:`_word_runs`).
    """
    eight = {
        _widened(secret, p)
        for p in _pieces(secret, 8)
        if p not in _surroundings() and not _PROSE.fullmatch(p)
    }
    if eight:
        return frozenset(eight)
    return frozenset(p for p in _word_runs(secret) if p not in _surroundings())


def _word_runs(secret: str, count: int = 3) -> set[str]:
    """Every run of *count* whole words of *secret*, as the secret spells it.

    Not 16-character pieces: the team database keeps each lesson's search terms, the words
    of its identifiers split apart, and ``agentAddress udp:161`` of an SNMP sample became
    ``agent address agentaddress``, whose `` agent address a`` is a piece of a recovery
    phrase that happened to draw ``agent address acquire`` (a chance match that failed one
    run in CI). Three words of a phrase are rarer by chance than two and a letter, and say
    as surely that the phrase leaked.
    """
    words = list(re.finditer(r"\S+", secret))
    if len(words) <= count:
        return {secret}
    return {
        secret[words[i].start() : words[i + count - 1].end()] for i in range(len(words) - count + 1)
    }


# (name, context, the pieces none of the written bytes may hold)
Secret = tuple[str, str, frozenset[str]]


@functools.cache
def every_secret() -> list[Secret]:
    """Every secret of every corpus with the pieces that tell it leaked (on first use)."""
    secrets = [(name, context, _telling(secret)) for name, secret, context in _every_corpus()]
    assert all(pieces for _, _, pieces in secrets), "every secret is checked"
    assert max(len(context) for _, context, _ in secrets) < 1980, "the teach door's limit"
    return secrets


SESSIONS: Final = 2
"""The corpora go through this many sessions, each every other secret of every corpus: one
session of all 1,829 took five minutes, while the slow tier's other worker had nothing left to
run; two run side by side on xdist's workers."""


def secrets_of(session: int) -> list[Secret]:
    """The secrets one session takes: every :data:`SESSIONS`-th, a mix of every corpus."""
    return every_secret()[session::SESSIONS]


@pytest.fixture(params=range(SESSIONS), ids=lambda session: f"session {session + 1}")
def session(request: pytest.FixtureRequest) -> int:
    return int(request.param)


class _Recording(queue.Queue[dict[str, Any]]):
    """A reply queue that also keeps every reply: what the server sent is scanned too."""

    def __init__(self, kept: list[dict[str, Any]]) -> None:
        super().__init__()
        self.kept = kept

    def put(self, item: dict[str, Any], block: bool = True, timeout: float | None = None) -> None:
        self.kept.append(item)
        super().put(item, block, timeout)


def leaks(places: dict[str, bytes]) -> list[tuple[str, str, str]]:
    """(secret, place, piece) for every telling piece of a secret found in a place.

    Case matters, as in ``unlisted_secrets``: lower-cased, ``[REDACTED:age-secret-key]``
    would hold a piece of ``AGE-SECRET-KEY-1...``. One pass over each distinct text, a
    window per piece length, so megabytes of log and messages scan in seconds.
    """
    owners: dict[str, list[str]] = {}
    for name, _, pieces in every_secret():
        for piece in pieces:
            owners.setdefault(piece, []).append(name)
    sizes = sorted({len(piece) for piece in owners})
    by_text: dict[str, list[str]] = {}
    for place, data in places.items():
        by_text.setdefault(data.decode("utf-8", "replace"), []).append(place)
    found = []
    for text, where in by_text.items():
        hits = {
            text[i : i + size]
            for size in sizes
            for i in range(len(text) - size + 1)
            if text[i : i + size] in owners
        }
        found += [
            (name, place, piece) for piece in hits for name in owners[piece] for place in where
        ]
    return found


@pytest.fixture
def llm(session: int) -> Iterator[FakeLLM]:
    """A model that echoes the session's secrets back as proposed lessons."""
    with FakeLLM() as fake:
        echo = [
            {"kind": "env", "trigger": f"deploying {index}", "guidance": context}
            for index, (_, context, _) in enumerate(secrets_of(session)[::7])
        ]
        fake.set_default(Reply.chat(json.dumps({"lessons": echo, "skill": None})))
        yield fake


def _shown(found: list[tuple[str, str, str]], places: dict[str, bytes]) -> list[str]:
    """Each leak as ``secret @ place: …text around the piece…``, so a failure says which
    door let it through without a rerun (the corpus is drawn anew each run)."""
    shown = set()
    for name, place, piece in found:
        text = places[place].decode("utf-8", "replace")
        at = text.find(piece)
        shown.add(f"{name} @ {Path(place).name}: {text[max(0, at - 160) : at + 160]!r}")
    return sorted(shown)[:20]


def _dump(cluster: Cluster, url: str) -> bytes:
    """Every row of every table of the team database, as ``pg_dump --data-only`` prints it."""
    database = url.rsplit("/", 1)[1]
    done = cluster._run(
        str(cluster.bin / "pg_dump"), "--data-only", "-h", str(cluster.sockets),
        "-p", str(cluster.port), "-U", "postgres", "-d", database,
    )  # fmt: skip
    assert "COPY public." in done.stdout or "INSERT INTO" in done.stdout, done.stdout[:500]
    return done.stdout.encode()


USERS_OWN = {"app.py", "settings.py"}
"""The files the user and the agent wrote themselves: the secrets are theirs to keep there."""


def _files(*roots: Path) -> dict[str, bytes]:
    """Every file under *roots* but the user's own, by path."""
    return {
        str(path): path.read_bytes()
        for root in roots
        for path in root.rglob("*")
        if path.is_file() and path.relative_to(root).as_posix() not in USERS_OWN
    }


def _everything_written(
    workspace: Path, home: Path, log: Path, llm: FakeLLM, sent: list[dict[str, Any]], dump: bytes
) -> dict[str, bytes]:
    places = _files(workspace, home)
    places["server log"] = log.read_bytes()
    places.update({f"model request {i}": r.body.encode() for i, r in enumerate(llm.requests)})
    places.update({f"lsp message {i}": json.dumps(m).encode() for i, m in enumerate(sent)})
    places["team database"] = dump
    return places


def test_no_piece_of_any_secret_reaches_any_byte_a_session_writes(
    tmp_path: Path,
    brain_dir: Path,
    llm: FakeLLM,
    pg_cluster: Cluster,
    team_url: str,
    session: int,
) -> None:
    secrets = secrets_of(session)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("print('hello')\n")
    log = tmp_path / "server.log"
    env = dict(os.environ, COMODOR_BRAIN_URL=team_url, COMODOR_USER="alice")
    sent: list[dict[str, Any]] = []
    with log.open("wb") as log_file:
        server = RawServer(
            workspace, env=env, stderr=log_file, command=[*SERVER, "--log-level", "debug"]
        )
        server.replies = _Recording(sent)
        server.unaddressed = _Recording(sent)
        try:
            _session(server, workspace, llm, secrets)
            # While the server runs: the brain's -wal and -shm, gone once it closes cleanly.
            live = {f"{path} (server running)": data for path, data in _files(brain_dir).items()}
        finally:
            server.close()
    sent += server.notifications
    assert any(path.endswith("-wal (server running)") for path in live), sorted(live)

    # The doors were really used.
    assert llm.requests, "reflection ran"
    assert b"[REDACTED:" in (workspace / "AGENTS.md").read_bytes()
    assert (workspace / ".comodor" / "house-rules.md").exists()
    assert list(brain_dir.rglob("blobs/*/*")), "checkpoints were stored"
    assert any(m.get("method") == "textDocument/publishDiagnostics" for m in sent)
    assert any(m.get("method") == "comodor/memory" for m in sent)
    assert any("House rules" in json.dumps(m.get("result")) for m in sent), "hover answered"
    assert log.stat().st_size > 0
    dump = _dump(pg_cluster, team_url)
    assert b"[REDACTED:" in dump, "the team brain got the redacted text"

    places = _everything_written(workspace, brain_dir, log, llm, sent, dump) | live
    assert any(place.endswith(".db") for place in places), "the brain file is scanned"
    found = leaks(places)
    assert found == [], (
        f"{len(found)} leaks of {len(secrets)} secrets (with the corpus seed printed in "
        f"pytest's header): {_shown(found, places)}"
    )

    # Fail-able: the same scan finds a secret planted in plain text in each kind of place.
    name, context, _ = secrets[0]
    (workspace / "notes.txt").write_text(context)
    (brain_dir / "planted.txt").write_text(context)
    with log.open("a") as log_file:
        log_file.write(context)
    sent.append({"method": "window/logMessage", "params": {"message": context}})
    database = team_url.rsplit("/", 1)[1]
    pg_cluster.psql(
        f"CREATE TABLE planted (t text); INSERT INTO planted VALUES ($q${context}$q$)", database
    )
    planted = _everything_written(workspace, brain_dir, log, llm, sent, _dump(pg_cluster, team_url))
    flagged = {place for secret, place, _ in leaks(planted) if secret == name}
    assert {
        str(workspace / "notes.txt"),
        str(brain_dir / "planted.txt"),
        "server log",
        f"lsp message {len(sent) - 1}",
        "team database",
    } <= flagged, flagged


def _session(server: RawServer, workspace: Path, llm: FakeLLM, secrets: list[Secret]) -> None:
    """Every door a user's text takes, each fed *secrets*."""
    server.initialize(
        {
            "watch": {"enabled": False},
            "learning": {"prefetchDelayMs": 50},
            "reflect": {"enabled": True, "endpoint": llm.url, "model": "fake-model"},
            "sync": {"targets": ["AGENTS.md"]},
        }
    )

    def ok(name: str, argument: Any) -> Any:
        reply = server.command(name, argument, timeout=60)
        assert "result" in reply, (name, reply)
        return reply["result"]

    for _, context, _ in secrets:
        ok("comodor.teach", {"text": f"credentials: {context}"})
        if len(context) <= 290:
            ok("comodor.teachRule", {"statement": f"Keep {context}"})
        ok("comodor.denied", {"tool": "run_shell", "subject": context})
    contexts = [context for _, context, _ in secrets]
    leak = "\n".join(contexts)
    one_liners = [c for c in contexts if "\n" not in c and len(c) < 200]
    failure = "deploy failed: " + " ".join(one_liners[:3])
    task = ok("comodor.beginTask", {"goal": f"deploy with {contexts[0][:1000]}"})

    # An agent writes a file full of secrets; the user corrects it in the editor.
    agent_text = 'TOKEN_NAME = "x"\n' + leak + "\n"
    uri = (workspace / "settings.py").as_uri()
    (workspace / "settings.py").write_text(agent_text)
    ok("comodor.agentEdit", {"uri": uri})
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": agent_text}},
    )
    corrected = agent_text.replace('"x"', "'x'") + "# " + contexts[-1] + "\n"
    (workspace / "settings.py").write_text(corrected)
    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": corrected})
    server.wait_notification(
        "comodor/memory", lambda params: params.get("action") == "correction", timeout=30
    )
    ok(
        "comodor.endTask",
        {
            "taskId": task["taskId"],
            "success": False,
            "steps": 6,
            "messages": [
                {"role": "user", "content": leak},
                {"role": "assistant", "content": leak},
                {"role": "tool", "name": "deploy", "content": leak, "isError": True},
                {"role": "tool", "name": "deploy", "content": failure, "isError": True},
                {"role": "tool", "name": "deploy", "content": failure, "isError": True},
            ],
        },
    )
    server.wait_notification(
        "comodor/memory", lambda params: params.get("action") == "learned", timeout=60
    )
    ok("comodor.feedback", {"good": False, "note": leak[:1900]})
    ok("comodor.exportRules", {})
    # Hover and diagnostics on the open file: the rules the user reads in the editor.
    for line in range(0, 40, 5):
        server.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}},
        )
    ok("comodor.rules", {"includeUnconfident": True})
    ok("comodor.stats", {})
    server.wait_notification("textDocument/publishDiagnostics", timeout=30)
