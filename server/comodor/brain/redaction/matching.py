"""The engine that runs the catalogue's rules over a text and merges what they find.

Kept apart from :mod:`.redactor` (which writes the markers) so that a rule may ask for
a second opinion on text it decoded (:mod:`.rules.entropy` re-checks what a base64 token
holds) without the catalogue importing the redactor that imports the catalogue.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

import attrs

from .base import MARKER_PREFIX, MARKER_RE, Rule, blocked, indexable
from .views import GUTTER_START

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


@attrs.frozen
class SecretMatch:
    """A secret found in a text: ``text[start:end]`` is what :func:`redact` replaces."""

    kind: str
    start: int
    end: int


_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _lowercase(text: str) -> str:
    """Lowercase *text* without moving any character (so match positions stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered  # no character expanded, so every one stayed in place
    return text.translate(_ASCII_LOWER)


Candidate = tuple[int, int, int, str]


class _Coverage:
    """Answers "does one span found so far contain this one?" in logarithmic time."""

    def __init__(self, found: list[Candidate]) -> None:
        spans = sorted((start, end) for start, end, _, _ in found)
        self._starts = [start for start, _ in spans]
        self._reach: list[int] = []
        reach = -1
        for _, end in spans:
            reach = max(reach, end)
            self._reach.append(reach)

    def covers(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, start)
        return i > 0 and self._reach[i - 1] >= end


# Above this many occurrences of its prefixes, a rule's regex scans the text itself.
_MOST_ANCHORS: Final = 512
# Past this many prefixes to look for with str.find (each a scan of the text: ``SK[0-9a-f]``
# has 16 when the index left 3-character pieces out of a hostile text), a rule's regex scans
# the text itself (measured on the 10 MB inputs of bench/redaction.py: 6-8 is best).
_MOST_SCANS: Final = 8
# How far past a run the engine lets a pattern look (its look-aheads are short).
_RUN_MARGIN: Final = 8


class _Finder:
    """Runs one rule's pattern over a text, searching only where a match can start.

    Equivalent to ``rule.pattern.finditer(subject)``: a rule with literal prefixes is tried
    only where one occurs, and a rule with ``run_chars`` only inside long enough runs of
    those characters. Where the prefixes occur is found for all rules at once (see
    :class:`_Prefixes`) in a long text, with ``str.find`` in a short one.
    """

    def __init__(self, text: str, lowered: str, rules: Sequence[Rule]) -> None:
        self._text = text
        self._lowered = lowered
        self._rules = rules
        self._anchors: dict[tuple[str, bool], list[int] | None] = {}
        self._runs: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self._classes: dict[bytes, npt.NDArray[np.uint8]] = {}
        self._windows: dict[tuple[bytes, int], _Windows] = {}
        self._indexed = len(text) >= _INDEX_FROM
        self._found: dict[str, list[int]] = {}
        self._skipped: set[int] = set()
        # Where the lines that may have a gutter start, found with the prefixes (see
        # views.gutter_view): a regex trying each line of a 5,000-line correction cost 0.3 ms.
        self.gutter_lines: list[int] | None = None
        if self._indexed:
            self._found, self._skipped, self.gutter_lines = _shortcuts(rules).prefixes.find(lowered)

    def live(self) -> Sequence[Rule]:
        """The rules, in order, without those whose every prefix the index says is absent.

        What :meth:`matches` would find nothing for, told for all rules at once: ~150 of the
        catalogue's rules in a 5,000-line correction, each ~0.6 us of generator and set test
        when asked one by one.
        """
        if not self._indexed or self._skipped:
            return self._rules
        keyed = _shortcuts(self._rules).keyed
        dead = set(keyed.rules)
        for key in self._found.keys() & keyed.by_key.keys():
            dead.difference_update(keyed.by_key[key])
        if not dead:
            return self._rules
        return [rule for i, rule in enumerate(self._rules) if i not in dead]

    def matches(self, rule: Rule, subject: str) -> Iterator[re.Match[str]]:
        if rule.run_chars:
            yield from self._in_runs(rule, subject)
            return
        if not rule.needles or rule.scan_whole:
            yield from rule.pattern.finditer(subject)
            return
        # Most rules' prefixes are nowhere in the text: say so with one set operation.
        if (
            rule.index_keys
            and self._indexed
            and not self._skipped
            and self._found.keys().isdisjoint(rule.index_keys)
        ):
            return
        if (self._skipped or not rule.index_keys) and self._scans(rule) > _MOST_SCANS:
            yield from rule.pattern.finditer(subject)
            return
        positions: list[int] = []
        for needle in rule.needles:
            found = self._positions(needle, rule.on_lowercase)
            if found is None:
                yield from rule.pattern.finditer(subject)
                return
            positions += found
        if not positions:
            return
        if len(rule.needles) > 1:
            positions = sorted(set(positions))
        reached = 0
        match = rule.pattern.match
        for position in positions:
            if position < reached:
                continue
            m = match(subject, position)
            if m is not None:
                reached = m.end()
                yield m

    def _scans(self, rule: Rule) -> int:
        """How many of *rule*'s prefixes :meth:`_positions` would look for with ``str.find``.

        Those not looked for yet, and not in the index: too short, or their length left out.
        """
        return sum(
            1
            for needle in rule.needles
            if (needle, rule.on_lowercase) not in self._anchors
            and not (indexable(needle) and min(len(needle), 4) not in self._skipped)
        )

    def _positions(self, needle: str, lowercase: bool) -> list[int] | None:
        """Where *needle* occurs, or ``None`` when it occurs too often to be worth it."""
        key = (needle, lowercase)
        if key in self._anchors:
            return self._anchors[key]
        subject = self._lowered if lowercase else self._text
        positions: list[int] | None
        if self._indexed and indexable(needle) and min(len(needle), 4) not in self._skipped:
            known = self._found.get(needle.lower(), [])
            positions = known if lowercase else [p for p in known if subject.startswith(needle, p)]
            if len(positions) > _MOST_ANCHORS:
                positions = None
        else:
            positions = []
            start = subject.find(needle)
            while start >= 0 and len(positions) <= _MOST_ANCHORS:
                positions.append(start)
                start = subject.find(needle, start + 1)
            if start >= 0:
                positions = None
        self._anchors[key] = positions
        return positions

    def _in_runs(self, rule: Rule, subject: str) -> Iterator[re.Match[str]]:
        """The rule's matches around its runs, as ``finditer`` over the whole text finds them.

        A run failing the rule's ``run_check`` holds no match the rule keeps, so its regex is
        not run -- unless a match there could reach into where the next run's search begins
        (and so move that search on, as ``finditer`` would): then it is run after all.
        """
        reached = 0
        after = rule.run_after
        check = rule.run_check
        skipped: tuple[int, int] | None = None
        for start, end in self._runs_of(rule.run_chars, rule.min_run):
            if after and (start == 0 or subject[start - 1] not in after):
                continue
            if skipped is not None and start - rule.run_lead < skipped[1] + _RUN_MARGIN:
                for m in self._around(rule, subject, skipped, reached):
                    reached = m.end()
                    yield m
            skipped = None
            if check is not None and not check(subject, start, end):
                skipped = (start, end)
                continue
            for m in self._around(rule, subject, (start, end), reached):
                reached = m.end()
                yield m

    @staticmethod
    def _around(
        rule: Rule, subject: str, run: tuple[int, int], reached: int
    ) -> Iterator[re.Match[str]]:
        """The rule's matches around *run*, searched from where the last match ended at most."""
        start, end = run
        begin = max(reached, start - rule.run_lead)
        return rule.pattern.finditer(subject, begin, min(len(subject), end + _RUN_MARGIN))

    def _runs_of(self, chars: str, least: int) -> list[tuple[int, int]]:
        """The maximal runs of *chars* at least *least* long, in order.

        Found once per character set for the shortest run any rule of the set wants; a rule
        wanting longer ones keeps those long enough (bech32 keys want 40, Discord tokens 58).
        Long runs of every set of a translation come from one :class:`_Windows` pass, of the
        table's shortest window: bech32's 40 are the 20-windows' runs that long (a second
        doubling pass for 40 cost ~90 us of a 5,000-line correction).
        """
        key = (chars, least)
        if key not in self._runs:
            table, bit, shortest, window = _shortcuts(self._rules).classes.of(chars, least)
            if shortest < least:
                runs = self._runs_of(chars, shortest)
                self._runs[key] = [(s, e) for s, e in runs if e - s >= least]
            elif least <= _SHORT_RUN:
                self._runs[key] = _short_runs(self._classes_of(table), bit, least)
            else:
                windows = self._windows.get((table, window))
                if windows is None:
                    windows = _Windows.find(self._classes_of(table), window)
                    self._windows[table, window] = windows
                runs = windows.runs(bit, window)
                self._runs[key] = [(s, e) for s, e in runs if e - s >= least]
        return self._runs[key]

    def _classes_of(self, table: bytes) -> npt.NDArray[np.uint8]:
        """The text translated with *table* (see :class:`_RunClasses`)."""
        classes = self._classes.get(table)
        if classes is None:
            import numpy as np

            # One byte per character (non-ASCII ones become "?"), so positions carry over;
            # one translation tells up to eight character sets apart.
            encoded = self._text.encode("ascii", "replace")
            classes = np.frombuffer(encoded.translate(table), dtype=np.uint8)
            self._classes[table] = classes
        return classes


# Runs this short (two digits, ``Tiger10``) are read off the class bytes directly: windows of
# a few characters change at nearly every byte, so :class:`_Windows`' segments would number
# about as many as the text's characters (0.7 ms more for a 5,000-line correction).
_SHORT_RUN: Final = 4


def _short_runs(classes: npt.NDArray[np.uint8], bit: int, least: int) -> list[tuple[int, int]]:
    """The maximal runs of set *bit* in *classes*, *least* long or longer."""
    import numpy as np

    on = np.concatenate(([False], (classes & bit) != 0, [False]))
    edges = np.flatnonzero(on[1:] != on[:-1])
    starts, ends = edges[0::2], edges[1::2]
    keep = ends - starts >= least
    return list(zip(starts[keep].tolist(), ends[keep].tolist(), strict=True))


# Below this length every rule simply scans the text (faster than preparing any shortcut);
# from it on, prefixes are found for all rules in one vectorised pass.
SHORTCUTS_FROM: Final = 2048
_INDEX_FROM: Final = SHORTCUTS_FROM
# A prefix's piece is its first four characters at most, read as one exact number (seven
# bits a character, see :func:`_exact`); three characters make a table index of 21 bits.
_LONGEST_PIECE: Final = 4
_TRIGRAMS: Final = 1 << 21
# The bits of a three-character entry: a piece of this length starts so (a four-character one:
# starts with these three).
_PIECE_BITS: Final = {2: 1, 3: 2, 4: 4}
# The bit of a three-character entry that says a line may have a gutter (see views.py) whose
# first character is the entry's third: after a line break, or blanks after a blank or a break.
_GUTTER_BIT: Final = 8
_BLANKS: Final = b" \t"
# A gutter's first character, as the text is read here: the ASCII ones views.GUTTER_START
# matches, and "?" for any non-ASCII one (a bullet, a digit of another script).
_GUTTER_FIRSTS: Final = (
    bytes(c for c in range(128) if re.fullmatch(GUTTER_START, chr(c)) and chr(c) != "?") + b"?"
)
# Above this many candidate places (or one in 16 characters), the prefixes are searched for
# the old way.
_MOST_HITS: Final = 20_000


class _Prefixes:
    """Every rule's literal prefixes, found in a text in one vectorised pass.

    A text of 5,000 lines would otherwise be scanned once per prefix (~750 of them, ~0.1 ms
    each). Instead each position's first three lower-cased characters, read as one exact
    21-bit number, are looked up in one table (``np.take``) whose bits say which pieces start
    so: a two-character piece (it marks all 128 third characters), a three-character one, the
    first three of a four-character one. One lookup a position, where 16-bit hashes of 2, 3
    and 4 characters took three (0.3 ms of a 5,000-line correction). Found on the lower-cased
    text, so a case-sensitive prefix's positions are a superset that :class:`_Finder` narrows
    down.

    Two and three characters are then known exactly; a four-character piece is checked in
    numpy (see :meth:`_places`) at the places its first three occur. Only a prefix longer than
    its piece is checked with ``str.startswith``, at places where its piece does occur (and,
    when several share a piece, where one of them does: ``user`` heads ten prefixes).
    """

    def __init__(self, needles: set[str]) -> None:
        import numpy as np

        # By piece length, then by the exact number of a prefix's first characters.
        self._by_piece: dict[int, dict[int, list[str]]] = {2: {}, 3: {}, 4: {}}
        self._table = np.zeros(_TRIGRAMS, dtype=np.uint8)
        for needle in sorted(needles):
            length = min(len(needle), _LONGEST_PIECE)
            piece = _exact(needle[:length])
            self._by_piece[length].setdefault(piece, []).append(needle)
            if length == 2:
                self._table[(piece << 7) + np.arange(128)] |= _PIECE_BITS[2]
            else:
                self._table[_exact(needle[:3])] |= _PIECE_BITS[length]
        for first in _GUTTER_FIRSTS:
            self._table[(np.arange(128) << 14) + (ord("\n") << 7) + first] |= _GUTTER_BIT
            for before in (ord("\n"), *_BLANKS):
                for blank in _BLANKS:
                    self._table[(before << 14) + (blank << 7) + first] |= _GUTTER_BIT
        self._pieces = {
            length: np.array(sorted(by), dtype=np.int64) for length, by in self._by_piece.items()
        }
        # A four-character piece's last three, marked: where the first three of one occur, most
        # places (~3,900 of a 5,000-line correction's 5,600) are no such piece's start, and one
        # more lookup tells them before the exact search of :meth:`_real`.
        self._ends = np.zeros(_TRIGRAMS, dtype=np.bool_)
        self._ends[self._pieces[_LONGEST_PIECE] & (_TRIGRAMS - 1)] = True
        # The prefixes longer than their piece, by piece, each with the exact number of its
        # next (up to four) characters and the shift that reads as many (see _longer_found).
        longer = sorted(
            (piece, needle) for piece, group in self._by_piece[4].items() for needle in group
        )
        longer = [(piece, needle) for piece, needle in longer if len(needle) > _LONGEST_PIECE]
        self._longer = [needle for _, needle in longer]
        self._longer_pieces = np.array([piece for piece, _ in longer], dtype=np.int64)
        self._longer_next = np.array([_exact(n[4:8]) for n in self._longer], dtype=np.int64)
        self._longer_shift = np.array(
            [7 * (8 - min(len(n), 8)) for n in self._longer], dtype=np.int64
        )
        # Those whose next four characters do not decide: longer, or holding the "?" a
        # non-ASCII character of the text also reads as.
        self._longer_checked = frozenset(
            i for i, n in enumerate(self._longer) if len(n) > 8 or "?" in n
        )

    def find(self, lowered: str) -> tuple[dict[str, list[int]], set[int], list[int] | None]:
        """Where each prefix occurs in *lowered* (already lower-cased), and lengths left out.

        Every length is left out (searched for the old way) when the prefixes' first three
        characters occur so often (``ghp_ghp_ghp_...``) that checking each place would cost
        more than scanning. Third, the lines that may have a gutter (see :func:`_gutter_lines`),
        or ``None`` when not looked for.
        """
        import numpy as np  # only long texts come here: a server starts without numpy

        # One byte per character (non-ASCII ones become "?"), so positions carry over; NULs
        # after the text (no prefix holds one), so every place reads eight characters.
        encoded = lowered.encode("ascii", "replace")
        raw = np.frombuffer(encoded + bytes(2 * _LONGEST_PIECE), dtype=np.uint8)
        found: dict[str, list[int]] = {}
        if len(encoded) < 4:
            return found, {2, 3, 4}, None
        hits, bits = _trigram_hits(raw, len(encoded), self._table)
        # Counted without the gutter bit's places: a diff's lines are no reason to scan.
        if np.count_nonzero(bits & (_GUTTER_BIT - 1)) > max(_MOST_HITS, len(encoded) // 16):
            return found, {2, 3, 4}, None
        for length, by_piece in self._by_piece.items():
            pieces, at = self._real(raw, hits[(bits & _PIECE_BITS[length]) != 0], length)
            for piece, places in self._groups(pieces, at):
                for needle in by_piece[piece]:
                    if len(needle) == length:
                        found[needle] = places
            if length == _LONGEST_PIECE:
                found.update(self._longer_found(raw, lowered, pieces, at))
        firsts = hits[(bits & _GUTTER_BIT) != 0] + 2
        return found, set(), _gutter_lines(lowered, firsts.tolist())

    def _longer_found(
        self,
        raw: npt.NDArray[np.uint8],
        lowered: str,
        pieces: npt.NDArray[np.int64],
        at: npt.NDArray[np.intp],
    ) -> dict[str, list[int]]:
        """Where each prefix longer than its piece occurs, its piece found at *at*.

        Checked for every pair of a place and a longer prefix of its piece at once, on the
        exact number of the place's next four characters: ``str.startswith`` for each pair
        took ~0.2 ms of a 5,000-line correction (``cont`` 382 times, ten prefixes ``user``).
        Only a prefix of more than eight characters is compared further, where the eight are.
        """
        found: dict[str, list[int]] = {}
        # A slice of places at a time: a hostile text's pairs stay a few megabytes of arrays.
        for begin in range(0, len(at), _PAIRS_OF):
            end = begin + _PAIRS_OF
            found_here = self._longer_slice(raw, lowered, pieces[begin:end], at[begin:end])
            for needle, places in found_here.items():
                found.setdefault(needle, []).extend(places)
        return found

    def _longer_slice(
        self,
        raw: npt.NDArray[np.uint8],
        lowered: str,
        pieces: npt.NDArray[np.int64],
        at: npt.NDArray[np.intp],
    ) -> dict[str, list[int]]:
        """What :meth:`_longer_found` finds at a slice of its places."""
        import numpy as np

        firsts = np.searchsorted(self._longer_pieces, pieces, side="left")
        counts = np.searchsorted(self._longer_pieces, pieces, side="right") - firsts
        total = int(counts.sum())
        if not total:
            return {}
        # One entry a pair: the place, and the index of the prefix.
        ends = np.cumsum(counts)
        places = np.repeat(at, counts)
        needles = np.repeat(firsts - (ends - counts), counts) + np.arange(total)
        code = raw[places + 4].astype(np.int64)
        for offset in range(5, 8):
            code <<= 7
            code |= raw[places + offset]
        kept = (code >> self._longer_shift[needles]) == self._longer_next[needles]
        needles, places = needles[kept], places[kept]
        order = np.lexsort((places, needles))  # by prefix, then place: each list in order
        found: dict[str, list[int]] = {}
        for i, place in zip(needles[order].tolist(), places[order].tolist(), strict=True):
            needle = self._longer[i]
            if i in self._longer_checked and not lowered.startswith(needle, place):
                continue
            found.setdefault(needle, []).append(place)
        return found

    def _real(
        self, raw: npt.NDArray[np.uint8], hits: npt.NDArray[np.intp], length: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
        """The prefix pieces of *length* characters found at some of *hits*, and where.

        A piece is named by its exact number (see :func:`_exact`). The table said exactly
        where a piece of two or three characters is; where a four-character one is, only
        where its first three are.
        """
        import numpy as np

        pieces = raw[hits].astype(np.int64)
        for offset in range(1, length):
            pieces <<= 7
            pieces |= raw[hits + offset]
        at = hits
        if length == _LONGEST_PIECE:
            kept = self._ends.take(pieces & (_TRIGRAMS - 1))  # the last three characters
            hits, pieces = hits[kept], pieces[kept]
            wanted = self._pieces[length]
            nearest = np.minimum(np.searchsorted(wanted, pieces), len(wanted) - 1)
            real = wanted[nearest] == pieces
            pieces, at = pieces[real], hits[real]
        return pieces, at

    @staticmethod
    def _groups(
        pieces: npt.NDArray[np.int64], at: npt.NDArray[np.intp]
    ) -> Iterator[tuple[int, list[int]]]:
        """Each piece of *pieces* and its places among *at*, in order."""
        import numpy as np

        if not len(pieces):
            return
        order = np.argsort(pieces, kind="stable")  # stable: each group's places stay in order
        pieces, places = pieces[order], at[order].tolist()
        bounds = [0, *(np.flatnonzero(pieces[1:] != pieces[:-1]) + 1).tolist(), len(places)]
        for begin, end in itertools.pairwise(bounds):
            yield int(pieces[begin]), places[begin:end]


# Places of four-character pieces checked for longer prefixes at a time (see
# _Prefixes._longer_found): a piece heads at most ~13 prefixes, so ~50,000 pairs a slice.
_PAIRS_OF: Final = 4096

# Positions looked up per block: each block's arrays are reused from one block (and text) to
# the next. Fresh arrays the size of a 5,000-line text cost the kernel ~700 page faults (1 ms
# of a correction's 5.4: glibc maps and unmaps blocks that large on every call).
_BLOCK: Final = 1 << 16


class _Scratch:
    """Each thread's arrays for :func:`_trigram_hits` and :class:`_Windows` (:func:`_scratch`)."""

    def __init__(self) -> None:
        import numpy as np

        self.codes = np.empty(_BLOCK, dtype=np.uint32)
        self.term = np.empty(_BLOCK, dtype=np.uint32)
        self.entry = np.empty(_BLOCK, dtype=np.uint8)
        self.hit = np.empty(_BLOCK, dtype=np.bool_)
        self._runs = self._run_arrays(0)

    def run_arrays(
        self, size: int
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
        """Arrays of at least *size* for :class:`_Windows`: two to AND into, one to compare."""
        if len(self._runs[0]) < size:
            self._runs = self._run_arrays(size)
        return self._runs

    @staticmethod
    def _run_arrays(
        size: int,
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
        import numpy as np

        return np.empty(size, np.uint8), np.empty(size, np.uint8), np.empty(size, np.bool_)


_LOCAL: Final = threading.local()


def _scratch() -> _Scratch:
    """The calling thread's scratch arrays, made on first use.

    Per thread, because a redaction may run on any thread; on first use, because a server
    starts without numpy.
    """
    scratch: _Scratch | None = getattr(_LOCAL, "scratch", None)
    if scratch is None:
        scratch = _LOCAL.scratch = _Scratch()
    return scratch


def _trigram_hits(
    raw: npt.NDArray[np.uint8], total: int, table: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint8]]:
    """Where among *raw*'s first *total* places *table* marks the next three characters.

    Returned with *table*'s entries there (which pieces may start at each place).
    A place's three characters make one exact 21-bit number (shifts and ors in 32 bits),
    computed a block at a time into :class:`_Scratch`'s arrays and looked up with
    ``np.take``, not ``table[codes]``: the same lookup, several times faster. *raw* runs at
    least two bytes past *total*.
    """
    import numpy as np

    scratch = _scratch()
    found: list[npt.NDArray[np.intp]] = [np.empty(0, np.intp)]
    bits: list[npt.NDArray[np.uint8]] = [np.empty(0, np.uint8)]
    for begin in range(0, total, _BLOCK):
        n = min(_BLOCK, total - begin)
        codes, term = scratch.codes[:n], scratch.term[:n]
        entry, hit = scratch.entry[:n], scratch.hit[:n]
        np.left_shift(raw[begin : begin + n], 14, out=codes, dtype=np.uint32)
        np.left_shift(raw[begin + 1 : begin + 1 + n], 7, out=term, dtype=np.uint32)
        codes |= term
        codes |= raw[begin + 2 : begin + 2 + n]
        np.take(table, codes, out=entry, mode="clip")  # codes are < 2**21
        # flatnonzero is ~10 times faster on booleans than on bytes.
        np.not_equal(entry, 0, out=hit)
        places = np.flatnonzero(hit)
        bits.append(entry[places])
        places += begin
        found.append(places)
    return np.concatenate(found), np.concatenate(bits)


def _gutter_lines(text: str, firsts: list[int]) -> list[int]:
    """Where the lines of *text* that may have a gutter start, in order.

    A gutter's line starts with blanks and a character of :data:`_GUTTER_FIRSTS`; the table
    marks such a character after a line break, or after two blanks or a break and a blank
    (*firsts*, where it stands, from the third character on). A place is a line when only
    blanks stand between it and its line break. The first two lines are always told, their
    first characters being before the table's first entry: a superset, as the view wants.
    """
    lines = [0]
    if text.startswith("\n"):
        lines.append(1)
    for first in firsts:
        start = text.rfind("\n", 0, first) + 1
        if start > lines[-1] and not text[start:first].strip(" \t"):
            lines.append(start)
    return lines


def _exact(piece: str) -> int:
    """The exact number of an ASCII *piece*, as :meth:`_Prefixes.find` reads it from a text.

    Seven bits a character: a piece of up to four characters fits in 28 bits, without collisions.
    """
    code = 0
    for c in piece:
        code = (code << 7) | ord(c)
    return code


class _RunClasses:
    """Every rule's run characters, told apart in one pass over a text.

    ``bytes.translate`` with one of :meth:`of`'s tables turns each character into a byte whose
    bits say which character sets hold it: eight sets a table, so the three of the catalogue
    cost one translation (90 us on a 5,000-line correction) rather than one each.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._shortest: dict[str, int] = {}
        for rule in rules:
            if rule.run_chars:
                shortest = self._shortest.get(rule.run_chars, rule.min_run)
                self._shortest[rule.run_chars] = min(shortest, rule.min_run)
        tables: list[bytearray] = []
        # Per table, the shortest long run (above _SHORT_RUN) any of its sets wants.
        self._windows: list[int] = []
        self._bits: dict[str, tuple[int, int]] = {}
        for i, chars in enumerate(sorted(self._shortest)):
            if i % 8 == 0:
                tables.append(bytearray(256))
                self._windows.append(0)
            for c in chars:
                if ord(c) < 128:  # a text's bytes are ASCII (see _Finder._classes_of)
                    tables[-1][ord(c)] |= 1 << (i % 8)
            self._bits[chars] = (i // 8, 1 << (i % 8))
            if self._shortest[chars] > _SHORT_RUN:
                window = self._windows[-1]
                self._windows[-1] = min(window or self._shortest[chars], self._shortest[chars])
        self._tables = [bytes(table) for table in tables]

    def of(self, chars: str, least: int) -> tuple[bytes, int, int, int]:
        """The table that marks *chars*, its bit, the shortest run wanted, the window length.

        The shortest run of *chars* any rule of the set wants (*least* for a rule from
        outside the set, whose characters get a table of their own); the window length is
        the shortest long run any set of the table wants, so one :class:`_Windows` pass
        serves all of them.
        """
        if chars not in self._bits:
            return (_lone_table(chars), 1, least, least)
        table, bit = self._bits[chars]
        return self._tables[table], bit, self._shortest[chars], self._windows[table]


@functools.lru_cache(maxsize=16)
def _lone_table(chars: str) -> bytes:
    """The translation table of a character set no rule of the engine's set has (bit 1)."""
    return bytes(1 if chr(i) in chars else 0 for i in range(256))


@attrs.frozen
class _Windows:
    """Where windows of characters of one set start, for every set of a translation at once.

    Found by doubling, a block at a time (into :class:`_Scratch`'s arrays): AND the class bytes
    with themselves shifted by 1, 2, 4, ... (each step doubles the window every byte vouches
    for), then once more by what is left; bit ``k`` of the result at ``i`` says the window
    starting at ``i`` is all of set ``k``. Kept as segments of equal results (``starts``,
    ``values``, tiling ``[0, total)``): a megabyte-long word is one segment a block, not a
    million window starts. Some 20 numpy steps for all sets, instead of a ``bytes.find`` of
    ``aaaa...`` per run and set, which compared most of a text's characters several times
    (~150 us per set in a 5,000-line correction).
    """

    starts: npt.NDArray[np.intp]
    values: npt.NDArray[np.uint8]
    total: int
    # The sets some window is all of (a bit each): most sets have no long run in a short text.
    present: int = attrs.field(init=False)

    @present.default
    def _present(self) -> int:
        import numpy as np

        return int(np.bitwise_or.reduce(self.values)) if len(self.values) else 0

    @classmethod
    def find(cls, classes: npt.NDArray[np.uint8], least: int) -> _Windows:
        import numpy as np

        least = max(least, 1)
        total = max(len(classes) - least + 1, 0)
        starts: list[npt.NDArray[np.intp]] = [np.empty(0, np.intp)]
        values: list[npt.NDArray[np.uint8]] = [np.empty(0, np.uint8)]
        for begin in range(0, total, _BLOCK):
            size = min(len(classes), begin + _BLOCK + least - 1) - begin
            ping, pong, changed = _scratch().run_arrays(size)
            window = classes[begin : begin + size]
            length = 1
            while length < least:
                shift = min(length, least - length)  # the last step shifts by what is left
                size -= shift
                np.bitwise_and(window[:size], window[shift : shift + size], out=ping[:size])
                window, ping, pong = ping, pong, ping
                length += shift
            np.not_equal(window[1:size], window[: size - 1], out=changed[: size - 1])
            # flatnonzero is ~10 times faster on booleans than on bytes.
            segments = np.flatnonzero(changed[: size - 1])
            segments += 1
            segments = np.concatenate(([0], segments))
            values.append(window[segments])
            segments += begin
            starts.append(segments)
        return cls(np.concatenate(starts), np.concatenate(values), total)

    def runs(self, bit: int, least: int) -> list[tuple[int, int]]:
        """The maximal runs of set *bit*, *least* long or longer (the windows' length).

        Window starts ``s..t`` of set *bit* (a row of segments) make the run
        ``[s, t + least)``.
        """
        import numpy as np

        if not self.present & bit:
            return []
        on = np.concatenate(([False], (self.values & bit) != 0, [False]))
        edges = np.flatnonzero(on[1:] != on[:-1])  # where rows of segments begin and end
        if not len(edges):
            return []
        ends = np.append(self.starts[1:], self.total)
        firsts = self.starts[edges[0::2]]
        lasts = ends[edges[1::2] - 1] - 1 + max(least, 1)
        return list(zip(firsts.tolist(), lasts.tolist(), strict=True))


@attrs.frozen
class _Keyed:
    """The rules :meth:`_Finder.matches` skips when none of their index keys occurs.

    ``rules`` are their places in the rule set; ``by_key`` says which of them each key keeps;
    ``by_pair`` groups the keys by their first two characters (see :meth:`dead_in`).
    """

    rules: frozenset[int]
    by_key: dict[str, frozenset[int]]
    by_pair: dict[str, tuple[str, ...]]

    @classmethod
    def of(cls, rules: Sequence[Rule]) -> _Keyed:
        by_key: dict[str, set[int]] = {}
        for i, rule in enumerate(rules):
            if rule.run_chars or rule.scan_whole or not rule.needles or not rule.index_keys:
                continue  # matches() never skips these by the index
            for key in rule.index_keys:
                by_key.setdefault(key, set()).add(i)
        keyed = frozenset(i for indices in by_key.values() for i in indices)
        by_pair: dict[str, list[str]] = {}
        for key in sorted(by_key):
            by_pair.setdefault(key[:2], []).append(key)
        return cls(
            keyed,
            {key: frozenset(indices) for key, indices in by_key.items()},
            {pair: tuple(keys) for pair, keys in by_pair.items()},
        )

    def dead_in(self, lowered: str) -> set[int]:
        """The keyed rules none of whose keys occurs in *lowered*: they cannot match it.

        For a short text, which gets no prefix index. Every match of such a rule starts with
        one of its needles, whose lower-cased form (its key, two ASCII characters or more)
        then stands at the same place in the lower-cased text. The text's character pairs
        rule out most of the ~750 keys at once, and ``in`` tests the few keys left: on the
        ~150-character gutter view of a correction that leaves ~70 of ~220 rules to run
        their regex, instead of every one.
        """
        dead = set(self.rules)
        pairs = {lowered[i : i + 2] for i in range(len(lowered) - 1)}
        for pair in pairs & self.by_pair.keys():
            for key in self.by_pair[pair]:
                if key in lowered:
                    dead.difference_update(self.by_key[key])
        return dead


_KEYED: dict[int, tuple[Sequence[Rule], _Keyed]] = {}


def _keyed(rules: Sequence[Rule]) -> _Keyed:
    """*rules*' :class:`_Keyed`, built once per rule set (without numpy, unlike the index)."""
    cached = _KEYED.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    keyed = _Keyed.of(rules)
    if len(_KEYED) > 16:
        _KEYED.clear()
    _KEYED[id(rules)] = (rules, keyed)
    return keyed


def _short_live(lowered: str, rules: Sequence[Rule]) -> Sequence[Rule]:
    """*rules* without those that cannot match a short text (see :meth:`_Keyed.dead_in`)."""
    dead = _keyed(rules).dead_in(lowered)
    if not dead:
        return rules
    return [rule for i, rule in enumerate(rules) if i not in dead]


@attrs.frozen
class _Shortcuts:
    """What the engine prepares once per rule set (the catalogue, its re-check)."""

    prefixes: _Prefixes
    classes: _RunClasses
    keyed: _Keyed


_PREPARED: dict[int, tuple[Sequence[Rule], _Shortcuts]] = {}


def _shortcuts(rules: Sequence[Rule]) -> _Shortcuts:
    """The prefix index and run classes of *rules*, built once per rule set."""
    cached = _PREPARED.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    shortcuts = _Shortcuts(
        _Prefixes(
            {
                n.lower()
                for rule in rules
                if not rule.scan_whole
                for n in rule.needles
                if indexable(n)
            }
        ),
        _RunClasses(rules),
        _keyed(rules),
    )
    if len(_PREPARED) > 16:
        _PREPARED.clear()
    _PREPARED[id(rules)] = (rules, shortcuts)
    return shortcuts


def candidates(text: str, rules: Sequence[Rule]) -> list[Candidate]:
    """Every span one of ``rules`` finds in ``text``, overlapping and unmerged.

    Rules run in order, so a later rule marked ``skip_covered`` sees what earlier ones found.
    """
    return read(text, rules)[0]


def read(text: str, rules: Sequence[Rule]) -> tuple[list[Candidate], list[int] | None]:
    """:func:`candidates`, and where the lines that may have a gutter start when found.

    The places :func:`.views.gutter_view` tries (every other line has no gutter), found in the
    same pass as the rules' prefixes in a long text; ``None`` when not looked for.
    """
    lowered = _lowercase(text)
    # Most texts hold no marker: str.__contains__ says so in a fraction of the regex's time.
    markers = [m.span() for m in MARKER_RE.finditer(text)] if MARKER_PREFIX in text else []
    marker_starts = [start for start, _ in markers]
    found: list[Candidate] = []
    covered: _Coverage | None = None
    finder = _Finder(text, lowered, rules) if len(text) >= SHORTCUTS_FROM else None
    for rule in _short_live(lowered, rules) if finder is None else finder.live():
        subject = lowered if rule.on_lowercase else text
        if rule.skip_covered and covered is None:
            covered = _Coverage(found)
        found_by_rule = (
            rule.pattern.finditer(subject) if finder is None else finder.matches(rule, subject)
        )
        for m in found_by_rule:
            if rule.not_after and blocked(subject, m.start(), rule.not_after):
                continue
            if rule.skip_covered and covered is not None and covered.covers(*m.span()):
                continue
            kind = rule.kind if rule.classify is None else rule.classify(m, text)
            if kind is None:
                continue
            spans = [m.span("secret")] if rule.spans is None else rule.spans(m, text)
            for start, stop in spans:
                # Never take trailing line breaks or spaces along (truncated PEM bodies end so).
                end = stop
                while end > start and text[end - 1].isspace():
                    end -= 1
                if end <= start:
                    continue
                # Text already redacted stays as it is: that is what makes redact() idempotent.
                i = bisect.bisect_left(marker_starts, end)
                if i > 0 and markers[i - 1][1] > start:
                    continue
                found.append((start, end, rule.priority, kind))
    return found, None if finder is None else finder.gutter_lines


def merge(found: list[Candidate]) -> list[SecretMatch]:
    """Merge overlapping candidates, naming each merged match after its most specific rule."""
    merged: list[SecretMatch] = []
    best = -1
    for start, end, priority, kind in sorted(found, key=lambda c: (c[0], -c[1], -c[2])):
        if merged and start < merged[-1].end:
            last = merged[-1]
            if priority > best:
                best = priority
                last_kind = kind
            else:
                last_kind = last.kind
            merged[-1] = SecretMatch(last_kind, last.start, max(last.end, end))
        else:
            merged.append(SecretMatch(kind, start, end))
            best = priority
    return merged


def contains(text: str, rules: Sequence[Rule]) -> bool:
    """Whether one of ``rules`` finds a secret in ``text``."""
    return bool(merge(candidates(text, rules)))
