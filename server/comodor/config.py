"""One settings loader for every door: the editor, ``mcp``, ``call``, ``sync``, ``doctor``.

Every door must open the same brain and honour the same network and team
settings, so they all resolve settings here, in one order (later wins, field by
field):

1. the protocol's defaults;
2. the **user-level settings file**: ``$COMODOR_CONFIG`` if set, else
   ``$COMODOR_HOME/settings.json`` when ``COMODOR_HOME`` is set, else
   ``settings.json`` in the platform's user config folder
   (``~/.config/comodor/settings.json`` on Linux). Same camelCase shape as
   ``initializationOptions``;
3. ``initializationOptions`` from the editor (the editor's user-level settings);
4. workspace settings (``workspace/configuration`` pulls, ``.vscode/settings.json``
   for the command line) — but never for what is trusted to users only: the
   brain's location, the network (``reflect.*``) and the files Comodor writes
   (``sync.targets``), nor the team database (``brain.url``), see
   :func:`comodor.settings.restrict_to_user_level`.

``COMODOR_BRAIN_URL``, when set, is read right after the user-level file (it wins
over the file; ``initializationOptions`` win over it): a database URL belongs to the
user, like the file.

A problem in any layer (a value of the wrong type, a file that is not JSON) is
described in one plain sentence (the setting, its value, what is allowed) and
skipped; the layer below stands. Each door says the same sentence: the editor
once as a message (:func:`ignored`), ``doctor`` as a fail line, and every other
command-line door refuses to run with it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs
import platformdirs

from .settings import Settings, merge, restrict_to_user_level, shown

SETTINGS_FILE = "settings.json"


def user_settings_path() -> Path:
    """Where the user-level settings file is (it need not exist)."""
    explicit = os.environ.get("COMODOR_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    home = os.environ.get("COMODOR_HOME")
    if home:
        return Path(home).expanduser() / SETTINGS_FILE
    return Path(platformdirs.user_config_dir("comodor", appauthor=False)) / SETTINGS_FILE


def _read_json(path: Path, problems: list[str]) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):  # no file there (a home not made yet)
        return None
    except OSError as error:  # a folder where the file should be, no permission
        problems.append(f"{path} cannot be read ({error.strerror or error})")
        return None
    except ValueError as error:
        problems.append(f"{path} is not plain JSON ({error})")
        return None


@attrs.frozen
class Loaded:
    """Settings resolved for one door, and what was wrong on the way."""

    settings: Settings
    """Everything, workspace layer included."""
    trusted: Settings
    """Without the workspace layer: the only source of brain, network and sync settings."""
    problems: tuple[str, ...] = ()


def user_settings(problems: list[str] | None = None) -> Settings:
    """Defaults overlaid with the user-level settings file."""
    problems = problems if problems is not None else []
    path = user_settings_path()
    raw = _read_json(path, problems)
    if raw is not None and not isinstance(raw, dict):
        problems.append(f"{path} holds {shown(raw)}, but must hold a JSON object")
        raw = None
    settings = merge(Settings(), raw, problems, where=f" in {path}")
    url = os.environ.get("COMODOR_BRAIN_URL", "").strip()
    if url:
        settings = attrs.evolve(settings, brain=attrs.evolve(settings.brain, url=url))
    return settings


def load(
    init_options: Any = None,
    workspace_layer: Any = None,
    *,
    base: Settings | None = None,
    where: str = "",
) -> Loaded:
    """Resolve settings: defaults ← user file ← ``init_options`` ← ``workspace_layer``.

    ``base`` replaces the first two layers when a host already read them (a
    configuration pull re-resolves on top of what ``initialize`` trusted); ``where``
    names the workspace layer's file in its problems.
    """
    problems: list[str] = []
    trusted = base if base is not None else user_settings(problems)
    trusted = merge(trusted, init_options, problems)
    settings = trusted
    if workspace_layer is not None:
        merged = merge(trusted, workspace_layer, problems, where)
        settings = restrict_to_user_level(merged, trusted)
    return Loaded(settings, trusted, tuple(problems))


def workspace_file_layer(workspace: Path, problems: list[str] | None = None) -> Any:
    """The ``comodor`` section of ``<workspace>/.vscode/settings.json``, for command-line doors.

    Best effort: VS Code allows comments and trailing commas there, which plain
    JSON does not; such a file is skipped (and said so) rather than half-parsed.
    Both shapes VS Code writes are read: ``{"comodor": {...}}`` and flat keys
    (``"comodor.learning.topK": 4``).
    """
    problems = problems if problems is not None else []
    raw = _read_json(workspace / ".vscode" / "settings.json", problems)
    if not isinstance(raw, dict):
        return None
    section: dict[str, Any] = dict(raw.get("comodor") or {})
    for key, value in raw.items():
        parts = key.split(".")
        if parts[0] != "comodor" or len(parts) < 2:
            continue
        node = section
        for part in parts[1:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break
            node = child
        else:
            node[parts[-1]] = value
    return section


def for_workspace(workspace: Path | None) -> Loaded:
    """What a command-line door sees in ``workspace``: user file, then the workspace file."""
    problems: list[str] = []
    layer = workspace_file_layer(workspace, problems) if workspace is not None else None
    where = f" in {workspace / '.vscode' / 'settings.json'}" if workspace is not None else ""
    loaded = load(workspace_layer=layer, where=where)
    return attrs.evolve(loaded, problems=(*problems, *loaded.problems))


def ignored(problem: str) -> str:
    """What a long-running door (the editor, MCP, doctor) says about a settings problem."""
    return f"Comodor settings: {problem}; it is ignored until it is fixed."
