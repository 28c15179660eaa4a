"""What a terminal can take: colour for a person only, ASCII when it is not UTF-8.

Colour never goes into a pipe or a file, nor anywhere ``NO_COLOR`` is set; a "·" in a
rule's evidence never crashes a command on a terminal that cannot show it.
"""

from __future__ import annotations

import os
import sys


def wants_colour(stream: object) -> bool:
    """Colour only for a person at a terminal, and never when ``NO_COLOR`` is set."""
    isatty = getattr(stream, "isatty", None)
    return not os.environ.get("NO_COLOR") and callable(isatty) and bool(isatty())


def say(text: str) -> None:
    """Print for a person; a terminal that cannot show "·" or "…" gets ASCII, not a crash."""
    from .progress_text import can_print_unicode, plain_ascii

    print(text if can_print_unicode(sys.stdout) else plain_ascii(text))
