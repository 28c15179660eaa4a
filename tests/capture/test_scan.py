"""What Comodor learns about a project from one scan at startup."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from comodor_lsp.conventions.scanning.scan import Scan, project_fingerprint, scan_project
from comodor_lsp.conventions.votes import CATALOG, Vote


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def find(scan: Scan, key: str, *, kind: str, language: str | None = "python") -> list[Vote]:
    return [v for v in scan.votes if v.key == key and v.kind == kind and v.language == language]


def python_module(i: int, quote: str = "'", indent: str = "    ") -> str:
    q = quote
    return (
        f"def handler_{i}(event) -> dict:\n"
        f"{indent}name = {q}event-{i}{q}\n"
        f"{indent}if event:\n"
        f"{indent}{indent}return {{{q}name{q}: name, {q}kind{q}: {q}x{q}}}\n"
        f"{indent}return {{}}\n"
    )


def test_four_space_python_is_observed_as_width_four(tmp_path: Path) -> None:
    for i in range(6):
        write(tmp_path, f"pkg/mod_{i}.py", python_module(i))
    scan = scan_project(tmp_path)
    (width,) = find(scan, "indent.width", kind="observation")
    assert width.value == "4"
    assert width.detail == "6 of 6 space-indented python files indent by 4 spaces per level"
    assert 0 < width.weight <= 1.0
    (style,) = find(scan, "indent.style", kind="observation")
    assert style.value == "spaces"
    assert scan.files_sampled == 6


def test_quote_majority_in_code_is_observed_with_honest_counts(tmp_path: Path) -> None:
    for i in range(5):
        write(tmp_path, f"m{i}.py", python_module(i, quote="'"))
    write(tmp_path, "odd.py", 'x = "double"\n')
    (quotes,) = find(scan_project(tmp_path), "quotes.style", kind="observation")
    assert quotes.value == "single"
    assert quotes.statement == CATALOG["quotes.style"].statement_for("single")
    assert quotes.detail == "20 of 21 strings in 6 python files use single quotes"
    assert quotes.weight <= 1.0


def test_semicolon_free_javascript_is_observed(tmp_path: Path) -> None:
    body = "".join(f"const v{i} = load('{i}')\nexport const w{i} = v{i} + 1\n" for i in range(15))
    write(tmp_path, "src/a.js", body)
    (semi,) = find(
        scan_project(tmp_path), "js.semicolons", kind="observation", language="javascript"
    )
    assert semi.value == "never"


def test_names_in_the_code_are_observed_per_kind_with_honest_counts(tmp_path: Path) -> None:
    for i in range(4):
        write(  # keyword arguments (name=value) are not variables
            tmp_path,
            f"pkg/shop_{i}.py",
            "".join(
                f"class OrderBook{i}{k}:\n    pass\n\n\n"
                f"def load_orders_{k}(path):\n"
                "    open_orders = read(\n        path,\n        pageSize=2,\n    )\n"
                "    return open_orders\n\n\n"
                for k in range(6)
            ),
        )
    scan = scan_project(tmp_path)
    (functions,) = find(scan, "naming.functions", kind="observation")
    assert (functions.value, functions.detail) == (
        "snake_case",
        "24 of 24 function names in 4 python files are in snake_case",
    )
    (classes,) = find(scan, "naming.classes", kind="observation")
    assert classes.value == "PascalCase" and classes.statement == "Name classes in PascalCase."
    (variables,) = find(scan, "naming.variables", kind="observation")
    assert variables.detail == "24 of 24 variable names in 4 python files are in snake_case"


def test_mixed_code_yields_no_quote_observation(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "".join(f"a{i} = 'x'\nb{i} = \"y\"\n" for i in range(20)))
    assert find(scan_project(tmp_path), "quotes.style", kind="observation") == []


def test_editorconfig_sections_become_evidence_per_language(tmp_path: Path) -> None:
    write(
        tmp_path,
        ".editorconfig",
        "root = true\n\n[*]\nindent_style = space\nindent_size = 2\n\n"
        "[*.py]\nindent_size = 4\n\n[*.go]\nindent_style = tab\n",
    )
    write(tmp_path, "a.py", "x = 1\n")
    write(tmp_path, "b.ts", "const x = 1;\n")
    write(tmp_path, "c.go", "package c\n")
    scan = scan_project(tmp_path)
    # Python says otherwise, so the catch-all is cast per language, never for all of them
    assert find(scan, "indent.width", kind="evidence", language=None) == []
    (py,) = find(scan, "indent.width", kind="evidence", language="python")
    assert py.value == "4" and py.weight == 2.0
    assert py.detail == ".editorconfig [*.py]: indent_size = 4 (python files)"
    (ts,) = find(scan, "indent.width", kind="evidence", language="typescript")
    assert ts.value == "2" and "[*]: indent_size = 2" in ts.detail
    (go_style,) = find(scan, "indent.style", kind="evidence", language="go")
    assert go_style.value == "tabs"
    assert find(scan, "indent.width", kind="evidence", language="go") == []  # tabs: no width


def test_pyproject_tools_become_evidence(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        "[tool.ruff]\nline-length = 100\n\n[tool.ruff.format]\nquote-style = 'single'\n\n"
        "[tool.ruff.lint]\nselect = ['E', 'ANN', 'T20']\nignore = ['ANN401']\n\n"
        "[tool.isort]\nprofile = 'black'\n\n[tool.pytest.ini_options]\naddopts = '-q'\n",
    )
    scan = scan_project(tmp_path)
    evidence = {(v.key, v.value) for v in scan.votes if v.kind == "evidence"}
    assert evidence >= {
        ("line_length", "100"),
        ("quotes.style", "single"),
        ("python.return_annotations", "added"),
        ("python.logging", "logging"),
        ("trailing_commas", "always"),
        ("tests.runner", "pytest"),
    }
    (quotes,) = find(scan, "quotes.style", kind="evidence")
    assert quotes.detail == "pyproject.toml: ruff format quote-style = single"
    assert quotes.weight == 2.0
    (length,) = find(scan, "line_length", kind="evidence")
    assert length.statement == "Keep lines at most 100 characters long."


def test_black_implies_double_quotes_unless_normalization_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.black]\nline-length = 88\n")
    assert [v.value for v in find(scan_project(tmp_path), "quotes.style", kind="evidence")] == [
        "double"
    ]
    write(tmp_path, "pyproject.toml", "[tool.black]\nskip-string-normalization = true\n")
    assert find(scan_project(tmp_path), "quotes.style", kind="evidence") == []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            ".prettierrc",
            '{"singleQuote": true, "semi": false, "tabWidth": 4, "trailingComma": "none"}',
        ),
        (".prettierrc.yaml", "singleQuote: true\nsemi: false\ntabWidth: 4\ntrailingComma: none\n"),
        (
            "package.json",
            json.dumps(
                {
                    "prettier": {
                        "singleQuote": True,
                        "semi": False,
                        "tabWidth": 4,
                        "trailingComma": "none",
                    }
                }
            ),
        ),
    ],
)
def test_prettier_settings_become_javascript_and_typescript_evidence(
    tmp_path: Path, name: str, text: str
) -> None:
    write(tmp_path, name, text)
    scan = scan_project(tmp_path)
    for language in ("javascript", "typescript"):
        found = {v.key: v.value for v in scan.votes if v.language == language}
        assert found == {
            "quotes.style": "single",
            "js.semicolons": "never",
            "indent.width": "4",
            "trailing_commas": "never",
        }
    assert all(name in v.detail for v in scan.votes)


def test_plain_eslint_rules_become_evidence(tmp_path: Path) -> None:
    write(
        tmp_path,
        "eslint.config.js",
        "export default [{ rules: { quotes: ['error', 'double'], semi: ['error', 'always'],"
        " 'comma-dangle': ['warn', 'always-multiline'] } }];\n",
    )
    scan = scan_project(tmp_path)
    found = {v.key: v.value for v in scan.votes if v.language == "typescript"}
    assert found == {
        "quotes.style": "double",
        "js.semicolons": "always",
        "trailing_commas": "always",
    }


def test_package_json_names_the_test_runner(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"scripts": {"test": "vitest run"}}))
    (runner,) = [v for v in scan_project(tmp_path).votes if v.key == "tests.runner"]
    assert runner.value == "vitest" and runner.category == "workflow"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", "[tool.ruff\nline-length = = 3"),
        ("pyproject.toml", "[tool.ruff]\nline-length = 'long'\n[tool.ruff.lint]\nselect = 7\n"),
        ("package.json", "{not json"),
        ("package.json", '["a list"]'),
        ("package.json", '{"prettier": {"tabWidth": "wide"}, "devDependencies": ["jest"]}'),
        (".prettierrc", "{broken"),
        (".prettierrc.toml", "= nope"),
        (".eslintrc.json", "{{{"),
        (".editorconfig", "[*\nindent_style = \x00space\n[[[\n"),
        ("ruff.toml", "\xff\xfe"),
    ],
)
def test_malformed_config_files_are_skipped_not_fatal(tmp_path: Path, name: str, text: str) -> None:
    write(tmp_path, name, text)
    write(tmp_path, "good.py", python_module(1))
    scan = scan_project(tmp_path)
    assert scan.files_sampled == 1
    assert all(v.statement for v in scan.votes)


def test_binary_file_in_config_position_does_not_crash(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"\x00\x01\xff\xfe" * 50)
    (tmp_path / ".editorconfig").write_bytes(b"\xff\xfe\x00[*]\n")
    scan_project(tmp_path)


def test_gitignored_and_tooling_folders_are_not_sampled(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "generated/\n*.gen.py\n")
    write(tmp_path, "app.py", python_module(0))
    for rel in (
        "generated/big.py",
        "models.gen.py",
        "node_modules/lib/index.js",
        ".venv/lib/site.py",
        "build/out.py",
        ".comodor/cache.py",
        ".git/hooks/pre-commit.py",
    ):
        write(tmp_path, rel, python_module(1, quote='"', indent="\t"))
    write(tmp_path, "sub/.gitignore", "local.py\n")
    write(tmp_path, "sub/local.py", python_module(2, quote='"', indent="\t"))
    (tmp_path / "image.py").write_bytes(b"\x89PNG\x00\x00binary")
    scan = scan_project(tmp_path)
    assert scan.files_sampled == 1
    assert all(v.value != "tabs" for v in scan.votes)


def test_huge_files_are_skipped_and_the_sample_is_capped(tmp_path: Path) -> None:
    write(tmp_path, "huge.py", "x = 1\n" * 50_000)
    for i in range(30):
        write(tmp_path, f"m{i:02}.py", python_module(i))
    scan = scan_project(tmp_path, max_files=10, max_file_bytes=100_000)
    assert scan.files_sampled == 10


def test_fingerprint_is_stable_until_editorconfig_changes(tmp_path: Path) -> None:
    write(tmp_path, ".editorconfig", "[*]\nindent_style = space\n")
    write(tmp_path, "a.py", python_module(0))
    first = project_fingerprint(tmp_path)
    assert project_fingerprint(tmp_path) == first
    assert scan_project(tmp_path).fingerprint == first
    write(tmp_path, ".editorconfig", "[*]\nindent_style = tab\n")
    assert project_fingerprint(tmp_path) != first


def test_fingerprint_changes_when_a_sampled_file_changes(tmp_path: Path) -> None:
    path = write(tmp_path, "a.py", python_module(0))
    first = project_fingerprint(tmp_path)
    path.write_text(python_module(0) + "extra = 1\n", encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert project_fingerprint(tmp_path) != first


def test_empty_or_missing_project_scans_to_nothing(tmp_path: Path) -> None:
    assert scan_project(tmp_path).votes == ()
    missing = scan_project(tmp_path / "nope")
    assert missing.votes == () and missing.files_sampled == 0


def test_a_large_project_is_read_from_a_sample_of_three_hundred_files(tmp_path: Path) -> None:
    """Its cost is measured in ``bench.capture`` (the scan's CPU time), not here."""
    block = python_module(0) * 40
    for i in range(400):
        write(tmp_path, f"pkg{i % 20}/mod_{i}.py", block)
    scan = scan_project(tmp_path)
    assert scan.files_sampled == 300
    assert scan.votes  # the sample is enough to observe the project's conventions
