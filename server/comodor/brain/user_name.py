"""Who is using Comodor: the name every vote is recorded under.

``COMODOR_USER`` when set (a team may want names that differ from login names, and
tests play several people), else the login name. With a team database, this is how a
rule's evidence counts people and how one user's re-scan replaces only their own
votes; in the local file it is recorded all the same, so the file can later be
shared without guessing.
"""

from __future__ import annotations

import getpass
import os

MAX_USER_CHARS = 80


def current_user() -> str:
    """``COMODOR_USER``, else the login name, else ``"someone"`` (never empty)."""
    name = os.environ.get("COMODOR_USER", "").strip()
    if not name:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):  # no passwd entry (some containers)
            name = ""
    return " ".join(name.split())[:MAX_USER_CHARS] or "someone"
