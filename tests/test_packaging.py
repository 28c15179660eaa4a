"""The package installs as ``comodor_lsp`` and cannot collide with PyPI's other ``comodor``.

Its source lives in ``server/comodor`` (the project's layout) and is mapped to the
import name ``comodor_lsp`` by ``pyproject.toml``; that only works when every
sub-package is listed there and every import inside the package is relative.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "server" / "comodor"


def test_every_sub_package_is_listed_for_installation() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {"comodor_lsp": "server/comodor"}
    found = sorted(
        ".".join(["comodor_lsp", *init.parent.relative_to(SOURCE).parts])
        for init in SOURCE.rglob("__init__.py")
    )
    assert sorted(config["packages"]) == found


def test_no_module_imports_the_package_by_an_absolute_name() -> None:
    offenders = []
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno} {name}"
                for name in names
                if name.split(".")[0] in ("comodor", "comodor_lsp")
            ]
    assert offenders == []
