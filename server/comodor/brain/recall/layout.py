"""The recall index's data layout: the compact base a snapshot file holds, and how it is built.

A base is one set of numpy arrays (:class:`Snapshot`): per slot, a lesson's id,
trust inputs, scope code and flags; a vocabulary of 64-bit term hashes, sorted;
posting lists (slots per term) and a forward index (terms per slot), both as
CSR arrays. :func:`build_snapshot` makes one from lessons, :class:`Compaction`
from an index's base plus delta (on a thread that never touches SQLite), and
:mod:`comodor.brain.recall.snapshot_file` writes and maps them. Nothing here is lesson text.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from .entries import IndexedLesson

# numpy's stubs cannot follow dtypes through fancy indexing; the names say what they hold.
IntArray = npt.NDArray[Any]
Int64Array = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]
HashArray = npt.NDArray[Any]

PINNED_FLAG = 1


def term_hash(term: str) -> int:
    """The term's stable 64-bit id (the same in every process and every snapshot)."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little")


_GUIDANCE = "\x00guidance\x00"
"""Prefix of a term that a lesson holds in its guidance only: a key of its own."""


class _Hashes:
    """Term -> hash, remembered: a brain has thousands of distinct terms, not millions.

    A term has two keys: one for lessons whose trigger holds it, one for lessons
    that hold it in their guidance only (two posting lists, as search engines keep
    one per field), so a query weighs the two apart without a second array.
    """

    def __init__(self) -> None:
        self._known: dict[str, int] = {}

    def __call__(self, term: str) -> int:
        found = self._known.get(term)
        if found is None:
            found = self._known[term] = term_hash(term)
            if len(self._known) > 200_000:
                self._known.clear()
        return found

    def guidance(self, term: str) -> int:
        """The key of ``term`` in lessons that hold it in their guidance only."""
        return self(_GUIDANCE + term)

    def both(self, term: str) -> tuple[int, int]:
        return self(term), self.guidance(term)

    def of_lesson(self, lesson: IndexedLesson) -> list[int]:
        """The lesson's keys, sorted and distinct: trigger terms plain, the rest as guidance."""
        keys = {
            self(term) if lesson.trigger_term(position) else self.guidance(term)
            for position, term in enumerate(lesson.terms)
        }
        return sorted(keys)


HASHES = _Hashes()


def empty_array(dtype: Any) -> Any:
    return np.zeros(0, dtype=dtype)


@attrs.define
class Snapshot:
    """The compact form of an index: what a snapshot file holds (ids, keys, term hashes)."""

    ids: Int64Array
    log_trust: FloatArray
    anchor: FloatArray
    scope: IntArray
    flags: npt.NDArray[np.uint8]
    vocab: HashArray
    """Sorted term keys (a term's hash, or its guidance key); a key's index is its position."""
    offsets: Int64Array
    """``postings[offsets[t]:offsets[t + 1]]`` are the ranked slots holding term ``t``."""
    postings: IntArray
    forward_offsets: Int64Array
    """``forward[forward_offsets[s]:forward_offsets[s + 1]]`` are slot ``s``'s term indexes."""
    forward: IntArray
    scopes: list[str]

    ARRAYS = (
        "ids",
        "log_trust",
        "anchor",
        "scope",
        "flags",
        "vocab",
        "offsets",
        "postings",
        "forward_offsets",
        "forward",
    )

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        return {name: getattr(self, name) for name in self.ARRAYS}

    def check(self) -> None:
        """Raise ValueError unless the arrays are consistent with each other."""
        slots = len(self.ids)
        for name in ("log_trust", "anchor", "scope", "flags"):
            if len(getattr(self, name)) != slots:
                raise ValueError(f"{name} has {len(getattr(self, name))} entries, not {slots}")
        terms = len(self.vocab)
        if len(self.offsets) != terms + 1 or len(self.forward_offsets) != slots + 1:
            raise ValueError("offsets do not match the vocabulary or the slots")
        for offsets, values, bound in (
            (self.offsets, self.postings, slots),
            (self.forward_offsets, self.forward, terms),
        ):
            if offsets[0] != 0 or offsets[-1] != len(values) or np.any(np.diff(offsets) < 0):
                raise ValueError("offsets are not a partition of their array")
            if len(values) and (int(values.min()) < 0 or int(values.max()) >= bound):
                raise ValueError("an index points outside its array")
        if terms > 1 and np.any(self.vocab[1:] <= self.vocab[:-1]):
            raise ValueError("the vocabulary is not sorted")
        if len(self.scope) and (
            int(self.scope.min()) < 0 or int(self.scope.max()) >= len(self.scopes)
        ):
            raise ValueError("a scope code is unknown")


class SlotMap:
    """Lesson id -> slot (-1: pinned), without a 50,000-entry dict.

    The base's ids are one sorted array (and the slots in that order); what changed
    since is a small dict, emptied by the next compaction.
    """

    _GONE = -2

    def __init__(self, ids: Int64Array, pinned: Iterable[int]) -> None:
        order = np.argsort(ids, kind="stable")
        self._sorted = np.asarray(ids)[order]
        self._order = order.astype(np.int32)
        self._changed: dict[int, int] = dict.fromkeys(pinned, -1)
        self._count = len(ids)

    def get(self, lesson_id: int) -> int | None:
        found = self._changed.get(lesson_id)
        if found is not None:
            return None if found == self._GONE else found
        position = int(np.searchsorted(self._sorted, lesson_id))
        if position < len(self._sorted) and int(self._sorted[position]) == lesson_id:
            return int(self._order[position])
        return None

    def set(self, lesson_id: int, slot: int) -> None:
        if self.get(lesson_id) is None:
            self._count += 1
        self._changed[lesson_id] = slot

    def pop(self, lesson_id: int) -> int | None:
        slot = self.get(lesson_id)
        if slot is not None:
            self._changed[lesson_id] = self._GONE
            self._count -= 1
        return slot

    def __len__(self) -> int:
        return self._count

    def __contains__(self, lesson_id: object) -> bool:
        return isinstance(lesson_id, int) and self.get(lesson_id) is not None


@attrs.frozen
class Compaction:
    """What compaction reads, copied: safe to fold on another thread."""

    base: Snapshot
    base_slots: int
    base_terms: int
    ids: Int64Array
    log_trust: FloatArray
    anchor: FloatArray
    scope: IntArray
    ranked: npt.NDArray[np.bool_]
    extra_forward: dict[int, IntArray]
    extra_hashes: list[int]
    pinned_ids: Int64Array
    pinned_rows: list[tuple[int, frozenset[int]]]
    scopes: list[str]

    def __call__(self) -> Snapshot:
        """Fold base and delta into one compact snapshot (numpy; releases the GIL often)."""
        base = self.base
        all_hashes = np.concatenate(
            [np.asarray(base.vocab, np.uint64), np.array(self.extra_hashes, dtype=np.uint64)]
        )
        live = np.flatnonzero(self.ranked)
        # Forward lists of the live ranked slots, then of the pinned lessons.
        base_live = live[live < self.base_slots]
        extra_live = live[live >= self.base_slots]
        starts = base.forward_offsets[base_live]
        lengths = base.forward_offsets[base_live + 1] - starts
        gather = np.repeat(starts - np.cumsum(np.concatenate([[0], lengths[:-1]])), lengths)
        gather += np.arange(int(lengths.sum()))
        parts = [np.asarray(base.forward, np.int32)[gather]] if len(gather) else []
        part_lengths = [lengths]
        extra_lists = [self.extra_forward[int(slot)] for slot in extra_live.tolist()]
        parts.extend(extra_lists)
        part_lengths.append(np.array([len(item) for item in extra_lists], dtype=np.int64))
        pinned_lists = [np.array(sorted(terms), dtype=np.int32) for _, terms in self.pinned_rows]
        parts.extend(pinned_lists)
        part_lengths.append(np.array([len(item) for item in pinned_lists], dtype=np.int64))
        old_terms = np.concatenate(parts) if parts else empty_array(np.int32)
        lengths_all = np.concatenate(part_lengths).astype(np.int64)
        # The new vocabulary: the terms still used, sorted by hash.
        used = np.unique(old_terms)
        vocab = all_hashes[used]
        order = np.argsort(vocab)
        vocab = vocab[order]
        remap = np.zeros(len(all_hashes), dtype=np.int32)
        remap[used[order]] = np.arange(len(used), dtype=np.int32)
        forward = remap[old_terms]
        forward_offsets = np.concatenate([[0], np.cumsum(lengths_all)]).astype(np.int64)
        slot_count = len(live) + len(self.pinned_ids)
        ranked_count = len(live)
        # Postings: (term, slot) pairs of the ranked slots, grouped by term.
        ranked_terms = forward[: int(forward_offsets[ranked_count])]
        ranked_slots = np.repeat(
            np.arange(ranked_count, dtype=np.int32), lengths_all[:ranked_count]
        )
        by_term = np.argsort(ranked_terms, kind="stable")
        postings = ranked_slots[by_term].astype(np.int32)
        counts = np.bincount(ranked_terms, minlength=len(vocab))
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        pinned_scope = np.array([code for code, _ in self.pinned_rows], dtype=np.int32)
        flags = np.zeros(slot_count, np.uint8)
        flags[ranked_count:] = PINNED_FLAG
        return Snapshot(
            ids=np.concatenate([self.ids[live], self.pinned_ids]).astype(np.int64),
            log_trust=np.concatenate([self.log_trust[live], np.zeros(len(self.pinned_ids))]),
            anchor=np.concatenate([self.anchor[live], np.zeros(len(self.pinned_ids))]),
            scope=np.concatenate([self.scope[live], pinned_scope]).astype(np.int32),
            flags=flags,
            vocab=vocab.astype(np.uint64),
            offsets=offsets,
            postings=postings,
            forward_offsets=forward_offsets,
            forward=forward.astype(np.int32),
            scopes=list(self.scopes),
        )


def empty_snapshot() -> Snapshot:
    return Snapshot(
        ids=empty_array(np.int64),
        log_trust=np.zeros(0),
        anchor=np.zeros(0),
        scope=empty_array(np.int32),
        flags=empty_array(np.uint8),
        vocab=empty_array(np.uint64),
        offsets=np.zeros(1, np.int64),
        postings=empty_array(np.int32),
        forward_offsets=np.zeros(1, np.int64),
        forward=empty_array(np.int32),
        scopes=[],
    )


def build_snapshot(lessons: Iterable[IndexedLesson]) -> Snapshot:
    """A compact base from lessons (start-up without a snapshot, or a rebuild)."""
    scopes: dict[str, int] = {}
    ids: list[int] = []
    log_trust: list[float] = []
    anchors: list[float] = []
    scope_codes: list[int] = []
    flags: list[int] = []
    lengths: list[int] = []
    hashes: list[int] = []
    pinned: list[IndexedLesson] = []
    for lesson in lessons:
        if lesson.pinned:
            pinned.append(lesson)
            continue
        _append(lesson, scopes, ids, log_trust, anchors, scope_codes, flags, lengths, hashes)
    ranked_count = len(ids)
    for lesson in pinned:
        _append(lesson, scopes, ids, log_trust, anchors, scope_codes, flags, lengths, hashes)
    all_hashes = np.array(hashes, dtype=np.uint64)
    vocab, inverse = np.unique(all_hashes, return_inverse=True)
    forward: IntArray = inverse.astype(np.int32).reshape(-1)
    lengths_array = np.array(lengths, dtype=np.int64)
    forward_offsets = np.concatenate([[0], np.cumsum(lengths_array)]).astype(np.int64)
    ranked_terms = forward[: int(forward_offsets[ranked_count])]
    ranked_slots = np.repeat(np.arange(ranked_count, dtype=np.int32), lengths_array[:ranked_count])
    by_term = np.argsort(ranked_terms, kind="stable")
    counts = np.bincount(ranked_terms, minlength=len(vocab))
    return Snapshot(
        ids=np.array(ids, dtype=np.int64),
        log_trust=np.array(log_trust, dtype=np.float64),
        anchor=np.array(anchors, dtype=np.float64),
        scope=np.array(scope_codes, dtype=np.int32),
        flags=np.array(flags, dtype=np.uint8),
        vocab=vocab.astype(np.uint64),
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        postings=ranked_slots[by_term].astype(np.int32),
        forward_offsets=forward_offsets,
        forward=forward,
        scopes=list(scopes),
    )


def _append(
    lesson: IndexedLesson,
    scopes: dict[str, int],
    ids: list[int],
    log_trust: list[float],
    anchors: list[float],
    scope_codes: list[int],
    flags: list[int],
    lengths: list[int],
    hashes: list[int],
) -> None:
    unique = HASHES.of_lesson(lesson)
    ids.append(lesson.id)
    log_trust.append(math.log2(max(lesson.trust, 1e-9)))
    anchors.append(lesson.anchor)
    scope_codes.append(scopes.setdefault(lesson.scope, len(scopes)))
    flags.append(PINNED_FLAG if lesson.pinned else 0)
    lengths.append(len(unique))
    hashes.extend(unique)
