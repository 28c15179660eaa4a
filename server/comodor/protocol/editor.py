"""What the editor is shown about a document: diagnostics and the fixes for them.

These are the app's answers to the language server (``ComodorApp.document_diagnostics``),
in the protocol's terms: a rule's key, id and words, ranges and edits. Columns count
code points of the document's text; the language server converts them to the
client's position encoding, since only it knows that encoding (and only it knows
LSP).
"""

from __future__ import annotations

import attrs

FIX_ALL_KIND = "source.fixAll.comodor"
"""The code action kind of "fix every Comodor issue in this document"."""
MEMORY_CAPABILITY = "comodorMemory"
"""Declared ``true`` under ``capabilities.experimental`` by a client that shows
``comodor/memory`` itself: the server then sends no ``window/showMessage`` for a rule."""


@attrs.frozen
class RangeObject:
    start_line: int
    start_character: int
    end_line: int
    end_character: int


@attrs.frozen
class TextEditObject:
    range: RangeObject
    new_text: str


@attrs.frozen
class FixObject:
    """Edits that make a place (or a whole document) follow its rules, applied together."""

    title: str
    edits: tuple[TextEditObject, ...]


@attrs.frozen
class DiagnosticObject:
    """One place that breaks a confident, active house rule."""

    range: RangeObject
    message: str
    """The rule's statement, then its evidence."""
    code: str
    """The rule's key (``quotes.style``)."""
    rule_id: int
    severity: str
    """``error``, ``warning``, ``information`` or ``hint``."""
    place: str
    """Which spot this is, for "Not here" (``comodor.notHere``)."""
    fix: FixObject | None = None


@attrs.frozen
class DocumentDiagnostics:
    """Everything a document breaks, and one fix for all of it."""

    diagnostics: tuple[DiagnosticObject, ...] = ()
    fix_all: FixObject | None = None
