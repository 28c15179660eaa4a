"""Typed settings, merged from ``initializationOptions`` and workspace configuration.

The protocol fixes the shape (``learning``, ``reflect``, ``watch``, ``sync``,
``diagnostics`` and ``brainPath``, camelCase on the wire). Everything downstream reads these attrs
classes, never raw dictionaries, so a typo in a key is a type error here rather
than a silently ignored option somewhere deep in the engine.

Merging is field by field: a pulled workspace value overrides the
``initializationOptions`` value for that field only. A value of the wrong type is
reported and ignored (the previous value stays), because a bad setting in a
user's ``settings.json`` must never take the server down.
"""

from __future__ import annotations

import json
from typing import Any

import attrs


@attrs.frozen
class LearningSettings:
    """How the brain learns and recalls."""

    enabled: bool = True
    top_k: int = attrs.field(default=6, validator=attrs.validators.in_(range(1, 51)))
    """How many lessons recall returns at most (pinned ones included)."""
    max_playbook_tokens: int = attrs.field(
        default=800, validator=attrs.validators.in_(range(50, 20_001))
    )
    rules_tokens: int = attrs.field(default=300, validator=attrs.validators.in_(range(0, 10_001)))
    """The house-rules block has its own budget, so lessons can never crowd rules out."""
    half_life_days: float = attrs.field(default=45.0, validator=attrs.validators.gt(0))
    min_confidence: float = attrs.field(
        default=0.15,
        validator=attrs.validators.and_(attrs.validators.ge(0), attrs.validators.le(1)),
    )
    share_scope: str = attrs.field(
        default="project", validator=attrs.validators.in_(("project", "global"))
    )
    corrections: bool = True
    rules: bool = True
    announce: bool = True
    prefetch: bool = True
    prefetch_delay_ms: int = attrs.field(
        default=150, validator=attrs.validators.in_(range(0, 60_001))
    )
    correction_window_minutes: float = attrs.field(default=120.0, validator=attrs.validators.gt(0))
    holdout_rate: float = attrs.field(
        default=0.0,
        validator=attrs.validators.and_(attrs.validators.ge(0.0), attrs.validators.le(0.5)),
    )
    """Share of tasks begun without memory, to measure what memory changes (0 … 0.5).

    Those tasks get no lessons and no rules, so they may need corrections memory
    would have prevented: the price of knowing whether it helps. Off by default.
    """
    archive_after_days: int = attrs.field(
        default=0, validator=attrs.validators.in_(range(0, 36_501))
    )
    """Team brain retention: archive team lessons nobody recalled for this many days.

    0 (the default) is off. Archived lessons are counted by ``comodor-lsp team
    status``, restorable with ``comodor-lsp team restore`` and never deleted
    (:mod:`comodor.teamdb.retention`). The local brain file is not affected.
    """


@attrs.frozen
class ReflectSettings:
    """The optional model endpoint used to reflect on finished tasks. Off by default."""

    enabled: bool = False
    endpoint: str = ""
    model: str = ""
    api_key_env: str = ""
    """The *name* of the environment variable holding the key; the key itself is never stored."""
    timeout_s: float = attrs.field(default=60.0, validator=attrs.validators.gt(0))

    @property
    def active(self) -> bool:
        """Reflection runs only when enabled *and* pointed at an endpoint and a model."""
        return self.enabled and bool(self.endpoint.strip()) and bool(self.model.strip())


@attrs.frozen
class WatchSettings:
    """The workspace watcher that notices agent writes, corrections and undos."""

    enabled: bool = True
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = attrs.field(default=2_000_000, validator=attrs.validators.gt(0))


@attrs.frozen
class SyncSettings:
    """Instruction files (``AGENTS.md``…) that carry a managed block of house rules."""

    targets: tuple[str, ...] = ()


DIAGNOSTIC_SEVERITIES = ("error", "warning", "information", "hint", "off")


@attrs.frozen
class DiagnosticsSettings:
    """House rules in the editor: where open documents break them."""

    severity: str = attrs.field(
        default="information", validator=attrs.validators.in_(DIAGNOSTIC_SEVERITIES)
    )
    """How places that break a rule are shown; ``off`` shows none."""
    config_rules: bool = False
    """Also flag rules whose only evidence is a project config file (a formatter that
    already enforces them would report the same places twice)."""


@attrs.frozen
class BrainSettings:
    """Where the shared brain is: a team's PostgreSQL database, or none (the local file)."""

    url: str = ""
    """``postgresql://user@host/db`` (``COMODOR_BRAIN_URL``); the password comes from
    ``PGPASSWORD`` or ``~/.pgpass``, never from here. Empty: the local SQLite file only."""


@attrs.frozen
class Settings:
    """Everything configurable, with the protocol's defaults."""

    brain_path: str = ""
    brain: BrainSettings = BrainSettings()
    learning: LearningSettings = LearningSettings()
    reflect: ReflectSettings = ReflectSettings()
    watch: WatchSettings = WatchSettings()
    sync: SyncSettings = SyncSettings()
    diagnostics: DiagnosticsSettings = DiagnosticsSettings()


def _snake(name: str) -> str:
    out = []
    for char in name:
        if char.isupper():
            out.append("_")
            out.append(char.lower())
        else:
            out.append(char)
    return "".join(out)


_SECTIONS: dict[str, type[Any]] = {
    "brain": BrainSettings,
    "learning": LearningSettings,
    "reflect": ReflectSettings,
    "watch": WatchSettings,
    "sync": SyncSettings,
    "diagnostics": DiagnosticsSettings,
}


_KINDS: dict[type[Any], str] = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
    tuple: "a list of strings",
}


def _bounds(validator: Any) -> tuple[list[str], list[str]]:
    """What a field's attrs validator allows, as (one-of choices, numeric limits) in words.

    Read from the validators themselves (``in_``, ``gt``/``ge``/``le``, ``and_``), so the
    message a user reads can never drift from what is actually checked.
    """
    choices: list[str] = []
    limits: list[str] = []
    for part in getattr(validator, "_validators", None) or ([validator] if validator else []):
        options = getattr(part, "options", None)
        if isinstance(options, range):
            limits.append(f"from {options.start} to {options.stop - 1}")
        elif isinstance(options, (tuple, list, frozenset, set)):
            choices.extend(str(option) for option in options)
        op, bound = getattr(part, "compare_op", None), getattr(part, "bound", None)
        words = {">": "above", ">=": "at least", "<": "below", "<=": "at most"}
        if op in words:
            limits.append(
                f"{words[op]} {bound:g}" if isinstance(bound, float) else f"{words[op]} {bound}"
            )
    if len(limits) == 2 and limits[0].startswith("at least ") and limits[1].startswith("at most "):
        limits = [
            f"from {limits[0].removeprefix('at least ')} to {limits[1].removeprefix('at most ')}"
        ]
    return choices, limits


def allowed(section_type: type[Any], name: str) -> str:
    """What setting ``name`` of ``section_type`` accepts, e.g. "a whole number from 1 to 50"."""
    field = attrs.fields_dict(section_type)[name]
    choices, limits = _bounds(field.validator)
    if choices:
        return "one of " + ", ".join(f'"{choice}"' for choice in choices)
    kind = _KINDS.get(type(field.default), type(field.default).__name__)
    return " ".join([kind, " and ".join(limits)]) if limits else kind


def shown(value: Any) -> str:
    """A setting's value as the user wrote it (JSON), cut short if long."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _coerce(value: Any, default: Any) -> Any:
    """Return ``value`` converted to the type of ``default``, or raise ``TypeError``."""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, bool) and isinstance(value, bool):
        return value
    if isinstance(default, int) and not isinstance(default, bool) and is_number:
        if isinstance(value, int):
            return value
    elif isinstance(default, float) and is_number:
        return float(value)
    elif isinstance(default, str) and isinstance(value, str):
        return value
    elif (
        isinstance(default, tuple)
        and isinstance(value, (list, tuple))
        and all(isinstance(item, str) for item in value)
    ):
        return tuple(value)
    raise TypeError(f"expected {type(default).__name__}, got {type(value).__name__}")


def merge(base: Settings, raw: Any, problems: list[str] | None = None, where: str = "") -> Settings:
    """Overlay a camelCase settings object (as sent by a client) on ``base``.

    Unknown keys are ignored (clients may send more than we know). A value of the
    wrong type, or out of range, is skipped and described in ``problems`` in one
    plain sentence: the setting's name, the value and what is allowed (``where``,
    e.g. " in /home/dora/.config/comodor/settings.json", says which file).
    """
    problems = problems if problems is not None else []
    if raw is None:
        return base
    if not isinstance(raw, dict):
        problems.append(f"the settings{where} are {shown(raw)}, but must be a JSON object")
        return base
    result = base
    brain_path = raw.get("brainPath")
    if brain_path is not None:
        if isinstance(brain_path, str):
            result = attrs.evolve(result, brain_path=brain_path)
        else:
            problems.append(
                f"brainPath: {shown(brain_path)} is not allowed{where}; it must be a string"
            )
    for section_name, section_type in _SECTIONS.items():
        section_raw = raw.get(section_name)
        if section_raw is None:
            continue
        if not isinstance(section_raw, dict):
            problems.append(
                f"{section_name}: {shown(section_raw)} is not allowed{where}; it must be an "
                "object of settings"
            )
            continue
        section = getattr(result, section_name)
        names = {field.name for field in attrs.fields(section_type)}
        for key, value in section_raw.items():
            name = _snake(key)
            if name not in names or value is None:
                continue
            try:
                coerced = _coerce(value, getattr(section, name))
                section = attrs.evolve(section, **{name: coerced})
            except (TypeError, ValueError):
                problems.append(
                    f"{section_name}.{key}: {shown(value)} is not allowed{where}; it must be "
                    f"{allowed(section_type, name)}"
                )
        result = attrs.evolve(result, **{section_name: section})
    return result


def restrict_to_user_level(workspace: Settings, trusted: Settings) -> Settings:
    """Keep settings that move the brain, reach the network or name files to write.

    A repository's ``.vscode/settings.json`` is written by whoever wrote the
    repository. It must not be able to point the brain somewhere else, turn on
    a network endpoint that would receive the user's code, or choose which files
    Comodor writes (``sync.targets`` naming ``.git/config`` or a virtualenv's
    ``activate``), nor send the project's memory to a database of its choosing
    (``brain.url``).
    """
    return attrs.evolve(
        workspace,
        brain_path=trusted.brain_path,
        brain=trusted.brain,
        reflect=trusted.reflect,
        sync=trusted.sync,
    )
