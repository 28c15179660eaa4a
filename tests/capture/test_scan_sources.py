"""Config files applied the way the project's own tools apply them, one rule per dimension.

Real project folders, scanned, and their votes counted into a real brain: what a user
would see in hover and the playbook.
"""

from __future__ import annotations

from pathlib import Path

from comodor_lsp.brain.engine import LearningEngine
from comodor_lsp.brain.models import Rule
from comodor_lsp.conventions.scanning.scan import Scan, scan_project

from tests.capture.test_scan import python_module, write


def learn(engine: LearningEngine, scan: Scan) -> list[Rule]:
    engine.record_votes(scan.votes, origin="scan", replace=True, scope=engine.project_scope)
    return engine.all_rules()


def shown(engine: LearningEngine, key: str, language: str) -> list[tuple[str, str | None]]:
    """What hover shows a file of ``language`` for ``key``: (value, rule language)."""
    return [(r.value, r.language) for r in engine.active_rules(language) if r.key == key]


def ts_module(i: int, indent: str = "  ") -> str:
    return (
        f"export function f{i}(x: number): number {{\n"
        f"{indent}if (x) {{\n{indent * 2}return x;\n{indent}}}\n{indent}return 0;\n}}\n"
    )


def test_a_typescript_file_is_told_one_indentation_width(
    tmp_path: Path, engine: LearningEngine
) -> None:
    write(
        tmp_path,
        ".editorconfig",
        "root = true\n\n[*]\nindent_style = space\nindent_size = 4\n\n"
        "[*.{ts,tsx}]\nindent_size = 2\n",
    )
    write(tmp_path, "app/main.py", python_module(0))
    write(tmp_path, "web/src/app.ts", ts_module(0))
    write(tmp_path, "web/src/view.tsx", ts_module(1))
    learn(engine, scan_project(tmp_path))
    assert shown(engine, "indent.width", "typescript") == [("2", "typescript")]
    assert shown(engine, "indent.width", "python") == [("4", "python")]
    (ts,) = [
        r for r in engine.all_rules() if r.key == "indent.width" and r.language == "typescript"
    ]
    assert ts.evidence == ".editorconfig [*.{ts,tsx}] · 100% agree"


def test_a_makefile_is_told_to_indent_with_tabs_not_spaces(
    tmp_path: Path, engine: LearningEngine
) -> None:
    write(
        tmp_path,
        ".editorconfig",
        "root = true\n\n[*]\nindent_style = space\nindent_size = 4\n\n"
        "[Makefile]\nindent_style = tab\n",
    )
    write(tmp_path, "Makefile", "all:\n\tpython -m pytest\n")
    write(tmp_path, "pkg/mod.py", python_module(0))
    scan = scan_project(tmp_path)
    (make_style,) = [v for v in scan.votes if v.key == "indent.style" and v.language == "makefile"]
    assert make_style.value == "tabs"
    assert make_style.detail == ".editorconfig [Makefile]: indent_style = tab (makefile files)"
    learn(engine, scan)
    assert shown(engine, "indent.style", "makefile") == [("tabs", "makefile")]
    assert shown(engine, "indent.width", "makefile") == []
    assert shown(engine, "indent.style", "python") == [("spaces", "python")]


def test_ruff_and_editorconfig_agreeing_on_line_length_are_one_rule(
    tmp_path: Path, engine: LearningEngine
) -> None:
    write(tmp_path, ".editorconfig", "root = true\n\n[*]\nmax_line_length = 100\n")
    write(tmp_path, "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write(tmp_path, "a.py", python_module(0))
    write(tmp_path, "b.ts", ts_module(0))
    rules = [r for r in learn(engine, scan_project(tmp_path)) if r.key == "line_length"]
    assert [(r.value, r.language, r.confident) for r in rules] == [("100", None, True)]
    assert rules[0].evidence == ".editorconfig [*], pyproject.toml · 100% agree"
    assert rules[0].support == 2.0  # two files agreeing are not twice as hard to correct


def test_a_tool_that_disagrees_with_the_catch_all_wins_for_its_language(
    tmp_path: Path, engine: LearningEngine
) -> None:
    write(tmp_path, ".editorconfig", "root = true\n\n[*]\nmax_line_length = 100\n")
    write(tmp_path, "pyproject.toml", "[tool.ruff]\nline-length = 88\n")
    write(tmp_path, "a.py", python_module(0))
    write(tmp_path, "b.ts", ts_module(0))
    learn(engine, scan_project(tmp_path))
    assert shown(engine, "line_length", "python") == [("88", "python")]
    assert shown(engine, "line_length", "typescript") == [("100", "typescript")]


def test_a_section_narrower_than_a_language_leaves_the_language_to_its_majority(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        ".editorconfig",
        "root = true\n\n[*.py]\nindent_size = 4\n\n[legacy/**.py]\nindent_size = 2\n",
    )
    for i in range(6):
        write(tmp_path, f"src/m{i}.py", python_module(i))
    for i in range(2):
        write(tmp_path, f"legacy/old{i}.py", python_module(i, indent="  "))
    (width,) = [
        v for v in scan_project(tmp_path).votes if v.key == "indent.width" and v.kind == "evidence"
    ]
    assert (width.value, width.language) == ("4", "python")
    assert width.detail.startswith(
        ".editorconfig [*.py]: indent_size = 4 (python files; "
        "[legacy/**.py] says indent_size = 2 for 2 of 8)"
    )


def test_a_nested_editorconfig_speaks_for_the_files_below_it(tmp_path: Path) -> None:
    write(tmp_path, ".editorconfig", "root = true\n\n[*]\nindent_size = 4\n")
    write(tmp_path, "web/.editorconfig", "[*]\nindent_size = 2\n")
    write(tmp_path, "a.py", python_module(0))
    write(tmp_path, "web/app.ts", ts_module(0))
    votes = {
        (v.language, v.value, v.detail)
        for v in scan_project(tmp_path).votes
        if v.key == "indent.width" and v.kind == "evidence"
    }
    assert votes == {
        ("python", "4", ".editorconfig [*]: indent_size = 4 (all files)"),
        ("typescript", "2", "web/.editorconfig [*]: indent_size = 2 (typescript files)"),
    }


def test_an_editorconfig_above_the_workspace_is_not_the_projects(tmp_path: Path) -> None:
    write(tmp_path, ".editorconfig", "[*]\nindent_size = 8\n")  # the user's home, say
    project = tmp_path / "project"
    write(project, ".editorconfig", "[*.py]\nmax_line_length = 99\n")
    write(project, "a.py", python_module(0))
    evidence = {(v.key, v.value) for v in scan_project(project).votes if v.kind == "evidence"}
    assert evidence == {("line_length", "99")}


def test_an_overwhelming_code_convention_is_a_visible_confident_rule(
    tmp_path: Path, engine: LearningEngine
) -> None:
    """A 4-space, single-quoted project without config files."""
    for i in range(12):
        write(tmp_path, f"pkg/mod_{i}.py", python_module(i))
    learn(engine, scan_project(tmp_path))
    rules = {r.key: r for r in engine.active_rules("python")}
    width = rules["indent.width"]
    assert (width.value, width.source, width.confident) == ("4", "observation", True)
    assert width.evidence == "12 of 12 space-indented python files · 100% agree"
    quotes = rules["quotes.style"]
    assert quotes.value == "single" and quotes.confident
    assert quotes.evidence == "48 of 48 strings in 12 python files · 100% agree"
    playbook = engine.playbook("add a handler")
    assert "Indent by 4 spaces per level." in playbook.text


def test_a_majority_short_of_overwhelming_stays_an_unconfident_observation(
    tmp_path: Path, engine: LearningEngine
) -> None:
    for i in range(12):
        write(tmp_path, f"pkg/mod_{i}.py", python_module(i, quote="'" if i < 10 else '"'))
    learn(engine, scan_project(tmp_path))
    (quotes,) = [r for r in engine.all_rules() if r.key == "quotes.style"]
    assert quotes.value == "single" and not quotes.confident  # 40 of 48
    assert quotes.evidence == "1 observation of the code · 100% agree"


def test_few_files_are_not_a_consensus_however_uniform(
    tmp_path: Path, engine: LearningEngine
) -> None:
    for i in range(5):
        write(tmp_path, f"mod_{i}.py", python_module(i) * 10)
    learn(engine, scan_project(tmp_path))
    assert engine.active_rules("python") == []


def test_code_that_contradicts_the_config_does_not_outvote_it(
    tmp_path: Path, engine: LearningEngine
) -> None:
    write(tmp_path, "pyproject.toml", "[tool.ruff.format]\nquote-style = 'double'\n")
    for i in range(12):
        write(tmp_path, f"pkg/mod_{i}.py", python_module(i, quote="'"))
    learn(engine, scan_project(tmp_path))
    (quotes,) = [r for r in engine.active_rules("python") if r.key == "quotes.style"]
    assert quotes.value == "double" and quotes.source == "evidence"


def test_a_consensus_that_agrees_with_the_catch_all_joins_its_rule(
    tmp_path: Path, engine: LearningEngine
) -> None:
    write(tmp_path, ".editorconfig", "root = true\n\n[*]\nindent_style = space\n")
    for i in range(12):
        write(tmp_path, f"pkg/mod_{i}.py", python_module(i))
    learn(engine, scan_project(tmp_path))
    styles = [r for r in engine.all_rules() if r.key == "indent.style"]
    assert [(r.value, r.language) for r in styles] == [("spaces", None)]
