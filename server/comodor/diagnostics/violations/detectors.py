"""The detector of each rule key: where in a document a wanted value is broken.

One table, read by the whole-document check (:func:`comodor.diagnostics.violations.
find_violations`) and by the incremental one (:class:`~.incremental.DocumentChecker`),
so both locate every rule the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .commas import find as find_commas
from .imports import find as find_imports
from .indentation import find as find_indentation
from .model import Violation
from .naming import find as find_names
from .python_idioms import find_return_annotations, find_string_format
from .quotes import find as find_quotes
from .semicolons import find as find_semicolons
from .source import Source

Detector = Callable[[Source, str, str, Mapping[str, str]], list[Violation]]

DETECTORS: dict[str, Detector] = {
    "quotes.style": lambda source, key, value, wanted: find_quotes(source, value),
    "indent.style": find_indentation,
    "indent.width": find_indentation,
    "js.semicolons": lambda source, key, value, wanted: find_semicolons(source, value),
    "python.string_format": lambda source, key, value, wanted: find_string_format(source, value),
    "python.return_annotations": lambda source, key, value, wanted: find_return_annotations(
        source, value
    ),
    "naming.functions": lambda source, key, value, wanted: find_names(source, key, value),
    "naming.variables": lambda source, key, value, wanted: find_names(source, key, value),
    "naming.classes": lambda source, key, value, wanted: find_names(source, key, value),
    "trailing_commas": lambda source, key, value, wanted: find_commas(source, value),
    "python.import_style": lambda source, key, value, wanted: find_imports(source, key, value),
    "js.import_style": lambda source, key, value, wanted: find_imports(source, key, value),
}

DETECTABLE = frozenset(DETECTORS)
"""Rule keys whose violations a detector can locate."""
