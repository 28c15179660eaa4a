"""The recall index: exact, vectorised ranking of every lesson, without touching SQLite.

Why not ask SQLite's FTS5? A query of common words matches tens of thousands of
lessons and ranking them all in SQL costs milliseconds. Why not walk the posting
lists by trust and stop early (what this index did before)? The walk was exact
only when it ran to the end; in pure Python it could not, so a budget cut it
short on about one query in five. Here nothing is cut: every lesson that holds a
query term is scored, in numpy, in well under a millisecond at 50,000 lessons.

Layout:

* A lesson lives in a dense **slot**. Per slot: its id, ``log2(trust)``, the
  anchor its decay runs from, its scope's code, and its **key**
  ``log2(trust) + anchor / half_life``. Effective confidence at ``now`` is
  ``2 ** (key - now / half_life)``: decay is exponential with one half-life for
  every lesson, so crediting a task moves exactly one key and nothing is re-sorted.
* A term is a 64-bit hash of its text (the index holds no text); each term has a
  posting list of slots (``int32``). The lists of the *base* (built at once, or
  mapped from a snapshot) are one CSR array; what changed since lives in a small
  *delta* (appended slots, their postings, document-frequency corrections) until
  it is compacted into a new base.
* A lesson's trigger terms are indexed under their hash; the terms only its
  guidance holds, under a second key of the same term (``HASHES.guidance``): two
  posting lists per term, as search engines keep one per field.
* Recall adds each query term's IDF weight into a dense score array at its
  postings' slots (at :data:`GUIDANCE_WEIGHT` of it through the guidance key);
  relevance is the share of the query's weight a lesson covers.
  Then the floors (:data:`MIN_RELEVANCE`, the minimum confidence, the scopes), the
  score ``relevance ** 4 × confidence ** 0.5`` (:data:`RELEVANCE_POWER`), and the
  top ``k`` by ``argpartition``.

Pinned lessons are not ranked (they come first, capped, see :meth:`pinned`).
Not thread-safe: the caller locks.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from .entries import Hit, IndexedLesson
from .layout import (
    HASHES,
    PINNED_FLAG,
    Compaction,
    Int64Array,
    IntArray,
    SlotMap,
    Snapshot,
    build_snapshot,
    empty_array,
    empty_snapshot,
    term_hash,
)
from .ranking import (
    CONFIDENCE_POWER,
    EXPANSION_SHARE,
    GUIDANCE_WEIGHT,
    MIN_RELEVANCE,
    RELEVANCE_POWER,
    QueryTerm,
    Ranking,
)

__all__ = [
    "CONFIDENCE_POWER",
    "EXPANSION_SHARE",
    "GUIDANCE_WEIGHT",
    "MIN_RELEVANCE",
    "RELEVANCE_POWER",
    "Hit",
    "IndexedLesson",
    "RecallIndex",
    "Snapshot",
    "build_snapshot",
    "term_hash",
]


class RecallIndex(Ranking):
    """Every lesson's slot, key and terms; recall by dense score accumulation."""

    def __init__(self, half_life_days: float) -> None:
        self._half_life_s = half_life_days * 86_400.0
        self.rev = -1
        """The lesson log revision this index reflects (kept by its owner)."""
        self.snapshot_rev = -1
        """The revision of the base this index was built from or mapped (its last compaction)."""
        self.mutations = 0
        """Bumped on every change: a compaction may swap in its result only if none happened."""
        self._load(empty_snapshot())

    # -- state ---------------------------------------------------------------- #

    def _load(self, snap: Snapshot) -> None:
        slots = len(snap.ids)
        capacity = max(16, slots + slots // 8)
        self._base = snap
        self._ids = np.zeros(capacity, np.int64)
        self._ids[:slots] = snap.ids
        self._log_trust = np.zeros(capacity, np.float64)
        self._log_trust[:slots] = snap.log_trust
        self._anchor = np.zeros(capacity, np.float64)
        self._anchor[:slots] = snap.anchor
        self._scope = np.zeros(capacity, np.int32)
        self._scope[:slots] = snap.scope
        ranked = np.zeros(capacity, bool)
        ranked[:slots] = (snap.flags & PINNED_FLAG) == 0
        self._ranked = ranked
        """Slots recall may return: alive and unpinned."""
        self._keys = np.full(capacity, -np.inf)
        self._slots = slots
        self._base_slots = slots
        self._base_terms = len(snap.vocab)
        self._base_df = np.diff(snap.offsets)
        self._scopes = list(snap.scopes)
        self._scope_code = {name: code for code, name in enumerate(self._scopes)}
        pinned_slots = np.flatnonzero(~ranked[:slots])
        self._slot_of = SlotMap(snap.ids, snap.ids[pinned_slots].tolist())
        """lesson id -> slot; -1 for a pinned lesson (not ranked, so no slot)"""
        self._nterms = np.zeros(capacity, np.int32)
        self._nterms[:slots] = np.diff(snap.forward_offsets)
        self._extra_vocab: dict[int, int] = {}
        self._extra_hashes: list[int] = []
        self._extra_postings: dict[int, list[int]] = {}
        self._extra_arrays: dict[int, IntArray] = {}
        self._extra_forward: dict[int, IntArray] = {}
        self._df_delta: Counter[int] = Counter()
        self._pinned: dict[int, tuple[int, frozenset[int]]] = {}
        self._dense: dict[int, npt.NDArray[np.uint8]] = {}
        self._scope_masks: dict[tuple[tuple[int, ...], int], npt.NDArray[np.bool_]] = {}
        self._layout = 0
        """Bumped when a slot is added or retired (cached masks depend on it)."""
        self._trusted: Int64Array | None = None
        self._per_scope: Counter[int] = Counter()
        self._changed_slots = 0
        codes, counts = np.unique(snap.scope, return_counts=True)
        self._per_scope.update(dict(zip(codes.tolist(), counts.tolist(), strict=True)))
        for slot in pinned_slots.tolist():
            lesson_id = int(snap.ids[slot])
            terms = frozenset(self._forward(slot).tolist())
            self._pinned[lesson_id] = (int(snap.scope[slot]), terms)
        self._ranked_count = int(ranked[:slots].sum())
        self._recompute_keys()

    def _recompute_keys(self) -> None:
        used = slice(0, self._slots)
        keys = self._log_trust[used] + self._anchor[used] / self._half_life_s
        self._keys[used] = np.where(self._ranked[used], keys, -np.inf)
        self._max_key = float(self._keys[used].max()) if self._slots else -math.inf
        """At least the highest key of any ranked lesson (an upper bound on confidence)."""

    def _set_key(self, slot: int, key: float) -> None:
        self._keys[slot] = key
        self._max_key = max(self._max_key, key)

    @property
    def half_life_days(self) -> float:
        return self._half_life_s / 86_400.0

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, lesson_id: object) -> bool:
        return lesson_id in self._slot_of

    @property
    def delta_size(self) -> int:
        """Slots appended or retired since the base: what compaction would fold in."""
        return self._changed_slots

    def _forward(self, slot: int) -> IntArray:
        if slot < self._base_slots:
            start, end = self._base.forward_offsets[slot], self._base.forward_offsets[slot + 1]
            return self._base.forward[start:end]
        found: IntArray = self._extra_forward.get(slot, empty_array(np.int32))
        return found

    # -- terms ----------------------------------------------------------------- #

    def _lookup(self, hashes: Sequence[int]) -> list[int]:
        """Term indexes of known hashes (-1 for a term no lesson ever had)."""
        if not hashes:
            return []
        vocab = self._base.vocab
        wanted = np.array(hashes, dtype=np.uint64)
        found = np.searchsorted(vocab, wanted)
        result: list[int] = []
        for position, value, hashed in zip(found.tolist(), wanted.tolist(), hashes, strict=True):
            if position < len(vocab) and int(vocab[position]) == value:
                result.append(position)
            else:
                result.append(self._extra_vocab.get(hashed, -1))
        return result

    def _intern(self, hashes: Sequence[int]) -> list[int]:
        """Term indexes, adding unknown terms to the delta vocabulary."""
        indexes = self._lookup(hashes)
        for position, known in enumerate(indexes):
            if known < 0:
                hashed = hashes[position]
                added = self._base_terms + len(self._extra_hashes)
                self._extra_hashes.append(hashed)
                self._extra_vocab[hashed] = added
                indexes[position] = added
        return indexes

    def df(self, term_index: int) -> int:
        """How many ranked lessons hold the term."""
        base = int(self._base_df[term_index]) if term_index < self._base_terms else 0
        return base + self._df_delta.get(term_index, 0)

    def _idf(self, document_frequency: int) -> float:
        total = max(1, self._ranked_count)
        return math.log(1.0 + total / (1.0 + document_frequency)) + 0.05

    # -- maintenance ------------------------------------------------------------ #

    def _scope_of(self, scope: str) -> int:
        code = self._scope_code.get(scope)
        if code is None:
            code = self._scope_code[scope] = len(self._scopes)
            self._scopes.append(scope)
        return code

    def _grow(self) -> None:
        capacity = len(self._ids) * 2
        for name in ("_ids", "_log_trust", "_anchor", "_scope", "_ranked", "_keys", "_nterms"):
            old = getattr(self, name)
            fill = -np.inf if name == "_keys" else 0
            new = np.full(capacity, fill, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def upsert(self, lesson: IndexedLesson) -> None:
        """Add a lesson, or change what changed about it (usually only its key)."""
        self.mutations += 1
        hashes = HASHES.of_lesson(lesson)
        slot = self._slot_of.get(lesson.id)
        code = self._scope_of(lesson.scope)
        log_trust = math.log2(max(lesson.trust, 1e-9))
        if slot is not None and not lesson.pinned and bool(self._ranked[slot]):
            same_terms = set(self._lookup(hashes)) == set(self._forward(slot).tolist())
            if same_terms and int(self._scope[slot]) == code:
                # Credit, decay anchor, confidence: one key moves, nothing else.
                self._log_trust[slot] = log_trust
                self._anchor[slot] = lesson.anchor
                self._set_key(slot, log_trust + lesson.anchor / self._half_life_s)
                return
        self.remove(lesson.id)
        self.mutations += 1
        indexes = self._intern(hashes)
        self._per_scope[code] += 1
        if lesson.pinned:
            self._pinned[lesson.id] = (code, frozenset(indexes))
            self._slot_of.set(lesson.id, -1)
            return
        if self._slots >= len(self._ids):
            self._grow()
        slot = self._slots
        self._slots += 1
        self._changed_slots += 1
        self._layout += 1
        self._ids[slot] = lesson.id
        self._log_trust[slot] = log_trust
        self._anchor[slot] = lesson.anchor
        self._scope[slot] = code
        self._ranked[slot] = True
        self._set_key(slot, log_trust + lesson.anchor / self._half_life_s)
        self._slot_of.set(lesson.id, slot)
        self._ranked_count += 1
        forward = np.array(sorted(indexes), dtype=np.int32)
        self._extra_forward[slot] = forward
        self._nterms[slot] = len(forward)
        for index in forward.tolist():
            self._extra_postings.setdefault(index, []).append(slot)
            self._extra_arrays.pop(index, None)
            self._df_delta[index] += 1

    def remove(self, lesson_id: int) -> None:
        slot = self._slot_of.pop(lesson_id)
        if slot is None:
            return
        self.mutations += 1
        if slot < 0:
            code, _ = self._pinned.pop(lesson_id)
            self._per_scope[code] -= 1
            return
        self._per_scope[int(self._scope[slot])] -= 1
        self._changed_slots += 1
        self._layout += 1
        self._ranked[slot] = False
        self._keys[slot] = -np.inf
        self._ranked_count -= 1
        for index in self._forward(slot).tolist():
            self._df_delta[index] -= 1

    def rebuild(
        self, lessons: Iterable[IndexedLesson], half_life_days: float | None = None
    ) -> None:
        """Replace the whole index with these lessons (a new base, no delta)."""
        if half_life_days is not None:
            self._half_life_s = half_life_days * 86_400.0
        self._load(build_snapshot(lessons))
        self.mutations += 1

    def set_half_life(self, half_life_days: float) -> None:
        if abs(half_life_days * 86_400.0 - self._half_life_s) > 1e-6:
            self._half_life_s = half_life_days * 86_400.0
            self._recompute_keys()
            self.mutations += 1

    def count(self, scopes: Sequence[str]) -> int:
        """How many lessons the scopes hold (kept as counters: no scan)."""
        return sum(self._per_scope[self._scope_code[s]] for s in scopes if s in self._scope_code)

    # -- snapshots ---------------------------------------------------------------- #

    def load(self, snapshot: Snapshot, rev: int) -> None:
        """Take ``snapshot`` (e.g. mapped from a file) as the base, tagged ``rev``."""
        self._load(snapshot)
        self.rev = self.snapshot_rev = rev
        self.mutations += 1

    def compact(self) -> Snapshot:
        """The index as one compact base: retired slots dropped, the delta folded in.

        Pure numpy on arrays that no one mutates in place (the base) or that are
        copied here (slot arrays), so the caller may run it off its lock only if
        it copies first; :meth:`frozen` does that.
        """
        return self.frozen()()

    def frozen(self) -> Compaction:
        """A copy of what compaction needs, cheap to take under the caller's lock."""
        slots = self._slots
        pinned_ids = np.array(sorted(self._pinned), dtype=np.int64)
        pinned_rows = [self._pinned[lesson_id] for lesson_id in pinned_ids.tolist()]
        return Compaction(
            base=self._base,
            base_slots=self._base_slots,
            base_terms=self._base_terms,
            ids=self._ids[:slots].copy(),
            log_trust=self._log_trust[:slots].copy(),
            anchor=self._anchor[:slots].copy(),
            scope=self._scope[:slots].copy(),
            ranked=self._ranked[:slots].copy(),
            extra_forward=dict(self._extra_forward),
            extra_hashes=list(self._extra_hashes),
            pinned_ids=pinned_ids,
            pinned_rows=pinned_rows,
            scopes=list(self._scopes),
        )

    # -- queries ----------------------------------------------------------------- #

    def pinned(self, scopes: Sequence[str], query_terms: Sequence[str], limit: int) -> list[Hit]:
        """Pinned lessons in scope: the ones the query touches most first, then the newest.

        "Most" weighs a query term in a pinned lesson's guidance only at
        :data:`GUIDANCE_WEIGHT`, as ranking does.
        """
        allowed = {self._scope_code[s] for s in scopes if s in self._scope_code}
        found = self._lookup([key for term in query_terms for key in HASHES.both(term)])
        in_trigger = {index for index in found[::2] if index >= 0}
        in_guidance = {index for index in found[1::2] if index >= 0}
        ranked = sorted(
            (
                (
                    len(in_trigger & term_indexes)
                    + GUIDANCE_WEIGHT * len(in_guidance & term_indexes),
                    lesson_id,
                )
                for lesson_id, (code, term_indexes) in self._pinned.items()
                if code in allowed
            ),
            reverse=True,
        )
        return [Hit(lesson_id, 1.0, 0.0, 1.0, pinned=True) for _, lesson_id in ranked[:limit]]

    def _query(self, query_terms: Sequence[str]) -> tuple[list[QueryTerm], float]:
        """The query's terms with their keys' weights, and its whole weight (sum of IDFs)."""
        query = self._keyed([(term, 1.0) for term in dict.fromkeys(query_terms)])
        return query, sum(term.idf for term in query)

    def search(
        self,
        query_terms: Sequence[str],
        scopes: Sequence[str],
        *,
        limit: int,
        now: float,
        min_confidence: float = 0.0,
        expansion: Sequence[tuple[str, float]] = (),
    ) -> list[Hit]:
        """The ``limit`` best unpinned lessons for the query, by relevance and confidence.

        ``expansion`` are learned associations (term, strength 0..1) of the query's
        terms. They never lift a lesson over one that really matches: a lesson found
        only through them (its own relevance under the floor) is ranked after every
        real match, and only fills places the real matches left. Its relevance is
        its real share plus at most :data:`EXPANSION_SHARE` from the associations.
        """
        if limit <= 0:
            return []
        query, total = self._query(query_terms)
        if not query and not expansion:
            return []
        allowed = [self._scope_code[s] for s in scopes if s in self._scope_code]
        floor = math.log2(min_confidence) if min_confidence > 0 else -math.inf
        now_term = now / self._half_life_s
        hits: list[Hit] = []
        if query:
            slots, relevance, log_conf = self._exact(query, total, allowed, floor, now_term, limit)
            hits = self._top(slots, relevance, log_conf, limit, expanded=False)
        if expansion and len(hits) < limit:
            hits.extend(
                self._expanded(query, total, expansion, allowed, floor, now_term, limit - len(hits))
            )
        return hits

    def similar(
        self, query_terms: Sequence[str], scopes: Sequence[str], threshold: float, limit: int = 20
    ) -> list[int]:
        """Lessons whose terms overlap ``query_terms`` by Dice ≥ ``threshold``, closest first.

        Exact for the overlap (every lesson sharing a term is counted), so the merge
        path looks at the closest candidates, not the first few a text search ranks.
        Pinned lessons are compared directly (there are few).
        """
        distinct = set(query_terms)
        keys = sorted({key for term in distinct for key in HASHES.both(term)})
        indexes = [index for index in self._lookup(keys) if index >= 0]
        size = len(distinct)
        if not size:
            return []
        allowed = {self._scope_code[s] for s in scopes if s in self._scope_code}
        found: list[tuple[float, int]] = []
        if indexes:
            shared = np.zeros(self._slots, np.float64)
            self._accumulate(dict.fromkeys(indexes, 1.0), shared)
            candidates = np.flatnonzero(shared >= threshold * (size + 1) / 2.0)
            candidates = candidates[self._ranked[candidates]]
            if len(candidates):
                dice = 2.0 * shared[candidates] / (self._nterms[candidates] + size)
                keep = dice >= threshold
                found.extend(
                    (overlap, int(self._ids[slot]))
                    for overlap, slot in zip(
                        dice[keep].tolist(), candidates[keep].tolist(), strict=True
                    )
                    if int(self._scope[slot]) in allowed
                )
        wanted = set(indexes)
        for lesson_id, (code, term_indexes) in self._pinned.items():
            if code in allowed and term_indexes:
                overlap = 2.0 * len(wanted & term_indexes) / (len(term_indexes) + size)
                if overlap >= threshold:
                    found.append((overlap, lesson_id))
        found.sort(key=lambda item: (-item[0], -item[1]))
        return [lesson_id for _, lesson_id in found[:limit]]
