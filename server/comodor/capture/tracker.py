"""Who wrote what: telling agent writes from editor saves, and saves from corrections.

The tracker keeps, per file, the last text it knows (from the editor, from a
save, from disk) and the texts of recent editor saves. With those it classifies
every change:

* a disk change whose text equals a recent ``didSave`` of the file is the
  editor's own save, not an agent;
* a disk change during a version-control operation is git's, not an agent's;
* a file Comodor wrote itself (:mod:`~comodor.capture.own_writes`), a file under
  Comodor's own folders, an empty file (``touch``, "New File"), and a file the editor
  created (``workspace/didCreateFiles``, or opened before it existed) are never an
  agent's: they become baselines, so a later agent write to them is one (an empty
  file's "before" is its empty text);
* any other disk change inside the workspace is an **agent write**, and so is
  ``comodor.agentEdit``: both are checkpointed (text before and after);
* a save (or disk change) that restores the text from before an agent write is
  an **undo**; so is deleting a file the agent created;
* any other save of a file whose agent write is younger than the correction
  window is a **correction**, analysed on the changed lines only;
* an edit an assistant made inside the editor (``comodor/assistantEdit``) is an agent
  write of its lines only (:mod:`~comodor.capture.assistant_regions` follows them as
  the user edits the document): a save is a correction of what changed *inside* them,
  an editor undo back to the text before it (or a save of that text) is an undo, and
  several such edits before a save are judged together.

Each correction is counted once: after a save, the next save of the same file
is compared with that save, not with the agent's text again.

Threads: everything that touches the brain runs on the host's brain worker
(write lane). The watcher's thread only reads the changed file and waits, in
memory, for the editor's ``didSave`` that may explain it (:meth:`note_save` is
called the moment the notification arrives); then it hands the classification
to the worker through ``post``.
"""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from ..brain.blobs import content_key, redacted_key, text_hash
from ..brain.engine import LearningEngine
from ..brain.models import IN_EDITOR_SOURCES, Rule, write_source
from ..brain.redaction.redactor import redact
from ..brain.store import AgentWrite
from ..conventions.corrections import analyse_correction, language_of
from .assistant_regions import (
    Region,
    TextChange,
    add_spans,
    assistant_view,
    follow,
    lines_of,
    settle,
    spans_of,
)
from .own_writes import OwnWrites

Post = Callable[[Callable[[], object], str], None]
"""Hand work to the brain worker: ``post(function, what)`` (see ``BrainWorker.post``)."""


def run_here(function: Callable[[], object], what: str) -> None:
    """A ``Post`` for single-threaded use (tests, the command line): run at once."""
    del what
    function()


if TYPE_CHECKING:
    from .watcher import FileChange

log = logging.getLogger(__name__)

KEEP_TEXTS = 256
"""How many files' full texts the tracker keeps in memory as baselines."""
RECENT_SAVE_S = 10.0
"""A disk change this soon after a save with the same text is the editor's own write."""
SAVE_GRACE_S = 0.6
"""How long an unexplained disk change waits for the editor's ``didSave`` to arrive.

An editor writes the file, then sends ``didSave``; the watcher may report the
write before the save notification has been processed. Waiting a moment for it
keeps the user's own saves from ever being mistaken for an agent's writes."""
EDITOR_CREATE_S = 10.0
"""How long a file the editor announced (``willCreateFiles``, an open of a missing file)
may take to appear on disk and still be the editor's creation."""
OWN_FOLDER = ".comodor"


@attrs.define
class _AssistantStep:
    """One assistant edit of an open document: what it replaced, and its checkpoint."""

    text_before: str
    regions_before: list[Region]
    write: AgentWrite


@attrs.define
class _AssistantDocument:
    """The assistant's edits of one open document since it was opened (or last undone)."""

    before: str
    """The document's text before the first of them: saving it again is an undo."""
    regions: list[Region]
    steps: list[_AssistantStep]


@attrs.frozen
class SaveOutcome:
    """What one save meant."""

    kind: str
    """``correction``, ``undo``, ``unchanged`` or ``none`` (no agent write to compare with)."""
    rule_keys: tuple[str, ...] = ()
    new_rules: tuple[Rule, ...] = ()
    logic_change: bool = False


def _read_text(path: Path, max_bytes: int) -> str | None:
    try:
        if path.stat().st_size > max_bytes:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


class CaptureTracker:
    """Classifies workspace activity into agent writes, corrections and undos."""

    def __init__(
        self,
        engine: LearningEngine,
        root: Path,
        *,
        max_file_bytes: int = 2_000_000,
        is_ignored: Callable[[Path], bool] = lambda path: False,
        post: Post = run_here,
        own_writes: OwnWrites | None = None,
        own_folders: Sequence[Path] = (),
    ) -> None:
        self.engine = engine
        self.post = post
        self.root = root.resolve()
        self.max_file_bytes = max_file_bytes
        self.is_ignored = is_ignored
        self.own_writes = own_writes or OwnWrites()
        self.own_folders = tuple(folder.resolve() for folder in own_folders)
        """Folders Comodor writes into itself (the brain's checkpoints), besides ``.comodor``."""
        self._known: dict[str, str] = {}
        """path -> hash of the last text we know the file had"""
        self._known_text: OrderedDict[str, str] = OrderedDict()
        """path -> that text, for the few files recently opened, saved or written (bounded)"""
        self._saves: dict[str, tuple[str, float]] = {}
        """path -> (hash, time) of the last editor save"""
        self._lock = threading.RLock()
        self._saved = threading.Condition(self._lock)
        self._written: set[str] | None = None
        """Paths with any agent write: a git storm over other files needs no SQLite."""
        self._editor_creates: dict[str, float] = {}
        """path -> when the editor said it will create it (see :data:`EDITOR_CREATE_S`)"""
        self._assistant: dict[str, _AssistantDocument] = {}
        """path -> the assistant's edits of that open document (``comodor/assistantEdit``)"""

    # -- paths -------------------------------------------------------------- #

    def key(self, path: Path | str) -> str:
        """Workspace-relative POSIX path: the identity of a file across moves of the folder."""
        resolved = Path(path).resolve()
        try:
            return resolved.relative_to(self.root).as_posix()
        except ValueError:
            return resolved.as_posix()

    def inside(self, path: Path | str) -> bool:
        try:
            Path(path).resolve().relative_to(self.root)
        except ValueError:
            return False
        return True

    # -- what the editor tells us --------------------------------------------- #

    def did_open(self, path: Path, text: str) -> None:
        """Keep the opened text as a baseline, without calling it "already seen".

        An editor may open a file the moment an agent wrote it, before the
        watcher delivered the write. So opening never marks a text as processed,
        and never replaces a baseline we already had (which predates the write).

        An open of a file that does not exist yet is the editor creating it (Neovim's
        ``:e new.py``): its text is the baseline, and its appearance on disk is the
        editor's, not an agent's.
        """
        missing = not path.exists()
        with self._lock:
            key = self.key(path)
            if missing:
                self._expect_editor_creation(key)
                self._remember(key, text)
            elif key not in self._known_text:
                self._known_text[key] = text

    def editor_will_create(self, paths: Sequence[Path]) -> None:
        """``workspace/willCreateFiles``: these files are about to appear, made by the editor."""
        with self._lock:
            for path in paths:
                self._expect_editor_creation(self.key(path))
            self._saved.notify_all()

    def editor_created(self, paths: Sequence[Path]) -> None:
        """``workspace/didCreateFiles``: the editor made these files (explorer, paste…).

        What they hold now is a baseline, never an agent's write, whichever of this
        notice and the watcher's report of the creation comes first.
        """
        for path in paths:
            text = _read_text(path, self.max_file_bytes) if path.is_file() else None
            with self._lock:
                key = self.key(path)
                self._expect_editor_creation(key)
                if text is not None:
                    self._remember(key, text)
                self._saved.notify_all()

    def _expect_editor_creation(self, key: str) -> None:
        now = time.monotonic()
        self._editor_creates[key] = now
        for old, at in list(self._editor_creates.items()):
            if now - at > EDITOR_CREATE_S:
                del self._editor_creates[old]

    def _created_by_editor(self, key: str) -> bool:
        at = self._editor_creates.get(key)
        return at is not None and time.monotonic() - at < EDITOR_CREATE_S

    def _not_an_agent(self, key: str, path: Path, text: str) -> bool:
        """Texts no agent wrote: empty files, Comodor's own writes and folders."""
        if not text.strip() or OWN_FOLDER in Path(key).parts:
            return True
        resolved = path.resolve()
        if any(resolved.is_relative_to(folder) for folder in self.own_folders):
            return True
        return self.own_writes.wrote(resolved, text)

    def agent_edit(self, path: Path, text: str | None = None) -> int:
        """An agent says it wrote ``text`` (default: what is on disk now) to ``path``.

        Returns the checkpoint's id, or 0 when the text is not an agent's to count (an
        empty file, or exactly what Comodor itself wrote there).
        """
        if text is None:
            text = _read_text(path, self.max_file_bytes)
            if text is None:
                text = ""
        with self._lock:
            key = self.key(path)
            if self._not_an_agent(key, path, text):
                self._remember(key, text)
                return 0
            before = self._known_text.get(key)
            if before == text:
                before = None  # an open that happened after the write is no baseline
            if before is None:
                previous = self._last_write(key)
                if previous is not None:
                    before = self.engine.blobs.get(previous.after_hash)
                else:
                    before = self._committed_text(key)
            write_id = self._record_write(
                key, before, text, created=before is None, source="command"
            )
            self._remember(key, text)
            return write_id

    # -- what an assistant inside the editor did --------------------------------- #

    def assistant_edit(
        self,
        path: Path,
        before: str,
        after: str,
        ranges: Sequence[tuple[int, int]],
        source: str,
    ) -> int:
        """An assistant turned the open document from ``before`` into ``after``.

        ``ranges`` are the ``(first line, last line)`` of its text in ``after``. The
        write is checkpointed like a disk write (both texts, redacted); only its lines
        are the assistant's. Returns the checkpoint's id, or 0 when there is nothing of
        an agent's to count (the edit left the document as it was, or it is Comodor's).
        """
        with self._lock:
            key = self.key(path)
            if before == after or self._not_an_agent(key, path, after):
                return 0
            lines = lines_of(after)
            spans = spans_of(ranges, len(lines))
            if not spans:
                return 0
            document = self._assistant.get(key)
            if document is None:
                document = self._assistant[key] = _AssistantDocument(before, [], [])
            write_id = self._record_write(key, before, after, created=False, source=source)
            write = self.engine.store.last_agent_write(self.engine.project_scope, key)
            assert write is not None and write.id == write_id
            document.steps.append(_AssistantStep(before, document.regions, write))
            document.regions = add_spans(document.regions, spans, lines)
            return write_id

    def document_changed(
        self, path: Path, before: str, after: str, changes: Sequence[TextChange] | None
    ) -> None:
        """The open document changed (any edit): move the assistant's lines with it.

        A change back to the text from before an assistant edit is the editor's undo
        of that edit (and of every later one): an undo, at once, before any save.
        """
        with self._lock:
            key = self.key(path)
            document = self._assistant.get(key)
            if document is None:
                return
            for index, step in enumerate(document.steps):
                if len(step.text_before) == len(after) and step.text_before == after:
                    self._undo_steps(key, document, index)
                    return
            document.regions = follow(document.regions, before, after, changes)

    def document_closed(self, path: Path) -> None:
        """The editor closed the document: its unsaved assistant lines are gone with it."""
        with self._lock:
            self._assistant.pop(self.key(path), None)

    def _undo_steps(self, key: str, document: _AssistantDocument, first: int) -> None:
        """The assistant edits from step ``first`` on are undone (newest first)."""
        for step in reversed(document.steps[first:]):
            if step.write.status != "undone":
                self.engine.undo(step.write)
        document.regions = document.steps[first].regions_before
        del document.steps[first:]
        if not document.steps:
            del self._assistant[key]

    def _judge_assistant(self, key: str, document: _AssistantDocument, text: str) -> SaveOutcome:
        """A save of a document an assistant edited: a correction inside its lines only."""
        engine = self.engine
        write = document.steps[-1].write
        window_s = engine.settings.correction_window_minutes * 60.0
        if time.time() - write.created_at > window_s:
            del self._assistant[key]
            return SaveOutcome("none")
        if text == document.before:
            self._undo_steps(key, document, 0)
            return SaveOutcome("undo")
        current = lines_of(text)
        if document.regions and document.regions[-1].end > len(current):
            log.info("%s: the saved text does not match the edited document; not judged", key)
            del self._assistant[key]
            return SaveOutcome("none")
        assistant_left = "\n".join(assistant_view(current, document.regions))
        document.regions = settle(current, document.regions)
        if assistant_left == text:
            return SaveOutcome("unchanged")
        return self._count_correction(
            key, write, redact(assistant_left), redact(text), redact(document.before)
        )

    # -- what the editor saves ----------------------------------------------------- #

    def note_save(self, path: Path, text: str) -> None:
        """The editor says it saved ``text`` (called at once, before :meth:`did_save` runs).

        Memory only, so any thread may call it the moment the notification
        arrives: a watcher event for the same write may be waiting for it.
        """
        with self._lock:
            self._saves[self.key(path)] = (text_hash(text), time.monotonic())
            self._saved.notify_all()

    def did_save(self, path: Path, text: str) -> SaveOutcome:
        """The editor saved ``text``: maybe a correction or an undo of an agent write."""
        with self._lock:
            key = self.key(path)
            digest = text_hash(text)
            self._saves[key] = (digest, time.monotonic())
            self._saved.notify_all()
            assistant = self._assistant.get(key)
            if assistant is not None:
                outcome = self._judge_assistant(key, assistant, text)
            else:
                outcome = self._judge(key, text)
            self._remember(key, text)
            return outcome

    # -- what the disk tells us ------------------------------------------------ #

    def on_disk_changes(self, changes: Sequence[FileChange]) -> None:
        """A batch from the watcher, on its own thread: read, wait for saves, hand over.

        Nothing here touches the brain: the files are read and the editor's saves
        waited for in memory; what remains to judge goes to the brain worker.
        """
        deadline = time.monotonic() + SAVE_GRACE_S
        pending: list[tuple[FileChange, str | None, str]] = []
        for change in changes:
            try:
                seen = self._read_change(change, deadline)
            except Exception:
                log.exception("could not read the change of %s", change.path)
                continue
            if seen is not None:
                pending.append(seen)
        if pending:
            self.post(lambda: self._classify_all(pending), "classify workspace changes")

    def _read_change(
        self, change: FileChange, deadline: float
    ) -> tuple[FileChange, str | None, str] | None:
        """(change, text, key) for a change worth judging, after the save grace period."""
        if not self.inside(change.path) or self.is_ignored(change.path):
            return None
        key = self.key(change.path)
        if change.kind == "deleted":
            return change, None, key
        text = _read_text(change.path, self.max_file_bytes)
        if text is None:
            return None
        digest = text_hash(text)
        with self._lock:
            # Wait (briefly) for the editor's didSave that may explain this write.
            while not change.vcs and digest != self._known.get(key):
                if self._is_editor_save(key, digest) or self._created_by_editor(key):
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._saved.wait(remaining)
            if digest == self._known.get(key):
                return None  # nothing new (our own save, or an event we have seen)
        return change, text, key

    def _classify_all(self, pending: Sequence[tuple[FileChange, str | None, str]]) -> None:
        for change, text, key in pending:
            try:
                with self._lock:
                    if text is None:
                        self._on_deleted(key)
                    else:
                        self._classify(change, key, text)
            except Exception:
                log.exception("could not classify the change of %s", change.path)

    def _is_editor_save(self, key: str, digest: str) -> bool:
        saved = self._saves.get(key)
        return (
            saved is not None and saved[0] == digest and time.monotonic() - saved[1] < RECENT_SAVE_S
        )

    def _classify(self, change: FileChange, key: str, text: str) -> None:
        """Judge one changed file (on the brain worker): editor, git, undo or agent."""
        digest = text_hash(text)
        if digest == self._known.get(key):
            return  # seen meanwhile (the editor's save was processed first)
        if self._is_editor_save(key, digest):
            self._remember(key, text)
            return
        write = self._last_write(key)
        if (
            write is not None
            and write.status != "undone"
            and write.before_hash
            and write_source(write.source) not in IN_EDITOR_SOURCES
            and write.before_hash == content_key(text)
        ):
            self.engine.undo(write)
            self._remember(key, text)
            return
        if change.vcs:
            self._remember(key, text, keep_text=False)  # git's: a baseline, not an agent
            return
        created_by_editor = change.kind == "created" and self._created_by_editor(key)
        if created_by_editor:
            del self._editor_creates[key]  # only its first appearance is the editor's
        if created_by_editor or self._not_an_agent(key, change.path, text):
            self._remember(key, text)  # a baseline: a later agent write has this "before"
            return
        before = self._known_text.get(key)
        if before == text:
            before = None  # the baseline was taken after this write (an early open)
        if before is None and change.kind != "created":
            if write is not None:
                before = self.engine.blobs.get(write.after_hash)
            else:
                before = self._committed_text(key)
        created = change.kind == "created" and before is None
        self._record_write(key, before, text, created=created)
        self._remember(key, text)

    def _last_write(self, key: str) -> AgentWrite | None:
        if self._written is None:
            self._written = self.engine.store.agent_written_paths(self.engine.project_scope)
        if key not in self._written:
            return None
        return self.engine.store.last_agent_write(self.engine.project_scope, key)

    def _record_write(
        self, key: str, before: str | None, text: str, *, created: bool, source: str = "disk"
    ) -> int:
        write_id = self.engine.record_agent_write(key, before, text, created=created, source=source)
        if self._written is not None:
            self._written.add(key)
        return write_id

    def _committed_text(self, key: str) -> str | None:
        """The file as last committed, the best baseline for a file we never saw."""
        try:
            completed = subprocess.run(
                ["git", "show", f"HEAD:{key}"],
                cwd=self.root,
                capture_output=True,
                timeout=3,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if completed.returncode != 0 or b"\0" in completed.stdout[:8192]:
            return None
        return completed.stdout.decode("utf-8", errors="replace")

    def _on_deleted(self, key: str) -> None:
        write = self._last_write(key)
        if write is not None and write.created and write.status == "open":
            self.engine.undo(write)
        self._known.pop(key, None)
        self._known_text.pop(key, None)

    # -- judging a save ----------------------------------------------------------- #

    def _remember(self, key: str, text: str, *, keep_text: bool = True) -> None:
        """Note the file's current text; keep the text itself only for a bounded few.

        A checkout of 50,000 files must not pull the whole tree into memory: for
        those only the hash is kept, and git can give the text back when needed.
        """
        self._known[key] = text_hash(text)
        if keep_text:
            self._known_text[key] = text
            self._known_text.move_to_end(key)
            while len(self._known_text) > KEEP_TEXTS:
                self._known_text.popitem(last=False)
        else:
            self._known_text.pop(key, None)

    def _judge(self, key: str, text: str) -> SaveOutcome:
        """Compare a save with the last agent write of the file, by content keys.

        The stored hashes are keys of redacted texts (see ``brain.blobs``), so the save is
        redacted and keyed the same way; a write recorded before that change holds a raw
        hash and simply never matches (its undo may be missed).
        """
        engine = self.engine
        write = self._last_write(key)
        if write is None or write.status == "undone":
            return SaveOutcome("none")
        if write_source(write.source) in IN_EDITOR_SOURCES:
            return SaveOutcome("none")  # its lines are no longer followed (closed, restarted)
        window_s = engine.settings.correction_window_minutes * 60.0
        if time.time() - write.created_at > window_s:
            return SaveOutcome("none")
        redacted = redact(text)
        digest = redacted_key(redacted)
        if write.before_hash and digest == write.before_hash != write.after_hash:
            engine.undo(write)
            return SaveOutcome("undo")
        if write.last_hash == digest:
            return SaveOutcome("unchanged")
        previous = engine.blobs.get(write.last_hash) or engine.blobs.get(write.after_hash)
        if previous is None:
            return SaveOutcome("none")
        baseline = engine.blobs.get(write.before_hash) if write.before_hash else None
        engine.blobs.put(text)
        return self._count_correction(key, write, previous, redacted, baseline)

    def _count_correction(
        self, key: str, write: AgentWrite, previous: str, saved: str, baseline: str | None
    ) -> SaveOutcome:
        """The user changed ``previous`` (the agent's text) into ``saved``: count what it teaches.

        All three texts are redacted. The next save is compared with this one, so each
        correction counts once.
        """
        engine = self.engine
        analysis = analyse_correction(previous, saved, language_of(key), baseline=baseline)
        engine.store.update_agent_write(write.id, status="corrected", last_hash=redacted_key(saved))
        if not analysis.changed_lines:
            return SaveOutcome("unchanged")
        keys = tuple(vote.key for vote in analysis.votes)
        new_rules = engine.record_correction(
            key,
            analysis.votes,
            analysis.diff,
            write.episode_id,
            rule_keys=keys,
            source=write.source,
        )
        return SaveOutcome("correction", keys, tuple(new_rules), analysis.logic_change)
