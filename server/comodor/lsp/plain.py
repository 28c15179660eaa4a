"""Turn what pygls hands a client back into plain JSON values.

pygls delivers params of methods it does not know (``comodor/memory``) as
namedtuples; clients of our own (the demo, tests, benchmarks) want dicts.
"""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    """``value`` with every namedtuple turned into a dict, recursively."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value
