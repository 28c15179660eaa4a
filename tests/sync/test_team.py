"""A committed house-rules.md becomes team rules: replaced on re-read, never our own echo."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from comodor_lsp.app import ComodorApp
from comodor_lsp.brain.models import Vote
from comodor_lsp.committed_rules import import_team_rules

TEAM_FILE = """# House rules

Learned by Comodor for a teammate.

## Style

- Use single quotes for strings — *python · 3 corrections · 100% agree* \
<!-- comodor: quotes.style=single lang=python -->

## Workflow

- Run the linter before committing — *taught by you* <!-- comodor: user.run-linter=yes -->
"""


@pytest.fixture
def app(tmp_path: Path) -> Iterator[ComodorApp]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    app = ComodorApp(workspace)
    yield app
    app.close()


def by_key(app: ComodorApp) -> dict[str, object]:
    app.engine.rules.refresh()
    return {rule.key: rule for rule in app.engine.all_rules()}


def test_a_committed_file_becomes_confident_team_rules(app: ComodorApp) -> None:
    assert app.workspace is not None
    (app.workspace / "house-rules.md").write_text(TEAM_FILE)
    learned = import_team_rules(app).learned
    assert sorted(rule.key for rule in learned) == ["quotes.style", "user.run-linter"]
    rules = app.execute("comodor.rules", {})["rules"]
    quotes = next(rule for rule in rules if rule["key"] == "quotes.style")
    assert quotes["confident"] and quotes["active"] and quotes["language"] == "python"
    assert quotes["source"] == "evidence" and quotes["category"] == "style"
    assert "house-rules.md" in quotes["evidence"] and "(team)" in quotes["detail"]
    linter = next(rule for rule in rules if rule["key"] == "user.run-linter")
    assert linter["language"] is None and linter["category"] == "workflow"
    assert quotes["team"] and linter["team"]
    text = app.execute("comodor.playbook", {"query": "x"})["text"]
    team_block = text[text.index("Team rules (read from the repository") :]
    assert "Run the linter before committing" in team_block
    assert "House rules (counted from this user" not in text  # no rule of the user's own


HOSTILE = """## Workflow

- Click [here](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D) \
to set up — *taught* <!-- comodor: team.setup=yes -->
- Run ![x](https://evil.example/track.png) <img src=x onerror=alert(1)> make — *t* \
<!-- comodor: team.make=yes -->
- See <https://evil.example/docs> and vscode:extension/evil.ext now — *t* \
<!-- comodor: team.docs=yes -->
- {long} — *t* <!-- comodor: team.long=yes -->
"""


def test_hostile_team_rules_are_plain_text_everywhere(app: ComodorApp) -> None:
    assert app.workspace is not None
    (app.workspace / "house-rules.md").write_text(HOSTILE.replace("{long}", "Always " * 200))
    import_team_rules(app)
    statements = {r["key"]: r["statement"] for r in app.execute("comodor.rules", {})["rules"]}
    assert statements["team.setup"] == "Click here to set up"
    assert statements["team.make"] == "Run x make"
    assert statements["team.docs"] == "See (link removed) and (link removed) now"
    assert len(statements["team.long"]) <= 300
    exported = app.execute("comodor.playbook", {"query": "x"})["text"] + app.rules_markdown()
    for fragment in ("command:", "https:", "vscode:", "<img", "](", "onerror"):
        assert fragment not in exported, fragment


def test_an_oversized_team_file_is_read_up_to_its_cap_and_the_user_is_told(
    app: ComodorApp,
) -> None:
    assert app.workspace is not None
    line = "- Rule number {n} — *t* <!-- comodor: team.r{n}=yes -->\n"
    body = "## Workflow\n\n" + "".join(line.format(n=n) for n in range(12_000))
    (app.workspace / "house-rules.md").write_text(body)
    outcome = import_team_rules(app)
    assert any("only" in notice and "house-rules.md" in notice for notice in outcome.notices)
    keys = {rule.key for rule in app.engine.all_rules()}
    assert "team.r0" in keys and 0 < len(keys) <= 500


def test_reading_again_replaces_and_a_removed_line_drops_its_rule(app: ComodorApp) -> None:
    assert app.workspace is not None
    (app.workspace / "house-rules.md").write_text(TEAM_FILE)
    import_team_rules(app)
    support = {rule.key: rule.support for rule in app.engine.all_rules()}
    import_team_rules(app)
    import_team_rules(app)
    assert {rule.key: rule.support for rule in app.engine.all_rules()} == support
    (app.workspace / "house-rules.md").write_text(TEAM_FILE.split("## Workflow", maxsplit=1)[0])
    import_team_rules(app)
    assert sorted(by_key(app)) == ["quotes.style"]
    (app.workspace / "house-rules.md").unlink()
    import_team_rules(app)
    assert by_key(app) == {}


def test_our_own_export_is_not_read_back_as_evidence(app: ComodorApp) -> None:
    assert app.workspace is not None
    rule = app.execute("comodor.teachRule", {"statement": "Use tabs for indentation"})["rule"]
    exported = Path(app.execute("comodor.exportRules", {})["path"])
    assert exported == app.workspace / ".comodor" / "house-rules.md"
    import_team_rules(app)
    (only,) = app.engine.all_rules()
    assert only.support == 3.0 and only.source == "user"  # no team vote added
    app.execute("comodor.forgetRule", {"id": rule["id"]})
    import_team_rules(app)  # the stale export must not resurrect a forgotten rule
    assert by_key(app) == {}
    # a teammate's version of the same file (different bytes) is read
    exported.write_text(TEAM_FILE)
    import_team_rules(app)
    assert sorted(by_key(app)) == ["quotes.style", "user.run-linter"]


def test_a_team_vote_never_stacks_on_our_own_evidence(app: ComodorApp) -> None:
    assert app.workspace is not None
    own = Vote(
        key="quotes.style",
        value="double",
        statement="Use double quotes for strings",
        category="style",
        language="python",
        kind="correction",
        detail="a.py",
    )
    app.engine.record_votes([own], origin="save:1", scope=app.engine.project_scope)
    (app.workspace / "house-rules.md").write_text(TEAM_FILE)
    import_team_rules(app)
    quotes = by_key(app)["quotes.style"]
    assert quotes.value == "double" and quotes.against == 0  # type: ignore[attr-defined]
    assert "user.run-linter" in by_key(app)


def test_a_team_file_symlinked_from_outside_is_ignored(app: ComodorApp, tmp_path: Path) -> None:
    assert app.workspace is not None
    (tmp_path / "elsewhere.md").write_text(TEAM_FILE)
    (app.workspace / "house-rules.md").symlink_to(tmp_path / "elsewhere.md")
    outcome = import_team_rules(app)
    assert outcome.learned == [] and "outside the workspace" in outcome.notices[0]
    assert by_key(app) == {}
