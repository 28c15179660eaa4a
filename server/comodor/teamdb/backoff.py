"""How long to wait before trying an unreachable team database again.

Fifty editors lose the database at the same instant when it restarts; if each tried
again on a fixed beat they would all knock at once, every second, for as long as it
is down (and again when it has just come back with its connection slots filling).
:class:`Backoff` is exponential backoff with *full jitter*: the n-th wait is drawn
uniformly from ``[0, min(cap, base * 2**n)]``, so the tries of many servers spread
out over the whole window instead of bunching at its edge, and a long outage costs
one try per server every ``cap / 2`` seconds on average, not one a second.

It is reset only after a *healthy* connection (one that stayed up for
:data:`HEALTHY_S`): a database that accepts a connection and drops it at once (out
of slots, shutting down) must not send every server back to the fastest beat.
"""

from __future__ import annotations

import random

BASE_S = 0.5
"""The first wait's upper bound."""
CAP_S = 30.0
"""No wait is longer than this, however long the database has been away."""
HEALTHY_S = 5.0
"""A connection that stayed up this long resets the backoff."""


class Backoff:
    """Full-jitter exponential backoff: ``next()`` is the wait before the next try."""

    def __init__(
        self,
        base: float = BASE_S,
        cap: float = CAP_S,
        *,
        rng: random.Random | None = None,
    ) -> None:
        if not 0 < base <= cap:
            raise ValueError(f"backoff wants 0 < base <= cap, got base={base} cap={cap}")
        self.base = base
        self.cap = cap
        self.failures = 0
        """Tries that failed since the last reset (the exponent of the next window)."""
        self._rng = rng or random.Random()

    def window(self) -> float:
        """The upper bound of the next wait: ``base`` doubled per failure, at most ``cap``."""
        return min(self.cap, self.base * 2.0 ** min(self.failures, 62))

    def next(self) -> float:
        """Count one more failed try and return how long to wait before the next one."""
        wait = self._rng.uniform(0.0, self.window())
        self.failures += 1
        return wait

    def reset(self) -> None:
        """The database is healthy again: the next outage starts at the fastest beat."""
        self.failures = 0
