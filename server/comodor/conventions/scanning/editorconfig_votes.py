"""What ``.editorconfig`` says about the project's own files, as evidence votes.

EditorConfig applies per file: every section whose glob matches the file's path sets
its properties, later sections override earlier ones, and a ``.editorconfig`` closer
to the file overrides one further up (until a ``root = true`` file). So a probe file
per language is not enough: ``[Makefile] indent_style = tab`` only shows on a file
called ``Makefile``, ``[src/legacy/**.py]`` only on a file under that folder. This
module asks, with the ``editorconfig`` package's own glob matching, what applies to
the files the scan sampled, and which section said it, then speaks per language:

* a value every file of no particular kind gets (the catch-all ``[*]``) is a vote for
  every language (language None);
* a language whose files get another value, or get it from a section of their own
  (``[*.{ts,tsx}]``), gets a vote of its own, more specific than the catch-all;
* when a section is narrower than a language (only some of its files), the language
  gets what most of its files get, and the detail says which files differ.

Files above the workspace are not read: the project's conventions are the project's.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs
from editorconfig.exceptions import EditorConfigError
from editorconfig.ini import EditorConfigParser

from ..votes import Vote, make_vote
from .sampling import SourceFile

EVIDENCE_WEIGHT = 2.0
CONFIG_NAME = ".editorconfig"
FILES_PER_LANGUAGE = 40
"""Sampled files of one language whose sections are read (spread over the sample)."""
CATCH_ALL = frozenset({"*", "**", "/**", "**/*"})
_PROBE = "comodor-probe"


@attrs.frozen
class Setting:
    """One dimension's value for one file, and where it came from."""

    value: str
    setting: str
    """The property in words: ``indent_size = 4``."""
    section: str
    """The section glob that set it, as written: ``*.{ts,tsx}``."""
    source: str = CONFIG_NAME
    """The ``.editorconfig`` that holds the section, relative to the workspace."""

    @property
    def everywhere(self) -> bool:
        """Whether the section is the project's catch-all (``[*]`` of the root file)."""
        return self.section in CATCH_ALL and self.source == CONFIG_NAME


@attrs.frozen
class EditorconfigEvidence:
    """The votes, each marked more specific than the catch-all or not, and opt-outs."""

    votes: tuple[tuple[Vote, bool], ...]
    opted_out: frozenset[tuple[str, str]]
    """``(key, language)`` pairs a language's files turn off: tabs have no width."""


class _SectionOptions(OrderedDict[str, str]):
    """The parser's options, remembering which section set each one."""

    def __init__(self, parser: _SectionParser) -> None:
        super().__init__()
        self._parser = parser
        self.sections: dict[str, str] = {}

    def __setitem__(self, key: str, value: str) -> None:
        super().__setitem__(key, value)
        self.sections[key] = self._parser.section


class _SectionParser(EditorConfigParser):
    """The ``editorconfig`` package's parser, noting the section each option came from."""

    def __init__(self, filename: str) -> None:
        super().__init__(filename)
        self.section = ""
        self.found = _SectionOptions(self)
        self.options = self.found

    def matches_filename(self, config_filename: str, glob: str) -> bool:
        self.section = glob
        return super().matches_filename(config_filename, glob)


def properties(root: Path, path: Path) -> dict[str, tuple[str, str, str]]:
    """``option -> (value, section, config file)`` for ``path``, as EditorConfig resolves it.

    ``.editorconfig`` files from the file's folder up to ``root`` (never above), the
    closest first, stopping at a ``root = true`` file. A file that will not parse is
    skipped, like any broken config.
    """
    found: dict[str, tuple[str, str, str]] = {}
    folder = path.parent
    while True:
        config = folder / CONFIG_NAME
        if config.is_file():
            parser = _SectionParser(str(path))
            try:
                parser.read(str(config))
            except (EditorConfigError, OSError, ValueError):
                parser = _SectionParser(str(path))  # nothing from a broken file
            source = config.relative_to(root).as_posix()
            for option, value in parser.found.items():
                section = parser.found.sections[option]
                found.setdefault(option, (value.strip().lower(), section, source))
            if parser.root_file:
                break
        if folder in (root, folder.parent):
            break
        folder = folder.parent
    return found


def settings(props: Mapping[str, tuple[str, str, str]]) -> tuple[dict[str, Setting], set[str]]:
    """The catalog dimensions ``props`` sets, and those it turns off (tabs: no width)."""
    found: dict[str, Setting] = {}
    off: set[str] = set()
    style, *style_from = props.get("indent_style", ("", "", ""))
    if style in ("space", "tab"):
        value = "spaces" if style == "space" else "tabs"
        found["indent.style"] = Setting(value, f"indent_style = {style}", *style_from)
    size, *size_from = props.get("indent_size", ("", "", ""))
    if style == "tab":
        off.add("indent.width")
    elif size in ("2", "4", "8"):
        found["indent.width"] = Setting(size, f"indent_size = {size}", *size_from)
    length, *length_from = props.get("max_line_length", ("", "", ""))
    if length.isdigit():
        found["line_length"] = Setting(length, f"max_line_length = {length}", *length_from)
    return found, off


def _spread(files: Sequence[SourceFile], limit: int) -> list[SourceFile]:
    if len(files) <= limit:
        return list(files)
    step = len(files) / limit
    return [files[int(k * step)] for k in range(limit)]


def _vote(key: str, chosen: Setting, language: str | None, detail: str) -> Vote:
    return make_vote(
        key,
        chosen.value,
        kind="evidence",
        language=language,
        weight=EVIDENCE_WEIGHT,
        detail=f"{chosen.source} [{chosen.section}]: {chosen.setting} ({detail})",
    )


def editorconfig_evidence(root: Path, files: Sequence[SourceFile]) -> EditorconfigEvidence:
    """Votes from ``.editorconfig`` for the sampled ``files`` (see the module docstring)."""
    root = root.resolve()
    if not (root / CONFIG_NAME).is_file():
        return EditorconfigEvidence((), frozenset())
    generic, _ = settings(properties(root, root / _PROBE))
    votes: list[tuple[Vote, bool]] = [
        (_vote(key, chosen, None, "all files"), False) for key, chosen in sorted(generic.items())
    ]
    opted_out: set[tuple[str, str]] = set()
    by_language: dict[str, list[SourceFile]] = defaultdict(list)
    for source in files:
        by_language[source.language].append(source)
    for language, sources in sorted(by_language.items()):
        per_file = [
            settings(properties(root, root / source.rel))
            for source in _spread(sources, FILES_PER_LANGUAGE)
        ]
        total = len(per_file)
        for key in sorted({key for found, off in per_file for key in (*found, *off)}):
            if sum(key in off for _, off in per_file) * 2 > total:
                opted_out.add((key, language))
                continue
            counts = Counter(found[key] for found, _ in per_file if key in found)
            chosen, count = counts.most_common(1)[0] if counts else (None, 0)
            if chosen is None or count * 2 <= total:
                continue  # most files of this language get no single value
            specific = not chosen.everywhere
            if not specific and generic.get(key) == chosen:
                continue  # exactly the catch-all vote already cast
            detail = f"{language} files"
            others = [
                f"[{other.section}] says {other.setting} for {number} of {total}"
                for other, number in counts.most_common()
                if other != chosen
            ]
            unset = total - sum(counts.values())
            if unset:
                others.append(f"{unset} of {total} get no {key.split('.')[0]} setting")
            if others:
                detail += "; " + "; ".join(others[:2])
            votes.append((_vote(key, chosen, language, detail), specific))
    return EditorconfigEvidence(tuple(votes), frozenset(opted_out))
