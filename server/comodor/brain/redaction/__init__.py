"""Redaction: scrub every secret out of text before Comodor stores, logs, sends or writes it.

Two rooms, so that a new family of rules never has to touch the engine and the engine never
has to know a format:

* :mod:`.rules` -- the catalogue of what secrets look like, one family of rules per module,
  from tokens that name their issuer down to the format-free last line (:data:`LAST_LINE`);
* the engine, which knows no format:

  - :mod:`.base` -- what a rule is, and the character classes and helpers rules share;
  - :mod:`.values` -- telling a literal value from code, a reference or a placeholder;
  - :mod:`.matching` -- runs the rules over a text, only where a rule's literal prefix or
    character run occurs, and merges what they find;
  - :mod:`.views` -- second readings of a text: lines shown behind a gutter (a diff's ``+``,
    a quote's ``>``, numbered lines, log stamps, prompts) and lines with URL escapes, decoded;
  - :mod:`.redactor` -- :func:`~.redactor.redact`, which writes the ``[REDACTED:<kind>]``
    markers, and removes a found secret wherever the text repeats it.
"""

from __future__ import annotations

from .base import Rule
from .rules import LAST_LINE, RULES

__all__ = ["LAST_LINE", "RULES", "Rule"]
