"""Small, varied Python and TypeScript files, rendered in any combination of conventions.

The learning benchmark needs an agent that writes realistic code and a user who
rewrites it to their taste. Both are the same program rendered twice: a
:class:`FileSpec` (functions, literals, calls, comments, with random names and
numbers) is drawn once from a seeded RNG, then rendered in the agent's
:class:`Style` and again in the user's. Re-rendering with one field changed is
exactly the per-convention transform a tidy user applies by hand, and it cannot
drift: nothing but that convention differs between the two texts.

Logic-only edits are mutations of the spec (a changed condition, a renamed local,
a new statement) rendered in the *same* style, so they carry no convention at all.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import attrs

NOUNS = (
    "user order invoice record ticket report session payment account event item "
    "message batch job upload address profile device".split()
)
VERBS = "load build fetch parse count format collect render sync resolve check".split()
ADJECTIVES = "active pending recent failed remote cached daily open".split()
LOCALS = "rows matches found chosen result values entries picked".split()
WORDS = "fast safe eager lazy strict plain full quick".split()
MODULES = "fs path os util events crypto".split()


@attrs.frozen
class Style:
    """One value per convention dimension; the names match ``comodor.conventions.votes``."""

    py_quotes: str = "double"
    py_format: str = "format"
    py_annotations: str = "removed"
    py_logging: str = "print"
    py_naming: str = "camelCase"
    py_variables: str = "camelCase"
    py_imports: str = "module"
    ts_semicolons: str = "always"
    ts_quotes: str = "double"
    ts_trailing: str = "never"


@attrs.frozen
class Convention:
    """A profile entry: which Style field, which rule (key, language), the wanted value."""

    name: str
    field: str
    key: str
    language: str
    value: str
    other: str


PROFILE: tuple[Convention, ...] = (
    Convention("python quotes", "py_quotes", "quotes.style", "python", "single", "double"),
    Convention(
        "python f-strings", "py_format", "python.string_format", "python", "fstring", "format"
    ),
    Convention(
        "python return annotations",
        "py_annotations",
        "python.return_annotations",
        "python",
        "added",
        "removed",
    ),
    Convention("python logging", "py_logging", "python.logging", "python", "logging", "print"),
    Convention(
        "python snake_case functions",
        "py_naming",
        "naming.functions",
        "python",
        "snake_case",
        "camelCase",
    ),
    Convention(
        "python snake_case variables",
        "py_variables",
        "naming.variables",
        "python",
        "snake_case",
        "camelCase",
    ),
    Convention(
        "python from-imports",
        "py_imports",
        "python.import_style",
        "python",
        "from",
        "module",
    ),
    Convention(
        "typescript no semicolons",
        "ts_semicolons",
        "js.semicolons",
        "typescript",
        "never",
        "always",
    ),
    Convention("typescript quotes", "ts_quotes", "quotes.style", "typescript", "single", "double"),
    Convention(
        "typescript trailing commas",
        "ts_trailing",
        "trailing_commas",
        "typescript",
        "always",
        "never",
    ),
)
"""The simulated user's hidden preferences: 10 conventions across Python and TypeScript."""


def style_of(values: dict[str, str], base: Style | None = None) -> Style:
    """A Style with the given fields set (``{field: value}``), the rest from ``base``."""
    return attrs.evolve(base or Style(), **values)


# -- the program ---------------------------------------------------------------- #


@attrs.define
class Part:
    """One function (or literal) of a file, with the knobs logic edits turn."""

    kind: str
    words: list[str]
    noun: str
    local: str
    n: int
    m: int
    word: str
    guard: bool = False
    compare: str = ">"


@attrs.define
class FileSpec:
    """A whole file before rendering: its language, header data and parts."""

    language: str
    name: str
    parts: list[Part]
    constant: str
    word: str
    module: str
    comment: bool


def _part(rng: random.Random, kind: str) -> Part:
    adjective = rng.choice(ADJECTIVES)
    noun = rng.choice(NOUNS)
    return Part(
        kind=kind,
        words=[rng.choice(VERBS), adjective, noun + "s"],
        noun=noun,
        local=rng.choice(LOCALS),
        n=rng.randint(2, 40),
        m=rng.randint(2, 9),
        word=rng.choice(WORDS),
    )


PY_KINDS = ("counter", "labeler", "config", "runner", "reader")
TS_KINDS = ("config", "list", "trimmer", "caller")


def new_spec(rng: random.Random, language: str, index: int) -> FileSpec:
    """Draw a file: 3 or 4 parts of distinct kinds, in random order."""
    kinds = PY_KINDS if language == "python" else TS_KINDS
    chosen = rng.sample(kinds, k=min(len(kinds), rng.randint(3, 4)))
    noun = rng.choice(NOUNS)
    ext = "py" if language == "python" else "ts"
    return FileSpec(
        language=language,
        name=f"src/{noun}_{rng.choice(VERBS)}_{index}.{ext}",
        parts=[_part(rng, kind) for kind in chosen],
        constant=f"DEFAULT_{noun.upper()}",
        word=rng.choice(WORDS),
        module=rng.choice(MODULES),
        comment=rng.random() < 0.7,
    )


LOGIC_EDITS = ("condition", "rename_local", "new_statement", "threshold")


def logic_edit(spec: FileSpec, rng: random.Random, style: Style) -> tuple[FileSpec, str]:
    """A copy of ``spec`` with one logic change and no convention change; and its name.

    Not every knob shows in every part, so edits are drawn until the rendered text
    (in the agent's ``style``) actually differs.
    """
    original = render(spec, style)
    for _ in range(50):
        copy = attrs.evolve(spec, parts=[attrs.evolve(part) for part in spec.parts])
        part = rng.choice(copy.parts)
        edit = rng.choice(LOGIC_EDITS)
        if edit == "condition":
            part.compare = ">=" if part.compare == ">" else ">"
        elif edit == "rename_local":
            part.local = next(name for name in LOCALS if name != part.local) + "_list"
        elif edit == "new_statement":
            part.guard = not part.guard
        else:
            part.n += rng.randint(1, 5)
        if render(copy, style) != original:
            return copy, edit
    raise RuntimeError("no logic edit changes this file")


# -- rendering helpers ---------------------------------------------------------- #


def _q(style: Style, language: str) -> str:
    value = style.py_quotes if language == "python" else style.ts_quotes
    return "'" if value == "single" else '"'


def _function_name(part: Part, style: Style) -> str:
    if style.py_naming == "snake_case":
        return "_".join(part.words)
    return part.words[0] + "".join(word.capitalize() for word in part.words[1:])


def _py_fmt(style: Style, message: str, args: list[str]) -> str:
    """``message`` has ``{}`` holes for ``args``: an f-string or a str.format() call."""
    q = _q(style, "python")
    if not args:
        return f"{q}{message}{q}"
    if style.py_format == "fstring":
        filled = message
        for arg in args:
            filled = filled.replace("{}", "{" + arg + "}", 1)
        return f"f{q}{filled}{q}"
    return f"{q}{message}{q}.format({', '.join(args)})"


def _py_log(style: Style, level: str, message: str, args: list[str]) -> str:
    text = _py_fmt(style, message, args)
    if style.py_logging == "logging":
        return f"logger.{level}({text})"
    return f"print({text})"


def _ret(style: Style, annotation: str) -> str:
    return f" -> {annotation}" if style.py_annotations == "added" else ""


# -- Python --------------------------------------------------------------------- #


def _py_part(part: Part, style: Style) -> list[str]:
    q = _q(style, "python")
    name = _function_name(part, style)
    guard = ["    if not items:", "        return 0"] if part.guard else []
    if part.kind == "counter":
        return [
            f"def {name}(items){_ret(style, 'int')}:",
            f'    """Count the {part.noun}s worth reporting."""',
            *guard,
            f"    {part.local} = [item for item in items if item.size {part.compare} {part.n}]",
            "    " + _py_log(style, "info", f"Found {{}} {part.noun}s", [f"len({part.local})"]),
            f"    return len({part.local})",
        ]
    if part.kind == "labeler":
        guard = ["    if not key:", "        return prefix"] if part.guard else []
        return [
            f"def {name}(prefix, key){_ret(style, 'str')}:",
            *guard,
            f"    {part.local} = " + _py_fmt(style, "{}-{}", ["prefix", "key"]),
            f"    if len({part.local}) {part.compare} {part.n}:",
            f"        {part.local} = {part.local}[:{part.n}]",
            f"    if not {part.local}.startswith({q}{part.word}{q}):",
            f"        {part.local} = {q}{part.word}-{q} + {part.local}",
            f"    return {part.local}",
        ]
    if part.kind == "config":
        guard = ["    if retries < 0:", "        retries = 0"] if part.guard else []
        return [
            f"def {name}(retries={part.m}){_ret(style, 'dict')}:",
            f"    # Defaults for the {part.noun} client.",
            *guard,
            f"    {part.local} = {{",
            f"        {q}timeout{q}: {part.n},",
            f"        {q}mode{q}: {q}{part.word}{q},",
            f"        {q}retries{q}: retries,",
            "    }",
            f"    if retries {part.compare} {part.m}:",
            f"        {part.local}[{q}mode{q}] = {q}safe{q}",
            f"    return {part.local}",
        ]
    if part.kind == "runner":
        guard = ["    if not path:", "        return"] if part.guard else []
        return [
            f"def {name}(path, retries={part.m}){_ret(style, 'None')}:",
            *guard,
            "    for attempt in range(retries):",
            f"        if attempt {part.compare} {part.n}:",
            "            break",
            "        "
            + _py_log(style, "info", "Attempt {} of {} for {}", ["attempt + 1", "retries", "path"]),
            "    " + _py_log(style, "info", f"Done with the {part.noun}s", []),
        ]
    guard = ["    if not path:", "        return []"] if part.guard else []
    return [
        f"def {name}(path){_ret(style, 'list')}:",
        *guard,
        "    try:",
        f"        with open(path, encoding={q}utf-8{q}) as handle:",
        f"            {part.local} = handle.read().splitlines()",
        "    except OSError as error:",
        "        " + _py_log(style, "warning", "Could not read {}: {}", ["path", "error"]),
        "        return []",
        f"    return [line for line in {part.local} if len(line) {part.compare} {part.n}]",
    ]


def _py_installer(spec: FileSpec, style: Style) -> list[str]:
    """A helper in every Python file: import style, and a two-word local."""
    q = _q(style, "python")
    noun = spec.parts[0].noun
    name = _function_name(Part("", ["install", noun, "tool"], noun, "", 0, 0, ""), style)
    full = "tool_path" if style.py_variables == "snake_case" else "toolPath"
    which, copy = (
        ("which", "copy") if style.py_imports == "from" else ("shutil.which", "shutil.copy")
    )
    return [
        f"def {name}(program, target){_ret(style, 'str')}:",
        f"    found = {which}(program)",
        f"    {full} = found or {q}{q}",
        f"    if {full}:",
        f"        {copy}({full}, target)",
        f"    return {full}",
    ]


def render_python(spec: FileSpec, style: Style) -> str:
    q = _q(style, "python")
    lines = [f'"""Helpers for {spec.word} {spec.parts[0].noun} handling."""', ""]
    lines += [
        "from shutil import copy, which" if style.py_imports == "from" else "import shutil",
        "",
    ]
    if style.py_logging == "logging":
        lines += ["import logging", "", "logger = logging.getLogger(__name__)", ""]
    if spec.comment:
        lines.append("# Used when the caller gives no name.")
    lines += [f"{spec.constant} = {q}{spec.word}{q}", ""]
    for part in spec.parts:
        lines += ["", *_py_part(part, style), ""]
    lines += ["", *_py_installer(spec, style), ""]
    main = _function_name(spec.parts[0], style)
    lines += ["", f"if __name__ == {q}__main__{q}:", f"    {main}({spec.constant})", ""]
    return "\n".join(lines)


# -- TypeScript ------------------------------------------------------------------ #


def _ts_part(part: Part, style: Style) -> list[str]:
    q = _q(style, "typescript")
    s = ";" if style.ts_semicolons == "always" else ""
    c = "," if style.ts_trailing == "always" else ""
    name = part.words[0] + "".join(word.capitalize() for word in part.words[1:])
    if part.kind == "config":
        guard = [f"  if (!base) return {{}}{s}"] if part.guard else []
        return [
            f"// Defaults for the {part.noun} client.",
            f"export function {name}(base: Record<string, unknown>): Record<string, unknown> {{",
            *guard,
            f"  const {part.local} = {{",
            "    ...base,",
            f"    mode: {q}{part.word}{q},",
            f"    timeout: {part.n}{c}",
            f"  }}{s}",
            f"  return {part.local}{s}",
            "}",
        ]
    if part.kind == "list":
        guard = [f"  if (!prefix) return []{s}"] if part.guard else []
        return [
            f"export function {name}(prefix: string): string[] {{",
            *guard,
            f"  const {part.local} = [",
            f"    {q}{part.noun}{q},",
            f"    {q}{part.word}{q},",
            f"    prefix{c}",
            f"  ]{s}",
            f"  return {part.local}.filter((entry) => entry.length {part.compare} {part.m}){s}",
            "}",
        ]
    if part.kind == "trimmer":
        guard = [f"  if (!value) return {q}{q}{s}"] if part.guard else []
        return [
            f"export function {name}(value: string): string {{",
            *guard,
            f"  const {part.local} = value.trim(){s}",
            f"  if ({part.local}.length {part.compare} {part.n}) {{",
            f"    return {part.local}.slice(0, {part.n}){s}",
            "  }",
            f"  return {part.local} + {q}-{part.word}{q}{s}",
            "}",
        ]
    guard = [f"  if (id < 0) return{s}"] if part.guard else []
    return [
        f"export async function {name}(id: number): Promise<void> {{",
        *guard,
        f"  const {part.local} = await send(",
        "    id,",
        f"    {q}{part.noun}{q},",
        f"    {part.n}{c}",
        f"  ){s}",
        f"  if ({part.local}.status {part.compare} {part.m}) {{",
        f"    console.log({q}{part.noun} sent{q}){s}",
        "  }",
        "}",
    ]


def render_typescript(spec: FileSpec, style: Style) -> str:
    q = _q(style, "typescript")
    s = ";" if style.ts_semicolons == "always" else ""
    lines = [
        f"import {{ send }} from {q}./{spec.module}-client{q}{s}",
        "",
    ]
    if spec.comment:
        lines.append("// Used when the caller gives no name.")
    lines += [f"export const {spec.constant} = {q}{spec.word}{q}{s}", ""]
    for part in spec.parts:
        lines += [*_ts_part(part, style), ""]
    return "\n".join(lines)


RENDERERS: dict[str, Callable[[FileSpec, Style], str]] = {
    "python": render_python,
    "typescript": render_typescript,
}


def render(spec: FileSpec, style: Style) -> str:
    return RENDERERS[spec.language](spec, style)
