"""Telling a literal value (``hunter2``) from code or a placeholder (``get_token()``, ``${X}``).

Context rules find a secret-ish *name*; whether what is assigned to it is a secret depends on
the value. Stored lessons must stay readable, so code, references, type annotations and
placeholders are left alone, and only literals are replaced.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from typing import Final

from .base import MARKER_PREFIX, has_entropy, shannon_entropy

WORDISH: Final = re.compile(r"[A-Za-z_-]+(?:\.[A-Za-z_-]+)*")
# Counts and sizes (max_tokens: 4096) and floats (timestamps) are not secrets.
NUMBER: Final = re.compile(r"[0-9]{1,7}|[0-9]*\.[0-9]+")
IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LETTERS: Final = re.compile(r"[A-Za-z_.-]+")
TYPE_NAME: Final = re.compile(
    r"(?i:str|string|bytes|int|integer|number|bool|boolean|any|object|null|none|undefined"
    r"|secretstr|secretbytes|optional|required|true|false|yes|no|on|off|nil|empty|text"
    r"|password|secret|token|env|file|prompt|stdin|hidden|masked|redacted"
    r"|basic|bearer|digest|oauth|oauth2|negotiate|ntlm|kerberos|jwt|api|apikey)\??"
)
FIELD_WORDS: Final = ("pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie")
# Placeholders and values that are never credentials: <your-key>, %s, ..., colours, ARNs.
PLACEHOLDER: Final = re.compile(
    r"<[^<>]*>|%[a-z]|\.\.\.|…|#[0-9A-Fa-f]{3,8}|arn:[^\s]*|x{3,}|X{3,}|\*+|•+"
)
# Interpolations: ${VAR}, {{ var }}, #{var}, %(name)s, $(cmd), {name}, {0}, $VAR, %VAR%, %s.
_TEMPLATE: Final = re.compile(
    r"\$\{[^{}]*\}|\{\{[^{}]*\}\}|#\{[^{}]*\}|%\([^()]*\)[a-z]|\$\([^()]*\)"
    r"|\{[A-Za-z_][A-Za-z0-9_.]*\}|\{[0-9]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Z_][A-Z0-9_]*%"
    r"|%[sdr](?![A-Za-z0-9])"
)
_HEX_NUMBER: Final = re.compile(r"0[xX][0-9a-fA-F]{1,16}")  # flags and masks, not keys
_SECRETISH_RUN: Final = re.compile(r"[^\s]{6,}")
REFERENCE_STARTS: Final = "$%{<&*!@`\\"
_CODE_CHARS: Final = "([{"
_PATHLIKE: Final = re.compile(r"(?:/|\./|\.\./|~/|[A-Za-z]:\\)")
_URL_WITHOUT_CREDENTIALS: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^@\s]*")


_DIGIT_THEN_LETTER: Final = re.compile(r"[0-9][A-Za-z]")
_CAPITALISED_WORD: Final = re.compile(r"[A-Z][a-z]{3,}")
_DIGITS_THEN_MIXED: Final = re.compile(r"[0-9][a-z]{1,3}[A-Z]")


def _chosen_with_a_dot(value: str) -> bool:
    """``Tiger49.i8FG7K``: a password with a dot in it, not an attribute path.

    Attribute paths are words (``settings.DB_PASSWORD``, ``np.float64``, ``ssl.PROTOCOL_TLSv1_2``);
    a chosen password mixes cases and has a digit right before a letter.
    """
    # The digit must not sit in the first part only (a module: win32api.RegEnumKey), nor in a
    # part made of words (rust_openssl.hpke.X25519PrivateKey).
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return False
    first, *rest = value.split(".")
    # Harbor98oiTnz.H: cases that flip right after the digits, as no identifier's do
    # (win32api, Base64Encoder, utf8Decoder keep one case after their digits).
    return bool(_DIGITS_THEN_MIXED.search(first)) or any(
        _DIGIT_THEN_LETTER.search(part) and not _CAPITALISED_WORD.search(part) for part in rest
    )


def chosen(value: str) -> bool:
    """Letters with digits or symbols, both cases, no blank: what a person picks as a password."""
    return (
        len(value) >= 8
        and not any(c.isspace() for c in value)
        and any(c.isalpha() for c in value)
        and any(not c.isalpha() for c in value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
    )


def is_template(value: str) -> bool:
    """Whether *value* is built from interpolations (``"${DB_PASSWORD}"``, ``f"Bearer {t}"``).

    A literal that merely contains ``%(`` or ``$`` somewhere (random keys do) is not: what is
    left once the interpolations are removed must not contain a token-like run with a digit.
    """
    leftover, removed = _TEMPLATE.subn(" ", value)
    if not removed:
        return False
    return not any(
        any(c.isdigit() for c in run.group()) for run in _SECRETISH_RUN.finditer(leftover)
    )


def is_reference(value: str) -> bool:
    """Whether a header or URL password is a variable, template or placeholder, not a value."""
    if not value or value[0] in REFERENCE_STARTS or is_template(value):
        return True
    return bool(PLACEHOLDER.fullmatch(value)) or len(set(value)) == 1


# A bytes repr (``b'+a\xc8\xdd...'``, what ``print(os.urandom(16))`` writes): its escapes say
# the literal is one, whatever character it starts with.
_BYTES_REPR: Final = re.compile(r".[^\s'\"]{0,3}\\x[0-9a-f]{2}[^\s'\"]{0,3}\\x[0-9a-f]{2}")


def plausible_quoted(content: str, kind: str = "") -> bool:
    """Whether the inside of a string literal assigned to a secret-ish name is a real value."""
    if not content or MARKER_PREFIX in content:
        return False
    # "Password: ", x  -- the quote we took for an opening one was the end of a string.
    if content[0].isspace() or (content[0] in ",;)+" and not _BYTES_REPR.match(content)):
        return False
    if is_template(content) or PLACEHOLDER.fullmatch(content) or TYPE_NAME.fullmatch(content):
        return False
    if _LETTERS.fullmatch(content):
        # A word naming another field or variable: "input_token": "nextToken",
        # SECRET_KEY = 'AWS_SECRET_ACCESS_KEY'.
        lowered = content.lower()
        if any(word in lowered for word in FIELD_WORDS):
            return False
        # Tokens are machine-made: letters alone are a mode or a name ("bearer",
        # "DistributionList.NextMarker") unless there are enough of them to be random.
        if kind in {"token", "auth", "session", "cookie", "credentials"} and (
            len(content) < 24 or not content.isalpha()
        ):
            return False
    words = content.split()
    if len(words) > 1 and all(
        _LETTERS.fullmatch(w) and any(f in w.lower() for f in FIELD_WORDS) for w in words
    ):
        return False  # "id_token token refresh_token": a list of field names
    if " " in content.strip() and kind not in {"password", "seed-phrase"}:
        # "secret": "the key used to sign cookies" -- prose, unless it is a passphrase.
        words = content.split()
        if len(words) > 2 and all(w.isalpha() for w in words):
            return False
    return len(set(content)) > 1


def never() -> bool:
    """The answer of an ``env_line`` probe when the match cannot be an env line."""
    return False


def plausible_bare(
    value: str, *, env_line: Callable[[], bool] = never, config_line: bool = False
) -> bool:
    """Whether an unquoted value is a literal (``hunter2``) rather than code (``get_token()``).

    *env_line* tells whether the value stands alone on a ``NAME=value`` line (or is a shell
    assignment); it is only asked when the answer matters, as it is the expensive part.
    *config_line* says the value ends a ``name: value`` line of YAML or a properties file,
    where a bare word is a string, not a variable.
    """
    if not value or is_template(value):
        return False
    if value[0] in REFERENCE_STARTS and (value[0] == "$" or not env_line()):
        return False
    if any(c in value for c in _CODE_CHARS) or "?." in value:
        return False  # a call, an index or optional chaining: result.groups?.password
    if NUMBER.fullmatch(value) or _HEX_NUMBER.fullmatch(value):
        return False
    if _PATHLIKE.match(value) and not (value.endswith("=") or "+" in value):
        return False  # a path (base64 may start with "/" too, but pads with "=" and has "+")
    if _URL_WITHOUT_CREDENTIALS.fullmatch(value):
        return False
    value = value.rstrip(".:!?")  # "The secret: required." is prose, not a value
    if not value or PLACEHOLDER.fullmatch(value):
        return False
    if env_line():
        # NAME=value on a line of its own (.env, shell, Dockerfile): the value is always a
        # literal, even when it is a plain word -- unless it is a keyword or a type.
        return not TYPE_NAME.fullmatch(value) and len(set(value)) > 1
    if "." in value and IDENTIFIER.fullmatch(value) and not _chosen_with_a_dot(value):
        return False  # an attribute path: rust_openssl.hpke.X25519PrivateKey
    if WORDISH.fullmatch(value):
        # Identifiers, attribute paths, type names, prose words: ``password: str``,
        # ``api_key = settings.API_KEY``, ``secret: required``. On a YAML line a lower-case
        # word is a string (``password: changeme``); a capitalised one is likely a type.
        return (
            config_line
            and value.islower()
            and len(value) >= 6
            and "_" not in value
            and not TYPE_NAME.fullmatch(value)
            and len(set(value)) > 2
        )
    return len(value) >= 4


# --- words and random draws ---------------------------------------------------------------

# Words inside identifiers: "uint8ArrayToBase64Url", "N12asn1_type_st4DOLLAR_11E".
_WORD_RUN: Final = re.compile(
    r"^[a-z]{2,}|[A-Z][a-z]{2,}|[a-z]{4,}|[A-Z]{2,}(?=[A-Z][a-z])|[A-Z]{5,}"
)
_SEPARATORS: Final = re.compile(r"[_/-]")
_ONE_CASE: Final = re.compile(r"[a-z0-9]+|[A-Z0-9]+|[A-Z][a-z0-9]+")


def expected_entropy(length: int, alphabet: int = 62) -> float:
    """About what a random draw of *length* characters from *alphabet* scores (bits/char)."""
    # The entropy of a finite sample falls short of log2(alphabet) by the unseen symbols.
    return math.log2(min(alphabet, length)) - (alphabet - 1) / (2 * length * math.log(2))


def ordered_fraction(token: str) -> float:
    """The share of steps to the next character up (``abc``, ``0123``): alphabets, counts."""
    steps = sum(1 for a, b in itertools.pairwise(token) if ord(b) - ord(a) == 1)
    return steps / max(1, len(token) - 1)


_VOWELS: Final = frozenset("aeiouyAEIOUY")
_CONSONANT_CLUSTER: Final = re.compile(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{5,}")


def _pronounceable(run: str) -> bool:
    """Whether a run of letters could be a word ("Byte", "DOLLAR"), unlike "Rnrbd" or "Xcn"."""
    return any(c in _VOWELS for c in run) and not _CONSONANT_CLUSTER.search(run)


def wordy(token: str) -> bool:
    """Whether the token is mostly words (identifiers, paths, slugs), not a random draw."""
    # camelCase: a random draw has about 30% of its characters in such runs, rarely 65%.
    in_runs = sum(len(run) for run in _WORD_RUN.findall(token) if _pronounceable(run))
    if in_runs >= len(token) * 0.7:
        return True
    # snake_case, kebab-case and paths: parts of one case each, where a random draw mixes.
    parts = [part for part in _SEPARATORS.split(token) if len(part) >= 2]
    return len(parts) >= 3 and sum(bool(_ONE_CASE.fullmatch(p)) for p in parts) >= len(parts) * 0.75


# A person's password: a capitalised word, two to four digits, then a few characters typed on
# (``Maple83Fen%``, ``Copper73TAhg``, ``Harbor51.Axu``).
_WORD_DIGITS_TAIL: Final = re.compile(r"[A-Z][a-z]{2,9}[0-9]{2,4}(?P<tail>[^\s]{3,10})")
# A tail that is words or acronyms (``Sha256WithRSA``, ``Base64Url``, ``Int32Array``): a name.
_WORDS_TAIL: Final = re.compile(r"(?:[A-Z][a-z]+|[A-Z]{2,}(?![a-z]))+|[a-z]+")
_TYPED_SYMBOLS: Final = frozenset("!#$%^&*@~+?=._")
_FILE_SUFFIX: Final = re.compile(r"\.[a-z0-9]{1,4}$")


# The consonants an English word may start with before its first vowel (``str``ing,
# ``ch``ar, ``sch``ema): a name's words start so, a random draw of letters mostly does not
# (``Njblo``, ``Cqbi``, ``Mxzru``).
_TWO_AND_THREE: Final = (
    "bl br ch cl cr dr dw fl fr gh gl gn gr kl kn kr ph pl pr ps qu sc sh sk sl sm sn sp st sw"
    " th tr ts tw wh wr chr sch scr shr spl spr squ str thr"
)
_ONSETS: Final = frozenset(["", *"bcdfghjklmnpqrstvwxyz", *_TWO_AND_THREE.split()])
_FIRST_VOWEL: Final = re.compile(r"[aeiou]|(?<=.)y")


def word_like(run: str) -> bool:
    """Whether a run of letters (``Array``, ``Str``, ``Njblo``) could be a word of a name.

    Short runs without a vowel are abbreviations (``Str``, ``Ctx``, ``Db``); longer ones must
    have a vowel and start as an English word may (``Encoder``, ``With``; not ``Cqbi``).
    """
    lowered = run.lower()
    vowel = _FIRST_VOWEL.search(lowered)
    if vowel is None:
        return len(run) <= 4
    return lowered[: vowel.start()] in _ONSETS


_CASE_RUN: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


# The short words names are made of (``Base64UrlSafe``, ``Win32ApiError``, ``Int32Key``):
# abbreviations and particles. A run of two or three letters that is none of them, among other
# runs, is typed at random (``Maple295NylEew``, ``Summer79WyUKILSW``, ``Tiger25YGUAdb``).
_SHORT_NAME_WORDS: Final = (
    "a an as at be by do if in is it of on or to up"
    " id io db ui ok os ip fs js ts go no ms ns us le cb fn op re rx tx px pt em vm gc rt"
    " abs acl add age all and any api app arg arr ast avg bin bit box buf bus cap cfg cmd col"
    " csv ctx cur day dec def del dev dir doc dom dst end env eof err evt exp ext fix flt fmt"
    " for get gid gpu hex hit hot img inc ini int key len lib log low map max mem min mod msg"
    " net new nil non not now num obj off old one out own pid pos pre ptr pub put raw ref reg"
    " rel rem req res ret rgb row run seq set sig src std str sub sum sys tab tag tcp tmp top"
    " two txt udp uid uri url use utc val var vec web win xml yes zip"
)
_SHORT_WORDS: Final = frozenset(_SHORT_NAME_WORDS.split())


def words_after_digits(tail: str) -> bool:
    """Whether every capitalised or lower-case run of *tail* could be a word of a name.

    One run may be any word-like letters (``Encoder``, ``Hash``); among several, each short
    one (two or three letters) must be a short word names use (``Url`` in ``Base64UrlSafe``):
    a name's short words are few and known, a person's typing draws them at random.
    """
    runs = _CASE_RUN.findall(tail)
    mixed = [run for run in runs if not run.isupper() or len(run) == 1]
    if len(runs) > 1 and any(len(run) <= 3 and run.lower() not in _SHORT_WORDS for run in mixed):
        return False
    return all(word_like(run) for run in mixed if not run.isupper())


def _typed_before_suffix(rest: str) -> bool:
    """``JkK`` of ``Copper80JkK.b``, ``r!7GT.`` of ``Maple40r!7GT..7``: typed before the dot.

    A file's or a host's name keeps words before its suffix (``Base64UrlSafe.js``); a person
    types a symbol or letters in no word's casing, and the dot after them is one more character.
    """
    if any(c in _TYPED_SYMBOLS and c not in "._" for c in rest):
        return True
    letters = rest.strip("._")
    return letters.isalpha() and not words_after_digits(letters)


def typed_on(value: str) -> bool:
    """``Maple83Fen%``, ``Tiger32YNys``: a word and digits a person typed more characters after.

    Type names put words after their digits (``Int32Array``, ``Sha256WithRSA``); a person
    goes on with a symbol or letters in no word's casing.
    """
    m = _WORD_DIGITS_TAIL.fullmatch(value)
    if m is None:
        return False
    tail = m.group("tail")
    suffix = _FILE_SUFFIX.search(tail)
    if suffix and not _typed_before_suffix(tail[: suffix.start()]):
        return False  # Python39.dll, Office365.com, Base64UrlSafe.js: a file or a host
    if any(c in _TYPED_SYMBOLS for c in tail):
        return True
    if not tail.isalnum():
        return False
    named = _WORDS_TAIL.fullmatch(tail) is not None and (wordy(tail) or tail.isupper())
    return not named or not words_after_digits(tail)


# A passphrase a person typed: words joined by a separator (or run together in camel case),
# then digits and a few characters typed on (``Kestrel.biscuit.3902TCUDB``,
# ``CobaltPistachio.6009Jiw``, ``Waffle.nebula.2883wdb``, ``Riverbank*soleil*43idnnq``).
_PASSPHRASE: Final = re.compile(
    r"[A-Za-z]{3,14}(?:(?P<sep>[._*#!+~%^&-])[A-Za-z]{3,14}|[A-Z][a-z]{2,13}){0,3}"
    r"(?P<last>[._*#!+~%^&-]?)(?P<digits>[0-9]{2,6})(?P<tail>[A-Za-z][A-Za-z0-9]{1,5})"
)
_TAIL_VOWELS: Final = frozenset("aeiouyAEIOUY")
# Separators no name puts between its words (``.``, ``_`` and ``-`` are names' and hosts').
_TYPED_SEPARATORS: Final = frozenset("*#!+~%^&")


def typed_passphrase(value: str) -> bool:
    """``Kestrel.biscuit.3902TCUDB``: words, then digits and characters typed on.

    No name is so made: an attribute or a module never starts with a digit after its dot
    (``np.float64``), a file's suffix follows no digits (``report.2024.pdf``), and an
    identifier's words come after its digits in a word's casing (``Int32Array``); a slug's
    last word is a word (``release-notes-2024draft``). So the tail after the digits must be
    typed -- upper case in it, or letters no word is (``wdb``, ``rzadr``) -- or the words
    joined by a symbol no name holds (``Gecko*marmot*9910uwgkq``). The digits stand apart
    from the words (a name glues them: ``type.value.base10Value``).
    """
    m = _PASSPHRASE.fullmatch(value)
    if m is None or not m.group("last"):
        return False  # base10Value, utf8Encoder: a name glues its digits to a word
    if {m.group("sep"), m.group("last")} & _TYPED_SEPARATORS:
        return True
    if len(m.group("digits")) < 3:
        return False  # v1.x86_64bit, ...: two digits after a dot or a dash are a version's
    tail = m.group("tail")
    letters = "".join(c for c in tail if c.isalpha())
    if any(c.isupper() for c in letters) or (len(tail) >= 4 and len(letters) < len(tail)):
        return True  # 6009Jiw, 9957i2xl: a case or a digit among the letters, as typed
    return not _TAIL_VOWELS & set(letters) or not word_like(letters)


def random_letters(value: str) -> bool:
    """``CWPkdhknvPkJCkWt``: a drawn key of letters only, its cases flipping at random.

    Where a literal credential is asked for (a flag, a command's argument); a weakly named
    value needs more (:func:`looks_random`: 20 letters at a draw's entropy).

    Identifiers flip case once a word (``XMLHttpRequestUpload``); a random draw of both cases
    flips at about every other letter.
    """
    if len(value) < 16 or len(value) > 256 or not value.isascii() or not value.isalpha():
        return False
    upper = sum(c.isupper() for c in value)
    if upper < 4 or len(value) - upper < 4:
        return False
    flips = sum(a.isupper() != b.isupper() for a, b in itertools.pairwise(value))
    return flips >= 0.35 * (len(value) - 1) and not _words_run_together(value)


def _words_run_together(letters: str) -> bool:
    """:func:`wordy` for letters alone, counting only runs that start as a word may.

    A random draw of both cases holds runs with a vowel (``BJBIVH``, ``Jbvye``) but few that
    start as an English word does; ``XMLHttpRequestUpload``'s words all do.
    """
    in_runs = sum(
        len(run) for run in _WORD_RUN.findall(letters) if _pronounceable(run) and word_like(run)
    )
    return in_runs >= len(letters) * 0.7


# A code printed in equal groups (``327613-460955-...``, ``GQES-SS60-0GYS-...``): recovery keys,
# licence keys, backup codes. Read whole, it is a version number to every other check.
_GROUPED: Final = re.compile(
    r"(?:[0-9A-Z]{4,8}-){3,15}[0-9A-Z]{4,8}|(?:[0-9a-z]{4,8}-){3,15}[0-9a-z]{4,8}"
)


def grouped_draw(value: str) -> bool:
    """``GQES-SS60-0GYS-CBSY-WM6Z-6RKY``: four or more equal groups drawn at random.

    A BitLocker or FileVault recovery key, a licence key; a UUID's groups differ in length, a
    date's and a version's are short or few, a placeholder's (``0000-0000-...``) are not drawn.
    """
    if value.count("-") < 3 or _GROUPED.fullmatch(value) is None:
        return False
    groups = value.split("-")
    if len({len(g) for g in groups}) != 1:
        return False
    core = "".join(groups)
    alphabet = 10 if core.isdigit() else 36
    return (
        shannon_entropy(core) >= expected_entropy(len(core), alphabet) - 0.5
        and ordered_fraction(core) <= 0.25
    )


def looks_random(value: str) -> bool:
    """Enough for a weakly named value (``CACHE_KEY``, ``session``) to count as a secret."""
    value = value.strip("\"'")
    if len(value) < 16 or value.isdigit() or shannon_entropy(value) < 3.5:
        return False
    # Random in one case (base32 seeds, upper-case keys) counts as much as mixed case.
    if has_entropy(value, need_upper=False) or has_entropy(value.swapcase(), need_upper=False):
        return True
    # Base62 drawn at random may hold no digit at all (ser.jVfpRxrtBIVcHIicqkmujd): both cases,
    # as random as a draw, and not words run together (an identifier).
    return drawn_letters(value.rsplit(".", 1)[-1], least=20)


def drawn_letters(value: str, *, least: int) -> bool:
    """``zHJLWylBPqpg``: at least *least* letters of both cases drawn at random, no digit.

    As random as a draw from 52 letters and not words run together (a CamelCase name).
    """
    return (
        len(value) >= least
        and value.isalpha()
        and not value.islower()
        and not value.isupper()
        and not _words_run_together(value)
        and shannon_entropy(value) >= expected_entropy(len(value), 52) - 0.7
    )


# --- what a name says ---------------------------------------------------------------------------

_STRONG_ENDINGS: Final = (
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "secretkey",
    "token",
    "apikey",
    "privatekey",
    "accesskey",
    "credential",
    "credentials",
    "creds",
    "authorization",
    "macaroon",
    "psk",
    "keymaterial",
)
_KINDS: Final = {
    "passwd": "password",
    "passphrase": "password",
    "pwd": "password",
    "psk": "password",
    "secretkey": "secret-key",
    "apikey": "api-key",
    "privatekey": "private-key",
    "accesskey": "access-key",
    "credential": "credentials",
    "creds": "credentials",
    "authorization": "token",
    "macaroon": "token",
    "keymaterial": "password",
}
# ``APP_KEYS=k1,k2``, ``api_keys``: a plural names a list of the same secrets (weakly, as ``key``
# does: ``keys`` in code is mostly a dict's; only a random draw counts).
_WEAK_ENDINGS: Final = ("key", "keys", "auth", "session", "sessionid", "sid", "cookie", "secretid")
_NOT_PASS: Final = ("bypass", "compass", "surpass", "overpass", "underpass", "encompass")
_PUBLIC: Final = re.compile(r"public|publishable|pubkey")


def secret_name(name: str) -> tuple[str, bool] | None:
    """The kind a field *name* says its value is, and whether it says so strongly.

    ``DB_PASSWORD``, ``registry-password``, ``sessionid``, ``X-Api-Key``: a weak name
    (``key``, ``session``) counts only with a random-looking value.
    """
    compact = re.sub(r"[^a-z0-9]", "", name.lower())
    if not compact or _PUBLIC.search(compact):
        return None
    for ending in _STRONG_ENDINGS:
        if compact.endswith(ending):
            return _KINDS.get(ending, ending), True
    if compact.endswith("pass") and not compact.endswith(_NOT_PASS):
        return "password", True
    for ending in _WEAK_ENDINGS:
        if compact.endswith(ending):
            if ending in {"sid", "sessionid", "session"}:
                return "cookie", False
            return ending.removesuffix("s") if ending == "keys" else ending, False
    return None
