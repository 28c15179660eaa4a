"""Which language a path holds, by extension: rules are kept per language."""

from __future__ import annotations

import os

_BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".rb": "ruby",
    ".php": "php",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".cs": "csharp",
    ".css": "css",
    ".scss": "scss",
    ".less": "less",
    ".html": "html",
    ".htm": "html",
    ".vue": "vue",
    ".svelte": "svelte",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".lua": "lua",
    ".sql": "sql",
    ".mk": "makefile",
}
_BY_NAME: dict[str, str] = {"makefile": "makefile", "gnumakefile": "makefile"}
"""Files whose name, not extension, says the language (a ``Makefile`` indents with tabs)."""

EXTENSION_OF: dict[str, str] = {}
for _ext, _lang in _BY_EXTENSION.items():
    EXTENSION_OF.setdefault(_lang, _ext)

QUOTE_LANGUAGES = frozenset({"python", "javascript", "typescript"})
"""Languages where single and double quotes mean the same thing, so the choice is style."""

JS_LIKE = frozenset({"javascript", "typescript"})

CODE_LANGUAGES = (frozenset(_BY_EXTENSION.values()) | frozenset(_BY_NAME.values())) - {
    "json",
    "markdown",
    "yaml",
    "toml",
    "html",
    "sql",
}
"""Languages whose files the project scan samples to observe conventions."""


def language_of(path: str) -> str | None:
    """Return the language of ``path`` by its name or extension, or None when we do not know it."""
    name = os.path.basename(path).lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    _, ext = os.path.splitext(name)
    return _BY_EXTENSION.get(ext)
