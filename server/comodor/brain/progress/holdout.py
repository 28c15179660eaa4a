"""The memory-off holdout: a share of tasks runs without memory, so its effect can be measured.

A trend over time cannot tell whether the memory helped: the project, the model
and the user all change too. A randomised comparison can. With
``learning.holdoutRate`` above 0, that share of ``beginTask`` calls gets no
lessons and no house rules (the agent works from the plain request), the
episode is marked ``holdout``, and progress compares the tasks with memory
against those without, over the same period and with the same tests as the
trend.

**The choice is a hash of the episode id**: task ``id`` is held out when the
first 8 bytes of ``sha256("comodor-holdout:<id>")``, read as a fraction of 2**64,
fall below the rate. That makes it

* random with respect to everything that matters (the goal, the time of day,
  the position in a session), which is what makes the comparison fair;
* deterministic and auditable: anyone can recompute which tasks were held out,
  and tests know in advance which ids will be;
* stable across processes and restarts, with no state to keep.

The trade-off is real: a held-out task is done without what the user already
taught, so it may need corrections the memory would have prevented. That is why
the rate is capped at 0.5 and off by default.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import attrs

from ..models import Episode
from .contrast import MIN_GROUP, Contrast, memory_change

MAX_RATE = 0.5


def withhold_memory(episode_id: int, rate: float) -> bool:
    """Whether task ``episode_id`` runs without memory, at holdout ``rate`` (see the module)."""
    if rate <= 0:
        return False
    digest = hashlib.sha256(f"comodor-holdout:{episode_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < min(rate, MAX_RATE)


@attrs.define
class Comparison:
    """One measure, tasks without memory (``before``) against tasks with it (``after``)."""

    key: str
    label: str
    contrast: Contrast

    def claim(self) -> str:
        """``Corrections per task 60% lower with memory``."""
        return f"{self.label} {memory_change(self.contrast)}"

    def verdict(self) -> str:
        """The verdict without the label (clients show it next to the label)."""
        return self.contrast.verdict(memory_change(self.contrast))


@attrs.define
class Holdout:
    """Tasks with memory against tasks without, measure by measure."""

    with_memory: int
    without_memory: int
    comparisons: list[Comparison] = attrs.field(factory=list)

    @property
    def enough_data(self) -> bool:
        return min(self.with_memory, self.without_memory) >= MIN_GROUP

    @property
    def helps(self) -> bool | None:
        """True when memory is significantly better on some measure and worse on none."""
        directions = {c.contrast.direction for c in self.comparisons} - {None}
        if directions == {"better"}:
            return True
        if directions == {"worse"}:
            return False
        return None

    def verdict(self) -> str:
        if not self.enough_data:
            return (
                f"Not enough tasks to compare yet: {self.without_memory} without memory and "
                f"{self.with_memory} with it; {MIN_GROUP} of each are needed."
            )
        found = sorted(
            (c for c in self.comparisons if c.contrast.significant),
            key=lambda c: c.contrast.p_value or 1.0,
        )
        if not found:
            return (
                f"No measurable difference with memory yet ({self.with_memory} tasks with "
                f"memory, {self.without_memory} without)."
            )
        claims = "; ".join(_lower_first(c.claim()) for c in found)
        helps = self.helps
        lead = "Memory helps" if helps else "Memory hurts" if helps is False else "Mixed"
        return f"{lead}: {claims}."


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def compare_memory(with_memory: Sequence[Episode], without: Sequence[Episode]) -> Holdout:
    """The holdout comparison; measures that are zero throughout are left out."""
    measures: tuple[tuple[str, str, Callable[[Episode], float], bool], ...] = (
        ("corrections", "Corrections per task", lambda e: float(e.corrections), False),
        ("undos", "Undos per task", lambda e: float(e.undos), False),
        ("steps", "Steps per task", lambda e: float(e.steps), False),
        ("succeeded", "Task success", lambda e: 1.0 if e.success else 0.0, True),
    )
    holdout = Holdout(with_memory=len(with_memory), without_memory=len(without))
    for key, label, measure, rate in measures:
        before = [measure(episode) for episode in without]
        after = [measure(episode) for episode in with_memory]
        if not any(before) and not any(after):
            continue
        contrast = Contrast(before, after, lower_is_better=not rate, rate=rate, min_group=MIN_GROUP)
        holdout.comparisons.append(Comparison(key, label, contrast))
    return holdout
