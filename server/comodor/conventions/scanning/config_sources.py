"""Read what a project's config files say about conventions, as evidence votes.

A config file is the strongest evidence Comodor gets (weight 2.0): somebody wrote the
rule down. Each reader handles one family of files and returns votes whose detail
names the file and the setting. A file that cannot be read or parsed is skipped: a
broken config must never stop the scan.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import editorconfig

from ..votes import Vote, make_vote
from .config_merge import settle
from .editorconfig_votes import EditorconfigEvidence, editorconfig_evidence
from .sampling import SourceFile

EVIDENCE_WEIGHT = 2.0
JS_LANGUAGES = ("javascript", "typescript")
PRETTIER_FILES = (
    ".prettierrc",
    ".prettierrc.json",
    ".prettierrc.json5",
    ".prettierrc.yaml",
    ".prettierrc.yml",
    ".prettierrc.toml",
    ".prettierrc.js",
    ".prettierrc.cjs",
    ".prettierrc.mjs",
    "prettier.config.js",
    "prettier.config.cjs",
    "prettier.config.mjs",
)
ESLINT_FILES = (
    ".eslintrc",
    ".eslintrc.json",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.yml",
    ".eslintrc.yaml",
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
)
CONFIG_FILES = (
    ".editorconfig",
    "pyproject.toml",
    "ruff.toml",
    ".ruff.toml",
    "package.json",
    ".gitignore",
    *PRETTIER_FILES,
    *ESLINT_FILES,
)
"""Root files whose content the project fingerprint hashes."""

_PARSE_ERRORS = (
    OSError,
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    RecursionError,
    editorconfig.EditorConfigError,
)
_LOOSE_SETTING = re.compile(
    r"""["']?(\w+)["']?\s*[:=]\s*(true|false|\d+|"[^"\n]*"|'[^'\n]*'|[A-Za-z][\w-]*)""",
    re.IGNORECASE,
)
_SEVERITY = r"""["']?(?:error|warn|2|1)["']?"""
_RULE = r"""["']?(?:@stylistic/(?:js/|ts/)?)?{name}["']?\s*:\s*"""
_ESLINT_LIST = {
    name: re.compile(_RULE.format(name=re.escape(name)) + rf"""\[\s*{_SEVERITY}\s*,\s*{value}""")
    for name, value in (
        ("quotes", r"""["']?(single|double)["']?"""),
        ("semi", r"""["']?(always|never)["']?"""),
        ("comma-dangle", r"""["']?(always-multiline|always|never|only-multiline)["']?"""),
        ("indent", r"""(\d+|["']tab["'])"""),
    )
}
_ESLINT_SEMI_DEFAULT = re.compile(_RULE.format(name="semi") + rf"{_SEVERITY}\s*[,}}\n]")

Reader = Callable[[Path, str], list[Vote]]


def _evidence(key: str, value: str, language: str | None, detail: str) -> Vote:
    return make_vote(
        key, value, kind="evidence", language=language, weight=EVIDENCE_WEIGHT, detail=detail
    )


def _for_js(key: str, value: str, detail: str) -> list[Vote]:
    return [_evidence(key, value, lang, detail) for lang in JS_LANGUAGES]


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --- pyproject.toml / ruff.toml ---------------------------------------------------------


def _table(data: Mapping[str, Any], *path: str) -> dict[str, Any] | None:
    node: Any = data
    for part in path:
        if not isinstance(node, dict) or not isinstance(node.get(part), dict):
            return None
        node = node[part]
    return node if isinstance(node, dict) else None


def _codes(value: Any) -> list[str]:
    return [str(c) for c in value] if isinstance(value, list) else []


def _rule_enabled(code: str, select: list[str], ignore: list[str]) -> bool:
    chosen = any(s == "ALL" or code.startswith(s) for s in select)
    return chosen and not any(code.startswith(i) for i in ignore)


def _ruff_votes(ruff: Mapping[str, Any], name: str) -> list[Vote]:
    votes: list[Vote] = []
    length = ruff.get("line-length")
    if isinstance(length, int) and not isinstance(length, bool):
        votes.append(
            _evidence("line_length", str(length), "python", f"{name}: ruff line-length = {length}")
        )
    width = ruff.get("indent-width")
    if width in (2, 4, 8):
        votes.append(
            _evidence("indent.width", str(width), "python", f"{name}: ruff indent-width = {width}")
        )
    fmt = _table(ruff, "format")
    if fmt is not None:
        quote = fmt.get("quote-style", "double")
        if quote in ("single", "double"):
            said = "" if "quote-style" in fmt else " (ruff format's default)"
            votes.append(
                _evidence(
                    "quotes.style",
                    quote,
                    "python",
                    f"{name}: ruff format quote-style = {quote}{said}",
                )
            )
        indent = fmt.get("indent-style")
        if indent in ("space", "tab"):
            votes.append(
                _evidence(
                    "indent.style",
                    "spaces" if indent == "space" else "tabs",
                    "python",
                    f"{name}: ruff format indent-style = {indent}",
                )
            )
    lint = _table(ruff, "lint") or {}
    select = _codes(lint.get("select", ruff.get("select"))) + _codes(
        lint.get("extend-select", ruff.get("extend-select"))
    )
    ignore = _codes(lint.get("ignore", ruff.get("ignore")))
    for code, key, value in (
        ("ANN201", "python.return_annotations", "added"),
        ("T201", "python.logging", "logging"),
        ("UP032", "python.string_format", "fstring"),
        ("COM812", "trailing_commas", "always"),
    ):
        if _rule_enabled(code, select, ignore):
            votes.append(
                _evidence(key, value, "python", f"{name}: ruff lint rule {code} is selected")
            )
    return votes


def _pyproject_votes(data: Mapping[str, Any]) -> list[Vote]:
    name = "pyproject.toml"
    votes: list[Vote] = []
    ruff = _table(data, "tool", "ruff")
    if ruff is not None:
        votes += _ruff_votes(ruff, name)
    black = _table(data, "tool", "black")
    if black is not None:
        length = black.get("line-length")
        if isinstance(length, int) and not isinstance(length, bool):
            votes.append(
                _evidence(
                    "line_length", str(length), "python", f"{name}: black line-length = {length}"
                )
            )
        if not black.get("skip-string-normalization", False):
            votes.append(
                _evidence(
                    "quotes.style",
                    "double",
                    "python",
                    f"{name}: [tool.black] normalizes strings to double quotes",
                )
            )
        if not black.get("skip-magic-trailing-comma", False):
            votes.append(
                _evidence(
                    "trailing_commas",
                    "always",
                    "python",
                    f"{name}: [tool.black] adds trailing commas when it splits",
                )
            )
    isort = _table(data, "tool", "isort")
    if isort is not None and (
        isort.get("profile") == "black" or isort.get("include_trailing_comma") is True
    ):
        setting = (
            "profile = black"
            if isort.get("profile") == "black"
            else "include_trailing_comma = true"
        )
        votes.append(_evidence("trailing_commas", "always", "python", f"{name}: isort {setting}"))
    mypy = _table(data, "tool", "mypy")
    if mypy is not None:
        for setting in ("strict", "disallow_untyped_defs", "disallow_incomplete_defs"):
            if mypy.get(setting) is True:
                votes.append(
                    _evidence(
                        "python.return_annotations",
                        "added",
                        "python",
                        f"{name}: mypy {setting} = true",
                    )
                )
                break
    if _table(data, "tool", "pytest", "ini_options") is not None:
        votes.append(
            _evidence("tests.runner", "pytest", "python", f"{name}: [tool.pytest.ini_options]")
        )
    return votes


def pyproject_votes(root: Path, name: str) -> list[Vote]:
    """Evidence from pyproject.toml: ruff, black, isort, mypy and pytest settings."""
    return _pyproject_votes(tomllib.loads(_read(root / name)))


def ruff_toml_votes(root: Path, name: str) -> list[Vote]:
    """Evidence from a standalone ruff.toml, whose top level is [tool.ruff]."""
    return _ruff_votes(tomllib.loads(_read(root / name)), name)


# --- prettier ---------------------------------------------------------------------------


def _loose_settings(text: str) -> dict[str, Any]:
    """Read ``key: value`` pairs from YAML, JSON5 or a JS module, good enough for flags."""
    settings: dict[str, Any] = {}
    for key, raw in _LOOSE_SETTING.findall(text):
        low = raw.lower()
        value: Any = low == "true" if low in ("true", "false") else raw.strip("'\"")
        settings.setdefault(
            key, int(value) if isinstance(value, str) and value.isdigit() else value
        )
    return settings


def _prettier_settings(options: Mapping[str, Any], source: str) -> list[Vote]:
    votes: list[Vote] = []
    said = f"{source}: prettier"
    single, semi, tabs = options.get("singleQuote"), options.get("semi"), options.get("useTabs")
    if isinstance(single, bool):
        votes += _for_js(
            "quotes.style",
            "single" if single else "double",
            f"{said} singleQuote = {str(single).lower()}",
        )
    if isinstance(semi, bool):
        votes += _for_js(
            "js.semicolons", "always" if semi else "never", f"{said} semi = {str(semi).lower()}"
        )
    if isinstance(tabs, bool):
        votes += _for_js(
            "indent.style", "tabs" if tabs else "spaces", f"{said} useTabs = {str(tabs).lower()}"
        )
    width = options.get("tabWidth")
    if width in (2, 4, 8) and tabs is not True:
        votes += _for_js("indent.width", str(width), f"{said} tabWidth = {width}")
    comma = options.get("trailingComma")
    if comma in ("none", "es5", "all"):
        votes += _for_js(
            "trailing_commas",
            "never" if comma == "none" else "always",
            f"{said} trailingComma = {comma}",
        )
    length = options.get("printWidth")
    if isinstance(length, int) and not isinstance(length, bool):
        votes += _for_js("line_length", str(length), f"{said} printWidth = {length}")
    return votes


def prettier_votes(root: Path, name: str) -> list[Vote]:
    """Evidence from a .prettierrc* or prettier.config.* file."""
    text = _read(root / name)
    options: Any
    if name.endswith(".toml"):
        options = tomllib.loads(text)
    elif name.endswith(".json") or (name == ".prettierrc" and text.lstrip().startswith("{")):
        options = json.loads(text)
    else:
        options = _loose_settings(text)
    return _prettier_settings(options, name) if isinstance(options, dict) else []


# --- eslint -----------------------------------------------------------------------------


def _eslint_rules(text: str, source: str) -> list[Vote]:
    votes: list[Vote] = []
    if m := _ESLINT_LIST["quotes"].search(text):
        votes += _for_js("quotes.style", m.group(1), f"{source}: eslint quotes = {m.group(1)}")
    if m := _ESLINT_LIST["semi"].search(text):
        votes += _for_js("js.semicolons", m.group(1), f"{source}: eslint semi = {m.group(1)}")
    elif _ESLINT_SEMI_DEFAULT.search(text):
        votes += _for_js("js.semicolons", "always", f"{source}: eslint semi is on")
    if m := _ESLINT_LIST["comma-dangle"].search(text):
        value = "never" if m.group(1) == "never" else "always"
        votes += _for_js("trailing_commas", value, f"{source}: eslint comma-dangle = {m.group(1)}")
    if m := _ESLINT_LIST["indent"].search(text):
        size = m.group(1).strip("'\"")
        if size == "tab":
            votes += _for_js("indent.style", "tabs", f"{source}: eslint indent = tab")
        elif size in ("2", "4", "8"):
            votes += _for_js("indent.width", size, f"{source}: eslint indent = {size}")
    return votes


def eslint_votes(root: Path, name: str) -> list[Vote]:
    """Evidence from an ESLint config, when its rules are written out plainly."""
    return _eslint_rules(_read(root / name), name)


# --- package.json -----------------------------------------------------------------------


def package_json_votes(root: Path, name: str) -> list[Vote]:
    """Evidence from package.json: its prettier and eslintConfig keys and its test runner."""
    data = json.loads(_read(root / name))
    if not isinstance(data, dict):
        return []
    votes: list[Vote] = []
    prettier = data.get("prettier")
    if isinstance(prettier, dict):
        votes += _prettier_settings(prettier, name)
    eslint = data.get("eslintConfig")
    if isinstance(eslint, dict):
        votes += _eslint_rules(json.dumps(eslint), f"{name} eslintConfig")
    scripts = data.get("scripts")
    test = scripts.get("test") if isinstance(scripts, dict) else None
    deps = {
        dep
        for field in ("devDependencies", "dependencies")
        if isinstance(data.get(field), dict)
        for dep in data[field]
    }
    for runner in ("vitest", "jest"):
        if isinstance(test, str) and re.search(rf"\b{runner}\b", test):
            votes.append(
                _evidence("tests.runner", runner, None, f"{name}: scripts.test runs {runner}")
            )
            break
        if runner in deps and not isinstance(test, str):
            votes.append(
                _evidence("tests.runner", runner, None, f"{name}: {runner} is a dependency")
            )
            break
    return votes


READERS: tuple[tuple[str, Reader], ...] = (
    ("pyproject.toml", pyproject_votes),
    ("ruff.toml", ruff_toml_votes),
    (".ruff.toml", ruff_toml_votes),
    ("package.json", package_json_votes),
    *((name, prettier_votes) for name in PRETTIER_FILES),
    *((name, eslint_votes) for name in ESLINT_FILES),
)


def config_votes(root: Path, files: Sequence[SourceFile]) -> list[Vote]:
    """Evidence from every config file at ``root``, settled into one rule per dimension.

    ``files`` are the sampled source files: ``.editorconfig`` is applied to each (see
    :mod:`~comodor.conventions.scanning.editorconfig_votes`), and their languages are the ones a
    catch-all setting is cast for when some language differs (see
    :func:`~comodor.conventions.scanning.config_merge.settle`). A file that will not parse is
    skipped.
    """
    try:
        editorconfig = editorconfig_evidence(root, files)
    except _PARSE_ERRORS:
        editorconfig = EditorconfigEvidence((), frozenset())
    votes = list(editorconfig.votes)
    for name, reader in READERS:
        if not (root / name).is_file():
            continue
        try:
            votes.extend((vote, vote.language is not None) for vote in reader(root, name))
        except _PARSE_ERRORS:
            continue
    languages = {source.language for source in files}
    return settle(votes, languages, editorconfig.opted_out)
