"""The human commands: ``rules``, ``lessons``, ``teach``, ``forget``, ``pin`` at a terminal.

Every run is a real ``python -m comodor_lsp`` subprocess on its own ``COMODOR_HOME``,
as a person or a script would run it: aligned text, or ``--json`` with the exact
protocol result; exit 0 / 1 / 2; and for every bad input or unusable resource one
line ``comodor-lsp: <problem>. <what to do>``, no traceback, nothing changed on disk.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from comodor_lsp.app import ComodorApp
from comodor_lsp.brain.models import Vote
from comodor_lsp.cli.memory_text import safe, when, width

ESCAPES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def home(brain_dir: Path) -> Path:
    """The same home as in-process apps of this test use (conftest's isolated one)."""
    return brain_dir


def run(
    workspace: Path,
    home: Path,
    *argv: str,
    env: dict[str, str] | None = None,
    workspace_flag: bool = True,
) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment.pop("COMODOR_BRAIN_URL", None)
    environment.pop("NO_COLOR", None)
    environment.update({"COMODOR_HOME": str(home), **(env or {})})
    where = ["--workspace", str(workspace)] if workspace_flag else []
    return subprocess.run(
        [sys.executable, "-m", "comodor_lsp", *argv, *where],
        capture_output=True, text=True, timeout=60, check=False, env=environment,
    )  # fmt: skip


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def rows(text: str) -> list[list[str]]:
    """A table's lines split on its column gaps (two spaces or more)."""
    return [re.split(r" {2,}", line) for line in text.splitlines()]


def columns_aligned(text: str) -> None:
    """Every column of every row starts where its header starts."""
    lines = text.splitlines()
    starts = [match.start() for match in re.finditer(r"(?<=  )\S", lines[0])]
    for line in lines[1:]:
        for start in starts:
            assert line[start - 1] == " " and line[start] != " ", (line, start)


# -- the commands, text and JSON --------------------------------------------------- #


def test_rules_shows_statement_evidence_and_status_and_all_adds_the_unconfident(
    workspace: Path, home: Path
) -> None:
    taught = json.loads(ok(run(workspace, home, "teach", "--rule", "Use tabs.", "--json")))
    rule = taught["rule"]
    app = ComodorApp(workspace)
    try:
        vote = Vote(
            key="quotes.style", value="double", statement="Use double quotes for strings",
            category="style", language="python", kind="correction", detail="a.py",
        )  # fmt: skip
        app.engine.record_votes([vote], origin="save:1", scope=app.engine.project_scope)
    finally:
        app.close()

    table = ok(run(workspace, home, "rules"))
    assert rows(table) == [
        ["ID", "RULE", "EVIDENCE", "STATUS"],
        [str(rule["id"]), "Use tabs.", "taught by you", "confident"],
    ]
    every = ok(run(workspace, home, "rules", "--all"))
    columns_aligned(every)
    weak = next(row for row in rows(every) if row[1] == "Use double quotes for strings")
    assert weak[3] == "not confident yet" and "correction" in weak[2]

    assert ok(run(workspace, home, "pin", "--rule", str(rule["id"]))) == (
        f"Pinned house rule {rule['id']}.\n"
    )
    assert rows(ok(run(workspace, home, "rules")))[1][3] == "pinned, confident"
    listed = json.loads(ok(run(workspace, home, "rules", "--json")))
    called = json.loads(
        ok(run(workspace, home, "call", "comodor.rules", '{"includeUnconfident": false}'))
    )
    assert listed == called and [r["id"] for r in listed["rules"]] == [rule["id"]]


def test_lessons_show_trust_last_use_as_a_date_and_the_lesson_in_words(
    workspace: Path, home: Path
) -> None:
    said = ok(run(workspace, home, "teach", "When running the tests: use pytest -q"))
    assert re.fullmatch(r"Taught lesson (\d+): When running the tests: use pytest -q\n", said)
    ok(run(workspace, home, "teach", "use tabs", "--kind", "fact"))
    table = ok(run(workspace, home, "lessons"))
    columns_aligned(table)
    found = {row[3]: row for row in rows(table)[1:]}
    assert rows(table)[0] == ["ID", "TRUST", "LAST USED", "LESSON"]
    assert found["When running the tests: use pytest -q"][1:3] == ["100% pinned", "never"]
    assert "use tabs" in found, "a lesson without a trigger says only what to do"

    app = ComodorApp(workspace)
    try:
        task = app.execute("comodor.beginTask", {"goal": "running the tests with pytest"})
        app.execute("comodor.endTask", {"taskId": task["taskId"], "success": True})
    finally:
        app.close()
    used = {row[3]: row for row in rows(ok(run(workspace, home, "lessons")))[1:]}
    assert used["When running the tests: use pytest -q"][2] == "just now"

    listed = json.loads(ok(run(workspace, home, "lessons", "--json")))
    assert listed == json.loads(ok(run(workspace, home, "call", "comodor.lessons", "{}")))
    assert isinstance(listed["lessons"][0]["lastUsed"], float)


@pytest.mark.parametrize(
    ("ago", "said"),
    [
        (0, "never"),
        (10, "just now"),
        (60, "1 minute ago"),
        (5 * 60, "5 minutes ago"),
        (3 * 3600, "3 hours ago"),
        (30 * 3600, "yesterday"),
        (3 * 86_400, "3 days ago"),
    ],
)
def test_a_last_use_reads_as_a_person_says_it(ago: int, said: str) -> None:
    now = 2_000_000_000.0
    assert when(now - ago if ago else 0.0, now) == said


def test_wide_characters_keep_the_columns_aligned(workspace: Path, home: Path) -> None:
    ok(run(workspace, home, "teach", "--rule", "インデントにはタブを使う。"))
    ok(run(workspace, home, "teach", "--rule", "Use tabs."))
    table = ok(run(workspace, home, "rules")).splitlines()
    assert len(table) == 3, table
    evidence = [width(line[: line.index("taught by you")]) for line in table[1:]]
    assert len(set(evidence)) == 1, table


def test_a_last_use_older_than_a_week_is_a_date() -> None:
    then = time.mktime((2026, 11, 30, 12, 0, 0, 0, 0, -1))
    assert when(then, then + 20 * 86_400) == "2026-11-30"


def test_teach_forget_and_pin_say_what_they_did_and_json_is_the_protocol_result(
    workspace: Path, home: Path
) -> None:
    lesson = json.loads(ok(run(workspace, home, "teach", "deploying: run make", "--json")))
    assert set(lesson) == {"lesson"} and lesson["lesson"]["pinned"] is True
    number = lesson["lesson"]["id"]
    assert ok(run(workspace, home, "pin", "--off", str(number))) == f"Unpinned lesson {number}.\n"
    assert rows(ok(run(workspace, home, "lessons")))[1][1] == "90%"
    assert json.loads(ok(run(workspace, home, "pin", str(number), "--json"))) == {"ok": True}
    assert ok(run(workspace, home, "forget", str(number))) == f"Forgot lesson {number}.\n"
    assert ok(run(workspace, home, "lessons")).startswith("No lessons yet.")

    rule = json.loads(ok(run(workspace, home, "teach", "--rule", "Use tabs.", "--json")))["rule"]
    gone = json.loads(ok(run(workspace, home, "forget", "--rule", str(rule["id"]), "--json")))
    assert gone == {"removed": True}
    assert ok(run(workspace, home, "rules", "--all")) == "No house rules yet.\n"


@pytest.mark.parametrize(
    ("argv", "what", "listed"),
    [
        (["forget", "41"], "lesson", "lessons"),
        (["forget", "--rule", "41"], "rule", "rules --all"),
        (["pin", "41"], "lesson", "lessons"),
        (["pin", "--off", "--rule", "41"], "rule", "rules --all"),
    ],
)
def test_an_id_that_matches_nothing_exits_1_with_one_line_naming_it(
    workspace: Path, home: Path, argv: list[str], what: str, listed: str
) -> None:
    done = run(workspace, home, *argv)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"comodor-lsp: no {what} has id 41 (forgotten already, or never taught). Nothing "
        f"was changed; `comodor-lsp {listed}` lists them.\n"
    )
    as_json = run(workspace, home, *argv, "--json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout) in (
        {"ok": False},
        {"removed": False},
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["forget", "abc"],
        ["forget"],
        ["pin", "--off"],
        ["teach"],
        ["teach", "x", "--kind", "opinion"],
        ["rules", "--colour"],
        ["lessons", "--limit", "many"],
    ],
)
def test_bad_usage_exits_2_with_argparse_s_message(
    workspace: Path, home: Path, argv: list[str]
) -> None:
    done = run(workspace, home, *argv)
    assert done.returncode == 2 and done.stdout == ""
    assert "usage: comodor-lsp" in done.stderr and "error:" in done.stderr
    assert "Traceback" not in done.stderr
    assert not home.joinpath("brain.db").exists(), "a usage error opens nothing"


# -- what is printed is safe and coloured only for a person --------------------------- #

HOSTILE = "When cloning: run \x1b]0;pwned\x07 make \x1b[2J\x1b[1A\x9b31m setup \u202eevil\u202c"


def test_control_characters_in_lesson_text_never_reach_the_terminal(
    workspace: Path, home: Path
) -> None:
    taught = ok(run(workspace, home, "teach", HOSTILE))
    table = ok(run(workspace, home, "lessons"))
    for printed in (taught, table):
        assert not ESCAPES.search(printed.replace("\n", "")), repr(printed)
        assert "make" in printed and "setup" in printed and "pwned" in printed
    stored = json.loads(ok(run(workspace, home, "lessons", "--json")))["lessons"][0]
    assert "\x1b" not in json.dumps(stored), "JSON escapes every control character itself"
    assert safe("a\tb\nc\x1b[31md") == "a b c [31md"


def test_a_terminal_that_is_not_utf8_gets_ascii_not_a_crash(workspace: Path, home: Path) -> None:
    ok(run(workspace, home, "teach", "déployer → prod: lancer make…"))
    ascii_env = {"PYTHONIOENCODING": "ascii"}
    table = ok(run(workspace, home, "lessons", env=ascii_env))
    assert table.isascii() and "When d?ployer -> prod: lancer make..." in table
    as_json = ok(run(workspace, home, "lessons", "--json", env=ascii_env))
    assert as_json.isascii()
    assert json.loads(as_json)["lessons"][0]["trigger"] == "déployer → prod"


def _on_a_terminal(workspace: Path, home: Path, *argv: str, no_color: bool) -> str:
    """Run with stdout on a pseudo-terminal, as a person sees it; returns what it printed."""
    primary, secondary = pty.openpty()
    environment = dict(os.environ, COMODOR_HOME=str(home))
    environment.pop("NO_COLOR", None)
    if no_color:
        environment["NO_COLOR"] = "1"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "comodor_lsp", *argv, "--workspace", str(workspace)],
            stdout=secondary, stderr=subprocess.PIPE, env=environment, timeout=60, check=False,
        )  # fmt: skip
        os.close(secondary)
        assert done.returncode == 0, done.stderr
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode()
    finally:
        os.close(primary)


def test_colour_only_on_a_terminal_and_never_with_no_color(workspace: Path, home: Path) -> None:
    ok(run(workspace, home, "teach", "--rule", "Use tabs."))
    ok(run(workspace, home, "teach", "testing: use pytest -q"))
    for command in ("rules", "lessons"):
        coloured = _on_a_terminal(workspace, home, command, no_color=False)
        assert "\x1b[" in coloured, command
        plain = _on_a_terminal(workspace, home, command, no_color=True)
        assert "\x1b" not in plain
        assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain, "colour moves no column"
        piped = ok(run(workspace, home, command))
        assert piped == plain.replace("\r\n", "\n"), "piped output has no colour either"


# -- one rule for errors: one line, non-zero, nothing changed ------------------------ #

BLOCK_PSYCOPG = "raise ModuleNotFoundError(\"No module named 'psycopg'\", name='psycopg')\n"
"""A ``psycopg.py`` first on ``PYTHONPATH``: the interpreter's own import fails, as in an
install without the ``team`` extra (the test venv has the driver)."""


def _settings(raw: str) -> Callable[[Path, Path, Path], dict[str, str]]:
    def write(home: Path, workspace: Path, tmp: Path) -> dict[str, str]:
        (home / "settings.json").write_text(raw)
        return {}

    return write


def _workspace_settings(raw: dict[str, Any]) -> Callable[[Path, Path, Path], dict[str, str]]:
    def write(home: Path, workspace: Path, tmp: Path) -> dict[str, str]:
        (workspace / ".vscode").mkdir()
        (workspace / ".vscode" / "settings.json").write_text(json.dumps(raw))
        return {}

    return write


def _home_under_a_file(home: Path, workspace: Path, tmp: Path) -> dict[str, str]:
    (tmp / "not-a-folder").write_text("")
    return {"COMODOR_HOME": str(tmp / "not-a-folder" / "home")}


def _url(url: str) -> Callable[[Path, Path, Path], dict[str, str]]:
    def setting(home: Path, workspace: Path, tmp: Path) -> dict[str, str]:
        return {"COMODOR_BRAIN_URL": url}

    return setting


def _no_driver(home: Path, workspace: Path, tmp: Path) -> dict[str, str]:
    blocked = tmp / "blocked"
    blocked.mkdir()
    (blocked / "psycopg.py").write_text(BLOCK_PSYCOPG)
    path = os.pathsep.join(filter(None, [str(blocked), os.environ.get("PYTHONPATH")]))
    return {
        "COMODOR_BRAIN_URL": "postgresql://dora@127.0.0.1:9/team",
        "PYTHONPATH": path,
        "PYTHONDONTWRITEBYTECODE": "1",  # the blocker's own .pyc is not a change by Comodor
    }


def _nothing(home: Path, workspace: Path, tmp: Path) -> dict[str, str]:
    return {}


TOP_K = (
    'learning.topK: "six" is not allowed in {home}/settings.json; it must be a whole number '
    "from 1 to 50"
)
FIX = "Fix or remove it, then run the command again; nothing was changed."
HOME_FIX = "Set COMODOR_HOME (or brainPath in the settings) to a folder you can write"

Setup = Callable[[Path, Path, Path], dict[str, str]]
"""Prepares one bad case (home, workspace, tmp_path); returns the environment it needs."""

BAD_INPUT: list[tuple[str, Setup, list[str], int, list[str]]] = [
    # (case, setup, argv, exit code, what the one line says)
    ("settings file not JSON", _settings("{topK: 6"), ["rules"], 1,
     ["settings.json is not plain JSON (", FIX]),
    ("settings file a list", _settings("[1, 2]"), ["lessons"], 1,
     ["settings.json holds [1, 2], but must hold a JSON object", FIX]),
    ("topK a word", _settings('{"learning": {"topK": "six"}}'), ["teach", "x: y"], 1,
     [TOP_K, FIX]),
    ("topK a word, progress", _settings('{"learning": {"topK": "six"}}'), ["progress"], 1, [TOP_K]),
    ("topK a word, sync", _settings('{"learning": {"topK": "six"}}'), ["sync"], 1, [TOP_K]),
    ("topK a word, call", _settings('{"learning": {"topK": "six"}}'),
     ["call", "comodor.rules"], 1, [TOP_K]),
    ("severity loud", _settings('{"diagnostics": {"severity": "loud"}}'), ["forget", "1"], 1,
     ['diagnostics.severity: "loud" is not allowed', 'one of "error", "warning", "information", '
      '"hint", "off"', FIX]),
    ("minConfidence out of range", _settings('{"learning": {"minConfidence": 3}}'),
     ["pin", "1"], 1, ["learning.minConfidence: 3 is not allowed", "a number from 0 to 1"]),
    ("a section not an object", _settings('{"learning": 5}'), ["rules", "--all"], 1,
     ["learning: 5 is not allowed", "an object of settings"]),
    ("exclude not strings", _settings('{"watch": {"exclude": [1]}}'), ["lessons"], 1,
     ["watch.exclude: [1] is not allowed", "a list of strings"]),
    ("workspace setting wrong", _workspace_settings({"comodor.learning.topK": "six"}),
     ["rules"], 1, ['learning.topK: "six" is not allowed in {ws}/.vscode/settings.json']),
    ("home under a file", _home_under_a_file, ["teach", "x: y"], 1,
     ["cannot create the brain folder", HOME_FIX]),
    ("home under a file, sync", _home_under_a_file, ["sync"], 1,
     ["cannot create the brain folder", HOME_FIX]),
    ("home under a file, call", _home_under_a_file, ["call", "comodor.teach", '{"text": "a: b"}'],
     1, ["cannot create the brain folder", HOME_FIX]),
    ("home under a file, progress", _home_under_a_file, ["progress"], 1,
     ["cannot create the brain folder"]),
    ("a brain url not PostgreSQL", _url("mysql://dora:s3cret@db/team"), ["rules"], 1,
     ["brain.url must be a postgresql:// URL"]),
    ("a team url without its driver", _no_driver, ["lessons"], 1,
     ["driver is not installed", "pip install 'comodor-lsp[team]'"]),
    ("an empty lesson", _nothing, ["teach", ""], 2, ["invalid text: must not be empty", "Nothing"]),
    ("a lesson too long", _nothing, ["teach", "x" * 2001], 2, ["invalid text:"]),
    ("an empty rule", _nothing, ["teach", "--rule", " "], 2, ["invalid statement:"]),
    ("call with text, not JSON", _nothing, ["call", "comodor.teach", "text"], 2,
     ["the argument is not JSON (", "Pass one JSON object"]),
    ("call with an id of the wrong type", _nothing, ["call", "comodor.forget", '{"id": "x"}'],
     2, ["invalid id: expected an integer, got a string"]),
    ("a lesson id that matches nothing", _nothing, ["forget", "7"], 1, ["no lesson has id 7"]),
    ("a rule id that matches nothing", _nothing, ["pin", "--rule", "7"], 1, ["no rule has id 7"]),
]  # fmt: skip


def _teach_in_process(workspace: Path, text: str) -> None:
    """What ``teach`` does, without a process of its own (these cases test the next one)."""
    app = ComodorApp(workspace)
    try:
        app.execute("comodor.teach", {"text": text})
    finally:
        app.close()


def _disk(*folders: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folders``: its bytes and modification time."""
    found = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                found[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


@pytest.mark.parametrize(
    ("setup", "argv", "code", "said"),
    [pytest.param(*case[1:], id=case[0]) for case in BAD_INPUT],
)
def test_bad_input_is_one_line_a_non_zero_exit_and_changes_nothing(
    workspace: Path,
    home: Path,
    tmp_path: Path,
    setup: Callable[[Path, Path, Path], dict[str, str]],
    argv: list[str],
    code: int,
    said: list[str],
) -> None:
    _teach_in_process(workspace, "testing: use pytest -q")  # a brain that exists already
    env = setup(home, workspace, tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    before = _disk(tmp_path, home)
    done = run(workspace, home, *argv, env={**env, "TMPDIR": str(temp)})
    assert done.returncode == code, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("comodor-lsp: ") for line in lines), done.stderr
    assert len(lines) == 1, "one line per problem, and there is one"
    for part in said:
        assert part.format(home=home, ws=workspace) in lines[0], lines[0]
    assert lines[0].endswith("."), "a sentence, with its full stop"
    assert "Traceback" not in done.stderr + done.stdout and "s3cret" not in done.stderr
    if argv[0] != "call" or code == 2:
        assert done.stdout == ""
    assert _disk(tmp_path, home) == before, "nothing changed on disk (no temporary brain either)"


def test_debug_shows_the_traceback_the_one_line_hides(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    env = _home_under_a_file(home, workspace, tmp_path)
    quiet = run(workspace, home, "rules", env=env)
    assert quiet.returncode == 1 and "Traceback" not in quiet.stderr
    loud = subprocess.run(
        [sys.executable, "-m", "comodor_lsp", "--debug", "rules", "--workspace", str(workspace)],
        capture_output=True, text=True, timeout=60, check=False, env={**os.environ, **env},
    )  # fmt: skip
    assert loud.returncode == 1
    assert "Traceback" in loud.stderr and "BrainUnavailable" in loud.stderr


def test_a_workspace_that_is_not_a_folder_is_one_line(workspace: Path, home: Path) -> None:
    done = run(workspace / "missing", home, "lessons")
    assert done.returncode == 1
    assert done.stderr == (
        f"comodor-lsp: {workspace / 'missing'} is not a folder. Pass a project folder with "
        "--workspace.\n"
    )
