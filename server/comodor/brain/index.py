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
* Recall adds each query term's IDF weight into a dense score array at its
  postings' slots; relevance is the share of the query's weight a lesson covers.
  Then the floors (:data:`MIN_RELEVANCE`, the minimum confidence, the scopes), the
  score ``relevance ** 4 × confidence ** 0.5`` (:data:`RELEVANCE_POWER`), and the
  top ``k`` by ``argpartition``.

Pinned lessons are not ranked (they come first, capped, see :meth:`pinned`).
Not thread-safe: the caller locks.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from .indexed import Hit, IndexedLesson

__all__ = ["Hit", "IndexedLesson", "RecallIndex", "Snapshot", "build_snapshot", "term_hash"]

MIN_RELEVANCE = 0.2
"""A lesson must cover at least this share of the query's weight to be recalled."""
RELEVANCE_POWER = 4.0
CONFIDENCE_POWER = 0.5
"""Score = relevance ** 4 × confidence ** 0.5: relevance first, trust to break near-ties.

With a plain product, a fresh lesson matching two of three specifics (0.9 trust)
outranked the exact match that had decayed to 0.45, so trusted planted lessons
were found only 69% of the time among 20,000 near misses; with these powers, 95%
(``bench/recall_quality.py``). Untrusted lessons still never surface: the
``min_confidence`` floor comes before any scoring."""
PROBE_POSTINGS = 8_192
"""Postings of the rarest query terms scattered first, to bound the k-th best score."""
TRUSTED_SAMPLE = 2_048
"""The most trusted lessons whose partial scores also bound the k-th best (common queries)."""
DENSE_TERM = 1_024
DENSE_CACHE = 32
"""Common terms whose membership is a cached dense bitmap (at most this many, ~N bytes each)."""
EXPANSION_SHARE = 0.5
"""The most relevance learned associations alone can give a lesson (see :meth:`search`)."""

# numpy's stubs cannot follow dtypes through fancy indexing; the names say what they hold.
IntArray = npt.NDArray[Any]
Int64Array = npt.NDArray[Any]
FloatArray = npt.NDArray[Any]
HashArray = npt.NDArray[Any]

PINNED_FLAG = 1


def term_hash(term: str) -> int:
    """The term's stable 64-bit id (the same in every process and every snapshot)."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little")


class _Hashes:
    """Term -> hash, remembered: a brain has thousands of distinct terms, not millions."""

    def __init__(self) -> None:
        self._known: dict[str, int] = {}

    def __call__(self, term: str) -> int:
        found = self._known.get(term)
        if found is None:
            found = self._known[term] = term_hash(term)
            if len(self._known) > 200_000:
                self._known.clear()
        return found


_HASHES = _Hashes()


def _empty_int(dtype: Any) -> Any:
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
    """Sorted term hashes; a term's index is its position here."""
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


class _SlotMap:
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


class RecallIndex:
    """Every lesson's slot, key and terms; recall by dense score accumulation."""

    def __init__(self, half_life_days: float) -> None:
        self._half_life_s = half_life_days * 86_400.0
        self.rev = -1
        """The lesson log revision this index reflects (kept by its owner)."""
        self.snapshot_rev = -1
        """The revision of the base this index was built from or mapped (its last compaction)."""
        self.mutations = 0
        """Bumped on every change: a compaction may swap in its result only if none happened."""
        self._load(_empty_snapshot())

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
        self._slot_of = _SlotMap(snap.ids, snap.ids[pinned_slots].tolist())
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
        self._dense: dict[int, npt.NDArray[np.bool_]] = {}
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
        found: IntArray = self._extra_forward.get(slot, _empty_int(np.int32))
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
        hashes = sorted({_HASHES(term) for term in lesson.terms})
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

    def frozen(self) -> _Compaction:
        """A copy of what compaction needs, cheap to take under the caller's lock."""
        slots = self._slots
        pinned_ids = np.array(sorted(self._pinned), dtype=np.int64)
        pinned_rows = [self._pinned[lesson_id] for lesson_id in pinned_ids.tolist()]
        return _Compaction(
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
        """Pinned lessons in scope: the ones the query touches first, then the newest."""
        allowed = {self._scope_code[s] for s in scopes if s in self._scope_code}
        wanted = {index for index in self._lookup([_HASHES(t) for t in query_terms]) if index >= 0}
        ranked = sorted(
            (
                (len(wanted & term_indexes), lesson_id)
                for lesson_id, (code, term_indexes) in self._pinned.items()
                if code in allowed
            ),
            reverse=True,
        )
        return [Hit(lesson_id, 1.0, 0.0, 1.0, pinned=True) for _, lesson_id in ranked[:limit]]

    def _weights(self, query_terms: Sequence[str]) -> dict[int, float]:
        weights: dict[int, float] = {}
        hashes = [_HASHES(term) for term in query_terms]
        for index in self._lookup(hashes):
            if index < 0 or index in weights:
                continue
            frequency = self.df(index)
            if frequency > 0:
                weights[index] = self._idf(frequency)
        return weights

    def _postings(self, index: int) -> list[IntArray]:
        """The term's posting lists (base, then delta), each sorted by slot."""
        lists: list[IntArray] = []
        if index < self._base_terms:
            base = self._base
            lists.append(base.postings[base.offsets[index] : base.offsets[index + 1]])
        extra = self._extra_postings.get(index)
        if extra:
            array = self._extra_arrays.get(index)
            if array is None:
                array = self._extra_arrays[index] = np.array(extra, dtype=np.int32)
            lists.append(array)
        return lists

    def _holds(self, index: int, slots: Int64Array) -> npt.NDArray[np.bool_]:
        """Whether each of ``slots`` (sorted) holds the term.

        Common terms' base lists are turned into a dense bitmap once (cached): a
        gather is far cheaper than a binary search of thousands of slots in them.
        """
        found = np.zeros(len(slots), bool)
        if index < self._base_terms:
            base = self._base
            start, end = int(base.offsets[index]), int(base.offsets[index + 1])
            if end - start >= max(DENSE_TERM, self._base_slots // 32):
                dense = self._dense.get(index)
                if dense is None:
                    if len(self._dense) >= DENSE_CACHE:
                        self._dense.pop(next(iter(self._dense)))
                    dense = np.zeros(self._base_slots + 1, bool)
                    dense[base.postings[start:end]] = True
                    self._dense[index] = dense
                found |= dense[np.minimum(slots, self._base_slots)]
            elif end > start:
                postings = base.postings[start:end]
                at = np.searchsorted(postings, slots)
                at[at == len(postings)] = 0
                found |= postings[at] == slots
        extra = self._postings(index)[1:] if index < self._base_terms else self._postings(index)
        for postings in extra:
            at = np.searchsorted(postings, slots)
            at[at == len(postings)] = 0
            found |= postings[at] == slots
        return found

    def _accumulate(self, weights: dict[int, float], into: FloatArray) -> None:
        for index, weight in weights.items():
            for postings in self._postings(index):
                np.add.at(into, postings, weight)

    def _eligible(
        self, slots: Int64Array, allowed: list[int], floor: float, now_term: float
    ) -> Any:
        """Slots recall may return (ranked, in scope, confident), and their log2 confidence."""
        slots = slots[self._ranked[slots]]
        if len(allowed) < len(self._scopes):
            in_scope = np.zeros(len(self._scopes), bool)
            in_scope[allowed] = True
            slots = slots[in_scope[self._scope[slots]]]
        log_conf = self._keys[slots] - now_term
        keep = log_conf >= floor
        return slots[keep], log_conf[keep]

    def _in_scope(self, allowed: list[int]) -> npt.NDArray[np.bool_]:
        """Dense: ranked slots in these scopes (cached until a slot is added or retired)."""
        key = (tuple(allowed), self._layout)
        mask = self._scope_masks.get(key)
        if mask is None:
            in_scope = np.zeros(max(1, len(self._scopes)), bool)
            in_scope[allowed] = True
            mask = self._ranked[: self._slots] & in_scope[self._scope[: self._slots]]
            if len(self._scope_masks) >= 8:
                self._scope_masks.clear()
            self._scope_masks[key] = mask
        return mask

    def _most_trusted(self) -> Int64Array:
        """About :data:`TRUSTED_SAMPLE` slots of the highest keys (as of the last load)."""
        if self._trusted is None or (len(self._trusted) == 0 and self._slots):
            keys = self._keys[: self._slots]
            count = min(TRUSTED_SAMPLE, self._slots)
            if count < self._slots:
                self._trusted = np.sort(np.argpartition(-keys, count - 1)[:count])
            else:
                self._trusted = np.arange(self._slots)
        return self._trusted

    def _kth_bound(
        self,
        slots: Int64Array,
        scores: FloatArray,
        ok: npt.NDArray[np.bool_],
        total: float,
        now_term: float,
        limit: int,
    ) -> float:
        """The k-th best partial score among ``slots``: a lower bound on the final k-th."""
        slots = slots[ok[slots]]
        partial = scores[slots] / total
        keep = partial >= MIN_RELEVANCE
        if int(keep.sum()) < limit:
            return 0.0
        slots, partial = slots[keep], partial[keep]
        squared = partial * partial
        values = squared * squared * np.exp2((self._keys[slots] - now_term) * CONFIDENCE_POWER)
        return float(np.partition(values, len(values) - limit)[len(values) - limit])

    def _floors(
        self, kth: float, threshold: float, key_floor: float, total: float, now_term: float
    ) -> tuple[float, float]:
        """The least weight and the least key a lesson needs to beat a k-th score of ``kth``."""
        if kth <= 0:
            return threshold, key_floor
        best = 2.0 ** ((self._max_key - now_term) * CONFIDENCE_POWER)
        needed = (kth / best) ** (1.0 / RELEVANCE_POWER) * total * (1.0 - 1e-9)
        least_key = math.log2(kth) / CONFIDENCE_POWER + now_term - 1e-9
        return max(threshold, needed), max(key_floor, least_key)

    def _exact(
        self,
        weights: dict[int, float],
        allowed: list[int],
        floor: float,
        now_term: float,
        limit: int,
    ) -> tuple[Int64Array, FloatArray, FloatArray]:
        """Every lesson that can be in the top ``limit``, with its exact relevance.

        Scattering every posting is exact but costs ~4 ns a posting, and a query of
        common words has tens of thousands; so, still exactly ("max-score", as search
        engines do it):

        1. Scatter the rarest terms' short lists. Among the lessons they lift over
           the floor, and among the most trusted lessons, the k-th best *partial*
           score is a lower bound on the final k-th best (relevance only grows).
        2. That bound implies a least relevance (at the best confidence any lesson
           has) and a least confidence (at full relevance). The commonest terms whose
           weights together stay under the least relevance cannot qualify a lesson
           on their own: their long lists are not scattered, only looked up for the
           candidates that remain, heaviest first, pruning as the bound tightens.
        """
        items = sorted(weights.items(), key=lambda item: item[1])  # commonest first
        total = sum(weights.values())
        sizes = [sum(len(p) for p in self._postings(index)) for index, _ in items]
        scores = np.zeros(self._slots, np.float64)
        first = len(items) - 1  # items[first:] are scattered in the probe
        probed = sizes[first]
        while first > 0 and probed + sizes[first - 1] <= PROBE_POSTINGS:
            first -= 1
            probed += sizes[first]
        self._accumulate(dict(items[first:]), scores)
        keys = self._keys[: self._slots]
        ok = self._in_scope(allowed) & (keys >= floor + now_term)
        floor_score = MIN_RELEVANCE * total * (1.0 - 1e-12)
        kth = self._kth_bound(self._most_trusted(), scores, ok, total, now_term, limit)
        if probed <= PROBE_POSTINGS:
            probe = np.flatnonzero(scores >= floor_score)
            kth = max(kth, self._kth_bound(probe, scores, ok, total, now_term, limit))
        threshold, key_floor = self._floors(kth, floor_score, floor + now_term, total, now_term)
        # The commonest terms that together cannot reach the threshold: looked up only.
        lookup_weight = 0.0
        essential = 0
        while essential < first and lookup_weight + items[essential][1] < threshold:
            lookup_weight += items[essential][1]
            essential += 1
        if essential < first:
            self._accumulate(dict(items[essential:first]), scores)
            # The most trusted lessons now have (nearly) their whole relevance: a
            # much better bound for a query of common words only.
            kth = max(
                kth, self._kth_bound(self._most_trusted(), scores, ok, total, now_term, limit)
            )
            threshold, key_floor = self._floors(kth, threshold, key_floor, total, now_term)
        mask = scores >= (threshold - lookup_weight) * (1.0 - 1e-12)
        mask &= ok
        mask &= keys >= key_floor
        candidates = np.flatnonzero(mask)
        log_conf = keys[candidates] - now_term
        exact = scores[candidates]
        # Heaviest looked-up term first; after each, drop the candidates that cannot
        # reach the threshold even with every term still to look up.
        remaining = lookup_weight
        for index, weight in reversed(items[:essential]):
            remaining -= weight
            if len(candidates):
                exact += weight * self._holds(index, candidates)
            alive = exact >= (threshold - remaining) * (1.0 - 1e-12)
            if not alive.all():
                candidates, log_conf, exact = candidates[alive], log_conf[alive], exact[alive]
        relevance = exact / total
        keep = relevance >= MIN_RELEVANCE
        return candidates[keep], relevance[keep], log_conf[keep]

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
        weights = self._weights(query_terms)
        if not weights and not expansion:
            return []
        allowed = [self._scope_code[s] for s in scopes if s in self._scope_code]
        floor = math.log2(min_confidence) if min_confidence > 0 else -math.inf
        now_term = now / self._half_life_s
        hits: list[Hit] = []
        if weights:
            slots, relevance, log_conf = self._exact(weights, allowed, floor, now_term, limit)
            hits = self._top(slots, relevance, log_conf, limit, expanded=False)
        if expansion and len(hits) < limit:
            hits.extend(
                self._expanded(weights, expansion, allowed, floor, now_term, limit - len(hits))
            )
        return hits

    def _expanded(
        self,
        weights: dict[int, float],
        expansion: Sequence[tuple[str, float]],
        allowed: list[int],
        floor: float,
        now_term: float,
        limit: int,
    ) -> list[Hit]:
        """Lessons under the floor on the query's own terms that associations lift over it."""
        extra = self._expansion_weights(expansion, weights)
        if not extra:
            return []
        total = sum(weights.values())
        real = np.zeros(self._slots, np.float64)
        if weights:
            self._accumulate(weights, real)
            real /= total
        boost = np.zeros(self._slots, np.float64)
        self._accumulate(extra, boost)
        # A real match (over the floor) was ranked already; the rest get its real share
        # plus at most EXPANSION_SHARE from the associations.
        relevance = np.minimum(boost / max(extra.values()), 1.0) * EXPANSION_SHARE
        relevance += np.where(real >= MIN_RELEVANCE * (1.0 - 1e-12), -np.inf, real)
        candidates = np.flatnonzero(relevance >= MIN_RELEVANCE)
        slots, log_conf = self._eligible(candidates, allowed, floor, now_term)
        return self._top(slots, relevance[slots], log_conf, limit, expanded=True)

    def _expansion_weights(
        self, expansion: Sequence[tuple[str, float]], real: dict[int, float]
    ) -> dict[int, float]:
        weights: dict[int, float] = {}
        hashes = [_HASHES(term) for term, _ in expansion]
        for (_, strength), index in zip(expansion, self._lookup(hashes), strict=True):
            if index < 0 or index in real:
                continue
            frequency = self.df(index)
            if frequency > 0:
                weights[index] = max(weights.get(index, 0.0), self._idf(frequency) * strength)
        return weights

    def _top(
        self,
        slots: Int64Array,
        relevance: FloatArray,
        log_conf: FloatArray,
        limit: int,
        *,
        expanded: bool,
    ) -> list[Hit]:
        if not len(slots):
            return []
        squared = relevance * relevance
        score = squared * squared * np.exp2(log_conf * CONFIDENCE_POWER)  # RELEVANCE_POWER 4
        if len(slots) > limit:
            top = np.argpartition(-score, limit - 1)[:limit]
        else:
            top = np.arange(len(slots))
        ids = self._ids[slots[top]]
        chosen = top[np.lexsort((-ids, -score[top]))]  # best first; ties: the newer lesson
        return [
            Hit(int(lesson_id), float(s), float(r), float(c), expanded=expanded)
            for lesson_id, s, r, c in zip(
                self._ids[slots[chosen]].tolist(),
                score[chosen].tolist(),
                relevance[chosen].tolist(),
                np.exp2(log_conf[chosen]).tolist(),
                strict=True,
            )
        ]

    def similar(
        self, query_terms: Sequence[str], scopes: Sequence[str], threshold: float, limit: int = 20
    ) -> list[int]:
        """Lessons whose terms overlap ``query_terms`` by Dice ≥ ``threshold``, closest first.

        Exact for the overlap (every lesson sharing a term is counted), so the merge
        path looks at the closest candidates, not the first few a text search ranks.
        Pinned lessons are compared directly (there are few).
        """
        hashes = sorted({_HASHES(term) for term in query_terms})
        indexes = [index for index in self._lookup(hashes) if index >= 0]
        size = len(hashes)
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


@attrs.frozen
class _Compaction:
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
        old_terms = np.concatenate(parts) if parts else _empty_int(np.int32)
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


def _empty_snapshot() -> Snapshot:
    return Snapshot(
        ids=_empty_int(np.int64),
        log_trust=np.zeros(0),
        anchor=np.zeros(0),
        scope=_empty_int(np.int32),
        flags=_empty_int(np.uint8),
        vocab=_empty_int(np.uint64),
        offsets=np.zeros(1, np.int64),
        postings=_empty_int(np.int32),
        forward_offsets=np.zeros(1, np.int64),
        forward=_empty_int(np.int32),
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
    unique = sorted({_HASHES(term) for term in lesson.terms})
    ids.append(lesson.id)
    log_trust.append(math.log2(max(lesson.trust, 1e-9)))
    anchors.append(lesson.anchor)
    scope_codes.append(scopes.setdefault(lesson.scope, len(scopes)))
    flags.append(PINNED_FLAG if lesson.pinned else 0)
    lengths.append(len(unique))
    hashes.extend(unique)
