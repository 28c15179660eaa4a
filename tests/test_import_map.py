"""The house a newcomer finds: layers that hold, no import circles, names that say their job.

The map is drawn from the source (every ``import``, including those under
``TYPE_CHECKING`` and inside functions: a circle through a type-only or deferred import
is still a circle for the reader), so it cannot drift from the code.
"""

from __future__ import annotations

import ast
from collections import Counter, defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "server" / "comodor"
PACKAGE = "comodor"
MAX_MODULES_SIDE_BY_SIDE = 16

LAYERS = {
    "comodor.brain": (
        "comodor.lsp",
        "comodor.capture",
        "comodor.reflect",
        "comodor.app",
        "comodor.commands",
        "comodor.protocol",
        "comodor.mcp_server",
        "comodor.mcp_tools",
        "pygls",
        "lsprotocol",
    ),
    "comodor.capture": ("comodor.app", "comodor.lsp", "comodor.commands", "comodor.mcp_server"),
    "comodor.reflect": ("comodor.app", "comodor.lsp", "comodor.commands", "comodor.mcp_server"),
    "comodor.lsp": (
        "comodor.brain.engine",
        "comodor.brain.store",
        "comodor.capture",
        "comodor.mcp_server",
        "comodor.mcp_tools",
    ),
}
"""What each layer must not import: the brain is a plain library; capture and reflect
never reach the app; the language server goes through the app, not the brain's insides."""


def _module_name(path: Path) -> str:
    parts = [PACKAGE, *path.relative_to(SOURCE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def _imports(name: str, path: Path) -> Iterator[str]:
    """Every module ``name`` imports (absolute names), however deep in the file."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            yield target
            for alias in node.names:
                yield f"{target}.{alias.name}"  # ``from . import sync`` names a module


@cache
def graph() -> dict[str, frozenset[str]]:
    """Module -> the package's own modules it imports."""
    known = modules()
    return {
        name: frozenset(
            target for target in _imports(name, path) if target in known and target != name
        )
        for name, path in known.items()
    }


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _is_parent(package: str, module: str) -> bool:
    return module.startswith(package + ".")


def test_there_are_no_import_circles_not_even_through_type_only_imports() -> None:
    # A package's __init__ importing its own submodules is how a package names its parts.
    cycles = [
        cycle
        for cycle in _cycles()
        if not all(_is_parent(cycle[0], member) or member == cycle[0] for member in cycle)
    ]
    assert cycles == []


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_what_lies_below_it(layer: str) -> None:
    banned = LAYERS[layer]
    crossings = sorted(
        f"{name} -> {target}"
        for name, path in modules().items()
        if name == layer or name.startswith(layer + ".")
        for target in _imports(name, path)
        if any(target == ban or target.startswith(ban + ".") for ban in banned)
    )
    assert crossings == []


def test_no_package_holds_more_modules_side_by_side_than_a_reader_can_scan() -> None:
    side_by_side: defaultdict[Path, int] = defaultdict(int)
    for path in modules().values():
        if path.name != "__init__.py":
            side_by_side[path.parent] += 1
    crowded = {
        str(folder.relative_to(SOURCE)): count
        for folder, count in side_by_side.items()
        if count > MAX_MODULES_SIDE_BY_SIDE
    }
    assert crowded == {}


def test_no_two_modules_share_a_file_name() -> None:
    names = Counter(path.name for path in modules().values() if path.name != "__init__.py")
    twins = sorted(name for name, count in names.items() if count > 1)
    assert twins == []


def test_the_map_sees_the_imports_it_claims_to() -> None:
    """The checks above would pass on an empty map: make sure it is drawn."""
    edges = graph()
    assert (
        "comodor.app" in edges["comodor.commands"] or "comodor.hosts" in edges["comodor.commands"]
    )
    assert "comodor.lsp.server" in edges["comodor.lsp.documents"]
    assert len(edges) > 150
