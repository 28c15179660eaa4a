"""How the recall index ranks: exact top-k by dense accumulation, pruned "max-score" style.

A mixin of :class:`comodor.brain.recall.index.RecallIndex` (which owns the arrays these
methods read): the ranking formula and its floors, and the work that keeps it
under a millisecond at 50,000 lessons without ever giving up exactness (see
:meth:`Ranking._exact`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .entries import Hit
from .layout import HASHES, FloatArray, Int64Array, IntArray, Snapshot

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
DENSE_CACHE = 256
"""Common terms whose membership is a cached bitmap (at most this many, N/8 bytes each)."""
EXPANSION_SHARE = 0.5
"""The most relevance learned associations alone can give a lesson (see :meth:`search`)."""
GUIDANCE_WEIGHT = 0.5
"""What a query term is worth in a lesson whose guidance only holds it (trigger: 1).

The trigger says when a lesson applies; its guidance, what to do then. Without
this, "running the billing tests" found "linting the billing tests: use ``npm
run lint``" exactly as relevant as "running the billing tests: …" (every query
word is in both), and planted trusted lessons were found 0.95 of the time among
20,000 near misses; at 0.5, 1.00 (ordinary trust: 0.85 -> 0.985;
``bench/recall_quality.py``, two seeds; 0.7 gave 0.94 ordinary, 0.85 gave 0.90).
Half, as search engines weigh a document's body below its title: guidance words
still count, and find a lesson no trigger word names."""


class QueryTerm(NamedTuple):
    """One term of a query: its IDF, and the weight of each of its keys the index has."""

    idf: float
    keys: tuple[tuple[int, float], ...]
    """(term index, weight): the trigger key at ``idf``, the guidance key at less."""


def _key_weights(query: Sequence[QueryTerm]) -> dict[int, float]:
    return {index: weight for term in query for index, weight in term.keys}


class Ranking:
    """The ranking half of the recall index (its state is declared by ``RecallIndex``)."""

    _slots: int
    _base: Snapshot
    _base_terms: int
    _base_slots: int
    _extra_postings: dict[int, list[int]]
    _extra_arrays: dict[int, IntArray]
    _dense: dict[int, npt.NDArray[np.uint8]]
    _ranked: npt.NDArray[np.bool_]
    _scope: IntArray
    _scopes: list[str]
    _scope_masks: dict[tuple[tuple[int, ...], int], npt.NDArray[np.bool_]]
    _layout: int
    _keys: FloatArray
    _trusted: Int64Array | None
    _max_key: float
    _ids: Int64Array

    def _lookup(self, hashes: Sequence[int]) -> list[int]:
        raise NotImplementedError

    def df(self, term_index: int) -> int:
        raise NotImplementedError

    def _idf(self, document_frequency: int) -> float:
        raise NotImplementedError

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
                bits = self._dense.pop(index, None)  # re-inserted: the cache is LRU
                if bits is None:
                    if len(self._dense) >= DENSE_CACHE:
                        self._dense.pop(next(iter(self._dense)))
                    dense = np.zeros(self._base_slots + 1, bool)
                    dense[base.postings[start:end]] = True
                    bits = np.packbits(dense)
                self._dense[index] = bits
                inside = np.minimum(slots, self._base_slots)
                found |= ((bits[inside >> 3] >> (7 - (inside & 7))) & 1).astype(bool)
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
        ok: tuple[npt.NDArray[np.bool_], float],
        total: float,
        now_term: float,
        limit: int,
    ) -> float:
        """The k-th best partial score among ``slots``: a lower bound on the final k-th.

        ``ok`` is the in-scope mask and the least key: tested at ``slots`` only.
        """
        in_scope, least_key = ok
        slots = slots[in_scope[slots] & (self._keys[slots] >= least_key)]
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
        query: Sequence[QueryTerm],
        total: float,
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

        A term is one item with both its keys (trigger and guidance): a lesson holds
        at most one of them, so the term's IDF bounds what it can add.
        """
        items = sorted(query, key=lambda term: term.idf)  # commonest first
        sizes = [
            sum(len(p) for index, _ in term.keys for p in self._postings(index)) for term in items
        ]
        scores = np.zeros(self._slots, np.float64)
        first = len(items) - 1  # items[first:] are scattered in the probe
        probed = sizes[first]
        while first > 0 and probed + sizes[first - 1] <= PROBE_POSTINGS:
            first -= 1
            probed += sizes[first]
        self._accumulate(_key_weights(items[first:]), scores)
        keys = self._keys[: self._slots]
        in_scope = self._in_scope(allowed)
        ok = (in_scope, floor + now_term)
        floor_score = MIN_RELEVANCE * total * (1.0 - 1e-12)
        kth = self._kth_bound(self._most_trusted(), scores, ok, total, now_term, limit)
        if probed <= PROBE_POSTINGS:
            probe = np.flatnonzero(scores >= floor_score)
            kth = max(kth, self._kth_bound(probe, scores, ok, total, now_term, limit))
        threshold, key_floor = self._floors(kth, floor_score, floor + now_term, total, now_term)
        # The commonest terms that together cannot reach the threshold: looked up only.
        lookup_weight = 0.0
        essential = 0
        while essential < first and lookup_weight + items[essential].idf < threshold:
            lookup_weight += items[essential].idf
            essential += 1
        if essential < first:
            self._accumulate(_key_weights(items[essential:first]), scores)
            # The most trusted lessons now have (nearly) their whole relevance: a
            # much better bound for a query of common words only.
            kth = max(
                kth, self._kth_bound(self._most_trusted(), scores, ok, total, now_term, limit)
            )
            threshold, key_floor = self._floors(kth, threshold, key_floor, total, now_term)
        candidates = np.flatnonzero(scores >= (threshold - lookup_weight) * (1.0 - 1e-12))
        # key_floor is at least floor + now_term (see _floors): one test for both.
        candidates = candidates[in_scope[candidates] & (keys[candidates] >= key_floor)]
        log_conf = keys[candidates] - now_term
        exact = scores[candidates]
        # Heaviest looked-up term first; after each, drop the candidates that cannot
        # reach the threshold even with every term still to look up.
        remaining = lookup_weight
        for term in reversed(items[:essential]):
            remaining -= term.idf
            if len(candidates):
                for index, weight in term.keys:
                    exact += weight * self._holds(index, candidates)
            alive = exact >= (threshold - remaining) * (1.0 - 1e-12)
            if not alive.all():
                candidates, log_conf, exact = candidates[alive], log_conf[alive], exact[alive]
        relevance = exact / total
        keep = relevance >= MIN_RELEVANCE
        return candidates[keep], relevance[keep], log_conf[keep]

    def _expanded(
        self,
        query: Sequence[QueryTerm],
        total: float,
        expansion: Sequence[tuple[str, float]],
        allowed: list[int],
        floor: float,
        now_term: float,
        limit: int,
    ) -> list[Hit]:
        """Lessons under the floor on the query's own terms that associations lift over it."""
        weights = _key_weights(query)
        extra = self._expansion_weights(expansion, weights)
        if not extra:
            return []
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
        for term in self._keyed(expansion):
            for index, weight in term.keys:
                if index not in real:
                    weights[index] = max(weights.get(index, 0.0), weight)
        return weights

    def known(self, candidates: Sequence[str]) -> set[str]:
        """Those of ``candidates`` some lesson holds (an expansion to any other finds nothing)."""
        found = self._lookup([key for term in candidates for key in HASHES.both(term)])
        return {
            term
            for term, trigger_index, guidance_index in zip(
                candidates, found[::2], found[1::2], strict=True
            )
            if (self.df(trigger_index) if trigger_index >= 0 else 0)
            + (self.df(guidance_index) if guidance_index >= 0 else 0)
            > 0
        }

    def _keyed(self, weighted_terms: Sequence[tuple[str, float]]) -> list[QueryTerm]:
        """Each term the index knows (scaled by its factor), with its keys' weights.

        A term's IDF counts every lesson holding it (trigger or guidance); lessons
        holding it in their guidance only are reached through its guidance key, at
        :data:`GUIDANCE_WEIGHT` of that IDF.
        """
        found = self._lookup([key for term, _ in weighted_terms for key in HASHES.both(term)])
        keyed: list[QueryTerm] = []
        for (_, factor), trigger_index, guidance_index in zip(
            weighted_terms, found[::2], found[1::2], strict=True
        ):
            in_trigger = self.df(trigger_index) if trigger_index >= 0 else 0
            in_guidance = self.df(guidance_index) if guidance_index >= 0 else 0
            if in_trigger + in_guidance <= 0:
                continue
            idf = self._idf(in_trigger + in_guidance) * factor
            keys: list[tuple[int, float]] = []
            if in_trigger > 0:
                keys.append((trigger_index, idf))
            if in_guidance > 0:
                keys.append((guidance_index, idf * GUIDANCE_WEIGHT))
            keyed.append(QueryTerm(idf, tuple(keys)))
        return keyed

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
