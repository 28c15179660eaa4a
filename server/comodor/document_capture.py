"""What the editor says of its documents, resolved once and handed to capture in order.

Every editor notice names a document by URI: opened, changed, saved, created,
closed, or edited by an assistant inside the editor (``comodor/assistantEdit``).
Here each URI becomes a workspace path once (a file outside the workspace is no
one's to learn from, so it is dropped here), and each notice goes to the capture
tracker on the brain's write lane, in the order the editor sent them. The language
server's handlers call in on the event loop, so nothing here waits: a save is noted
in memory at once (a watcher event for the same write may be waiting for it), the
rest is posted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from .brain.errors import InvalidInput
from .paths import resolve_inside

if TYPE_CHECKING:
    from .capture.tracker import CaptureTracker
    from .hosts import CaptureHost


def uri_to_path(uri: str) -> Path:
    """A ``file:`` URI as a local path; anything else is invalid input."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise InvalidInput("uri", f"expected a file: URI, got {uri[:80]!r}")
    return Path(unquote(parsed.path))


def inside(workspace: Path | None, path: Path) -> bool:
    """Whether ``path`` (symlinks followed) is inside ``workspace``."""
    if workspace is None:
        return False
    try:
        resolve_inside(workspace, path)
    except ValueError:
        return False
    return True


class DocumentCapture:
    """The editor's documents, as capture sees them (one per app)."""

    def __init__(self, host: CaptureHost) -> None:
        self._host = host
        self._followed: dict[str, Path] = {}
        """uri -> path of each open document an assistant edited (its changes are followed)"""

    def path(self, uri: str) -> Path | None:
        """The workspace file a document is, or None (not a ``file:`` URI in the workspace)."""
        try:
            path = uri_to_path(uri)
        except InvalidInput:
            return None
        return path if inside(self._host.workspace, path) else None

    def _track(self, action: Callable[[CaptureTracker], object], what: str) -> None:
        """Run ``action`` with the tracker on the write lane, which builds it if need be.

        Building the tracker on the event loop (its modules take tens of ms to load)
        would hold up the editor.
        """
        host = self._host

        def run() -> None:
            tracker = host.tracker
            if tracker is not None:
                action(tracker)

        host.worker.post(run, what)

    def _learning(self) -> bool:
        learning = self._host.settings.learning
        return bool(learning.enabled and learning.corrections)

    def opened(self, uri: str, text: str) -> None:
        """The editor opened a document: keep its text as a baseline."""
        path = self.path(uri)
        if path is not None:
            self._track(lambda tracker: tracker.did_open(path, text), "note an opened document")

    def saved(self, uri: str, text: str | None) -> None:
        """The editor saved a document: maybe a correction or an undo of an agent write."""
        path = self.path(uri)
        if path is None:
            return
        built = self._host.built_tracker  # none yet: no watcher either, so nothing waits
        if text is not None and built is not None:
            built.note_save(path, text)

        def capture(tracker: CaptureTracker) -> None:
            if tracker.is_ignored(path) or not self._learning():
                return
            saved = text if text is not None else path.read_text("utf-8", errors="replace")
            tracker.did_save(path, saved)

        self._track(capture, f"capture the save of {path.name}")

    def created(self, uris: Sequence[str], *, done: bool) -> None:
        """The editor creates (or created) these files: baselines, never agent writes."""
        paths = [path for path in map(self.path, uris) if path is not None]
        if not paths:
            return
        built = self._host.built_tracker
        if done:
            self._track(lambda tracker: tracker.editor_created(paths), "note created files")
        elif built is not None:
            built.editor_will_create(paths)  # memory only: the watcher may be waiting
        else:  # no watcher yet; noted in order before anything it will report
            self._track(lambda tracker: tracker.editor_will_create(paths), "note files to come")

    def closed(self, uri: str) -> None:
        path = self._followed.pop(uri, None)
        if path is not None:
            self._track(lambda tracker: tracker.document_closed(path), "forget assistant lines")

    def assistant_edited(
        self,
        uri: str,
        before: str,
        after: str,
        ranges: Sequence[tuple[int, int]],
        source: str,
    ) -> str | None:
        """``comodor/assistantEdit``: an assistant made this change of the open document.

        Returns why it is not counted (a line for the log), or None when it is handed
        to the tracker, in order with the document's other changes and saves.
        """
        path = self.path(uri)
        if path is None:
            return "not a file inside the workspace"
        if not self._learning():
            return "learning from corrections is off"
        if len(after) > self._host.settings.watch.max_file_bytes:
            return "the document is larger than watch.maxFileBytes"
        self._followed[uri] = path
        self._track(
            lambda tracker: tracker.assistant_edit(path, before, after, ranges, source),
            f"note an assistant's edit of {path.name}",
        )
        return None

    def follows(self, uri: str) -> bool:
        """Whether an assistant edited this open document (its changes must be followed)."""
        return uri in self._followed

    def changed(
        self,
        uri: str,
        before: str,
        after: str,
        changes: Sequence[tuple[int, int, int, int, str]] | None,
    ) -> None:
        """Any change of an open document an assistant edited: its lines move with it.

        ``changes`` are the ``didChange``'s ranges (start line and character, end line
        and character, new text), or None when the client sent the whole text.
        """
        path = self._followed.get(uri)
        if path is None:
            return
        from .capture.assistant_regions import TextChange

        plain = None if changes is None else [TextChange(*change) for change in changes]
        self._track(
            lambda tracker: tracker.document_changed(path, before, after, plain),
            "follow an assistant-edited document",
        )
