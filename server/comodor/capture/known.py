"""Which files exist in the workspace, as far as the watcher knows.

Needed for two things the events alone don't say: whether the target of a rename
(atomic save, move in from outside) existed before, which decides ``modified`` vs
``created``; and which files vanished when a whole folder is deleted or moved out
(inotify then reports only the folder). A tree of dicts makes "everything under this
folder" cheap even when ``rm -rf`` sends one event per subfolder.
"""

from __future__ import annotations

from collections.abc import Iterator

_Node = dict[str, "_Node | None"]  # name -> child folder, or None for a file


class KnownFiles:
    """A set of relative ``/``-separated file paths, stored as a folder tree."""

    def __init__(self) -> None:
        self._root: _Node = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __contains__(self, rel: object) -> bool:
        if not isinstance(rel, str):
            return False
        *folders, name = rel.split("/")
        node = self._folder(folders)
        return node is not None and name in node and node[name] is None

    def add(self, rel: str) -> None:
        """Record that a file exists (a folder of that name is replaced)."""
        *folders, name = rel.split("/")
        node = self._root
        for part in folders:
            child = node.get(part)
            if child is None:
                if part in node:  # a file became a folder
                    self._count -= 1
                child = {}
                node[part] = child
            node = child
        if name not in node or node[name] is not None:
            self._count += 1 - self._files_in(node.get(name))
            node[name] = None

    def discard(self, rel: str) -> None:
        """Forget one file (no-op if unknown)."""
        *folders, name = rel.split("/")
        node = self._folder(folders)
        if node is not None and name in node and node[name] is None:
            del node[name]
            self._count -= 1

    def pop_tree(self, rel: str) -> list[str]:
        """Forget and return every file under folder ``rel``."""
        *folders, name = rel.split("/")
        parent = self._folder(folders)
        if parent is None:
            return []
        node = parent.get(name)
        if node is None:
            return []
        del parent[name]
        found = list(_walk(node, rel))
        self._count -= len(found)
        return found

    def _folder(self, folders: list[str]) -> _Node | None:
        node: _Node | None = self._root
        for part in folders:
            if node is None:
                return None
            node = node.get(part)
        return node

    def _files_in(self, node: _Node | None) -> int:
        return 0 if node is None else sum(1 for _ in _walk(node, ""))


def _walk(node: _Node, prefix: str) -> Iterator[str]:
    for name, child in node.items():
        path = f"{prefix}/{name}"
        if child is None:
            yield path
        else:
            yield from _walk(child, path)
