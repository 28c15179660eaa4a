"""The last-line net: a secret-shaped value standing where a value stands, whatever its format.

Every named family was written from formats someone had seen, and every batch of kinds written
by a new author leaked one kind in six to three at first look. This net does not know formats.
It scores two things a credential has wherever it is written, and redacts when both are high:

* **place** -- a word that says secret (``pass``, ``pwd``, ``pw``, ``secret``, ``token``,
  ``key``, ``cred``, ``auth``, ``psk``, ``login``; ``Passwort``, ``contraseña``,
  ``mot_de_passe``, ``senha``, ``parola``, ``hasło``, ``wachtwoord``, ``salasana``,
  ``lösenord``; names ending ``_pat``, ``_sk``, ``_sig``, ``_hmac``, ``salt``, ``pepper``,
  ``seed``, ``mnemonic``)
  in any casing or separator, with or without a qualifier after it (``secret_key_base``,
  ``client-key-data``, ``DB_PASS_B64``), and after it,
  on the same line, the value it names: right after an operator of any syntax (``=``, ``:``,
  ``=>``, ``:=``, ``->``, ``|``, a closing quote or ``>`` or both, a blank, ``is``), or further
  along as an argument of the call or command the word names (``HTTPBasicAuth("u", X)``,
  ``login u X``; a hex or base64 literal counts by what it spells, ``bytes.fromhex("4d61...")``),
  or a user's password joined to the user by a colon or a comma (``-u ci:X``, ``--user
  root:X``, ``user = "jdoe:X"``, ``lftp -u deploy,X``, ``amqps://worker:X@host``), or on
  the few lines after a name that opens an element or a block (``<key>Password</key>`` then
  ``<string>X</string>``, ``<AdministratorPassword>`` then ``<Value>X``, ``NAME = (`` then
  ``"X"``, ``"X-Api-Key": {`` then ``"equalTo": "X"``), or on the line after a name that
  ends its own line (``$ cat ~/.acme/access-token`` then the token alone, ``- name:
  registry-password`` then ``value: X``, ``expect "password:"`` then ``send "X"``); a weak
  ``key`` holding hex or a typed
  password counts when a line around names an API, encryption, a user or a secret
  (``api:`` / ``key: <hex>``); and in URLs, with no word at all: a drawn token as the
  user-info, ``?appid=``/``&token=`` values, a log collector's ``/inputs/<uuid>/``, an
  encrypted paste's ``#key``; and in a placeholder that names a secret, the default it
  falls back to (``${DB_PASSWORD:X}``);
* **shape** -- what the value looks like (:func:`shape`): drawn at random (any alphabet but
  bare hex, which is ordinary in code; equal groups of a recovery key, ``GQES-SS60-0GYS-...``),
  picked by a person (letters with digits and a symbol
  or a case flip, not words run together; a capitalised word, digits and more typed on,
  ``Maple83Fen%``, :func:`comodor.brain.redaction.values.typed_on`), or -- only right after a
  strong name -- a plain word with digits (``postgres196``).

A strong name (``password``, ``api_token``) takes any shape right after it; a weak one
(``key``, ``auth``) or a value further along the line needs a random or picked one. Values
that are code -- references, templates, calls, attribute paths, paths, numbers, identifiers,
versions -- are never taken (:func:`comodor.brain.redaction.values.plausible_bare`).

One shape needs no place: a person's password -- a capitalised word, two digits or more and
four characters or more typed on in no word's casing (``Tiger10!X_6HWcD`` as a call's fourth
argument, ``jdoe Maple83_VZfch.`` in a file of users, ``-pCopper67yWlq``) -- is taken
wherever it stands as a token of its own (:func:`typed_anywhere`); names of types, ids and
attributes that share its start (``Base64Str``, ``Stmt1480452973134``, ``Route53.Client``)
are not.

The net is anchored on those words (and ``user``, ``-u``, ``://``), so the engine's prefix
index skips every line without one, and its regex drops words that do not end a name or are
not followed by a value (``KeyError``, ``keys()``, ``token,``): 29 matches are left to classify
in a 5,000-line correction, about 0.25 ms of CPU. Random tokens standing alone, with no word
near, are the entropy net's (:mod:`.entropy`).
"""

from __future__ import annotations

import base64
import functools
import itertools
import re
from typing import Final

from ..base import ENTROPY, Rule, has_entropy, line_end, line_start, shannon_entropy
from ..values import (
    FIELD_WORDS,
    chosen,
    drawn_letters,
    expected_entropy,
    grouped_draw,
    is_reference,
    looks_random,
    ordered_fraction,
    plausible_bare,
    random_letters,
    secret_name,
    typed_on,
    typed_passphrase,
    word_like,
    words_after_digits,
    wordy,
)

KIND: Final = "secret-shaped-value"

# Shapes, weakest first: a word with digits, a chosen password, a random draw.
PLAIN: Final = 1
PICKED: Final = 2
RANDOM: Final = 3

# Secret words in other languages (Passwort, contraseña, mot_de_passe, senha, parola, haslo,
# wachtwoord, salasana, losenord) and what else a secret's name ends with (``_pat``, ``_sk``,
# ``_hmac``, ``_salt``, ``_seed``, ``_mnemonic``). Read on the ASCII-lowercased text; every
# word starts with ASCII letters, so the engine's prefix index still holds the rule (a
# needle it cannot index would have the regex scan the whole text: 0.4 ms a correction).
# The words every secret-word rule of the net knows (the name rule adds more), and the
# endings that keep them a secret's name (``passphrase``, ``credentials``, ``authorization``):
# one fragment, so that a word added here reaches both the name rule and the block opener.
_SECRET_WORDS: Final = "pass|pwd|secret|token|key|cred|auth|psk"
_SECRET_ENDINGS: Final = "[_-]?word|wd|[_-]?phrase|key|entials?|orization|id|s"
_MORE_WORDS: Final = (
    r"|kennwort|contrase(?:n|ni|[^\x00-\x7f])a|senha|parola|haslo|wachtwoord|salasana|losenord"
    r"|[_-](?:pat|sk|sig)|hmac|salt|pepper|seed|mnemonic"
)
# What may follow a secret word in a name without making it some other thing's name: its
# encoding or its role (``secret_key_base``, ``client-key-data``, ``DB_PASS_B64``,
# ``APIKEY_PRIVATE``).
_QUALIFIER: Final = r"(?:[_-](?:base|data|b64|base64|hex|value|raw|plain|enc|private))?"
# A secret word ending a name (password, DB_PASSWD_2, credentials, authorization), and the start
# of what may stand between the name and a value (an operator, a blank and a word, a quote):
# the regex engine drops ``KeyError``, ``keys()``, ``token,`` and ``password_file`` -- most of
# the words in code -- before any Python runs. A quote may close an index before the operator,
# escaped when the code is itself a JSON string (a notebook's ``[\"KAGGLE_KEY\"] = \"X\"``).
_WORD_RE: Final = re.compile(
    # "pw" now follows "psk", still after "pwd" (the one word it begins): the same matches
    "(?:" + _SECRET_WORDS + "|pw|login" + _MORE_WORDS + ")"
    "(?:" + _SECRET_ENDINGS + "|wort|e)?" + _QUALIFIER + r"[0-9_-]{0,3}+"
    r"(?=(?:\\?[\"'`][\]>]?|[\]>])?[ \t]{0,32}(?:[=:]|->)"
    r"|(?:\\?[\"'`][\]>]?|[\]>])?[ \t]{1,32}[^\s=:(,)]"
    r"|[(,]?[ \t]?[\"'`]|>[^\s<])"
)
_NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NAME_REACH: Final = 40
_REFERENCE_MARKS: Final = frozenset("$%@")
# What may stand between a name and its value: a closing quote or bracket, blanks, an operator
# of some syntax, "is", an opening quote (or spoiler bars). Read on the original text from the
# end of the name.
_GAP: Final = re.compile(
    r"(?:\\?[\"'`][\]>]?|[\]>])?[ \t]{0,32}(?:=>|:=|->|==?|:|::|[?+]=|\|)?[ \t]{0,4}"
    r"(?:(?:is|was|are|IS|Is|to)[ \t]{1,4})?(?:[(,][ \t]?(?=[\"'`]))?(?P<quote>\\?[\"'`]|\|\||)"
)
# Quotes that wrap a value as markup does (Discord's and Jira's spoiler bars ``||X||``): the
# value inside is read as an unquoted one, which cannot hold them.
_BARS: Final = "||"
# A value: no blank, no quote, no bracket (a call or an index is code), no separator of lists
# or query strings.
_VALUE: Final = re.compile(r"[^\s\"'`<>,;(){}\[\]&|\\]{4,200}")
# A quoted value may hold what ends an unquoted one: ``PASSWD = `Nebula;9234wNFLE` `` in an
# ini file, ``"pw": "a&b|c"``. Brackets still make it code.
_QUOTED_VALUE: Final = re.compile(r"[^\s\"'`(){}\[\]\\]{4,200}")
# What may follow an unquoted value: nothing, a blank, or a delimiter that closes it.
_VALUE_END: Final = frozenset(" \t\r\n,;)}]&|<\"'\\")
# Further along the line: quoted literals and blank-separated words.
_LATER: Final = re.compile(
    r"\"(?P<dq>[^\"\s\\]{8,128})\"|'(?P<sq>[^'\s\\]{8,128})'|`(?P<bq>[^`\s\\]{8,128})`|(?<![^\s=:])(?P<bare>[^\s\"'`<>,;(){}\[\]&|=\\]{8,128}={0,2})(?=[\s,;)]|$)"
)
_FORMATTED: Final = re.compile(r"[ \t]*(?:%[^=]|\.format\()")
_SCHEME: Final = re.compile(r"[A-Z][A-Za-z0-9-]{2,24}")
_LINE_REACH: Final = 160
_HEX: Final = re.compile(
    r"[0-9a-fA-F]{32,}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"
    r"|[0-9a-fA-F]{16,}:[0-9a-fA-F]{32,}"  # an id and its secret, as one admin key
)
# Around a weakly named hex value (``key: <hex>``), what says the key is a credential: a
# parent or sibling naming an API, encryption, a user or a secret (``api:``, ``'crypt' => [``,
# ``user: 'ci'``, ``new GhostAdminAPI({``, ``environ[\"KAGGLE_USERNAME\"] =`` in a notebook's
# JSON), the name's own qualifier (``api key = X``), or the address of the service the key
# opens (``url: http://jellyfin.lan:8096`` beside ``key: <hex>`` in a dashboard's widget).
_KEYED_CONTEXT: Final = re.compile(
    r"(?:api|crypt|cipher|auth|user(?:name)?|secret|admin|access|license)"
    r"(?:[\w]{0,24}(?:\\?[\"'])?\]?[ \t]*(?:=>|[:=(])|[\w]{0,24}[ \t]+[\"']|[ \t_-]?key\b)"
    r"|(?:url|endpoint|server)[\"']?[ \t]*[:=][ \t]*[\"']?https?://",
    re.IGNORECASE,
)
# Hex too short for a digest's (20 to 31 digits, letters and digits both: ``secret:
# 'fa4e0b87a46e3a034ffc'``), which a strong name makes a key; a short commit id is shorter.
_SHORT_HEX: Final = re.compile(r"(?=[0-9a-f]{0,30}[a-f])(?=[0-9a-f]{0,30}[0-9])[0-9a-f]{20,31}")
_CONTEXT_LINES: Final = 2
# Base64 of 18 bytes or more, whose slashes make it look like a path (whole groups of four).
_BASE64_BLOB: Final = re.compile(
    r"(?=[^\s]*[/+])(?:[A-Za-z0-9+/]{4}){6,128}(?:[A-Za-z0-9+/]{2,3}=?=?)?"
)
_SYMBOLS: Final = frozenset("!#$%^&*@~+?=")
_DIGIT_THEN_LETTER: Final = re.compile(r"[0-9][_.-]?[A-Za-z]")
_WORD_AND_DIGITS: Final = re.compile(r"[A-Za-z]{3,}[0-9]+")
_CAMEL_TAIL: Final = re.compile(r"[0-9](?:[A-Z][a-z]{2,}){2,}$")


def _camel_tail(value: str) -> bool:
    """``Ed25519PrivateKey``: words after the digits, as in a type's name (not ``GezCqbi``)."""
    m = _CAMEL_TAIL.search(value)
    return m is not None and words_after_digits(m.group()[1:])


_PERSON_FIRST: Final = re.compile(r"[A-Z][a-z]{2,}[0-9]+")
# What a typed-on password holding it may still be code for (a path, a file, a call).
_NOT_TYPED: Final = re.compile(r"[^A-Za-z0-9!#%^*._]")
# Words that qualify the value after a secret's name rather than being it (``password
# plaintext X`` on network gear, ``secret 0 X``).
_QUALIFIERS: Final = frozenset({"plaintext", "cleartext", "plain-text", "unencrypted", "0"})
_ISSUER_PART: Final = re.compile(r"[A-Za-z][A-Za-z0-9]{0,7}[_.-]")
_NOT_HEX: Final = re.compile(r"[^0-9a-fA-F-]")
MIN_DRAWN: Final = 20
_REPEATED_SYMBOL: Final = re.compile(r"([/.:])\1")
_HEX_NUMBERS: Final = re.compile(r"(?:0[xX][0-9a-fA-F]{1,16}[-:,.]?)+")
_FLAG: Final = re.compile(r"--?[A-Za-z]")
_FORMAT: Final = re.compile(r"%[-+ #0-9.]*[a-zA-Z]")
_VERSION: Final = re.compile(r"v?[0-9]+(?:[._-][0-9A-Za-z]+)+")
# Host names, with a port or not: db.internal, gotham.b5local.com:4000.
_HOSTISH: Final = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::[0-9]{1,5})?")
# Addresses of people and machines: ops@acme.dev, deploy@10.0.0.5 (P@ssw0rd has no dot after).
_HOST_AFTER: Final = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:[:/]|$)")
_ADDRESS: Final = re.compile(r"[^@\s]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


def _name_around(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the whole name a secret word at ``text[start:end]`` belongs to starts and ends."""
    begin = start
    limit = max(0, start - _NAME_REACH)
    while begin > limit and text[begin - 1] in _NAME_CHARS:
        begin -= 1
    stop = end
    limit = min(len(text), end + _NAME_REACH)
    while stop < limit and text[stop] in _NAME_CHARS:
        stop += 1
    return begin, stop


def _referenced(text: str, begin: int, end: int) -> bool:
    """Whether the name at ``text[begin:end]`` is a variable's reference: $X, %X%, @X, ${X}.

    A brace alone opens a record (``{password, "X"}``), not a reference; a percent sign only
    with one after the name (``%prod.quarkus.x.secret=`` is a profile's property).
    """
    before = text[max(0, begin - 2) : begin]
    if before[-1:] == "%":
        return text.startswith("%", end)
    return before[-1:] in _REFERENCE_MARKS or before in {"${", "{{", "#{"}


def _keyed_shape(value: str) -> bool:
    """A weakly named value that its context may make a credential: hex, or typed by a person."""
    return _HEX.fullmatch(value) is not None or typed_on(value)


def _keyed(text: str, position: int) -> bool:
    """Whether the lines around *position* say a weakly named key is a credential."""
    begin = position
    for _ in range(_CONTEXT_LINES + 1):
        begin = line_start(text, max(0, begin - 1), 200)
    end = line_end(text, line_end(text, position, 200) + 1, 200)
    return _KEYED_CONTEXT.search(text, begin, position) is not None or (
        _KEYED_CONTEXT.search(text, line_end(text, position, 200), end) is not None
    )


@functools.lru_cache(maxsize=4096)
def _named_kind(name: str) -> bool | None:
    """Whether *name* names a secret strongly (``api_token``), weakly (``key``), or not.

    Cached: code says ``key`` and ``token`` over and over.
    """
    bare = _QUALIFIED.sub("", name.rstrip("0123456789_.-")).lstrip("-_.")
    lowered = bare.lower()
    if lowered.endswith("pw") or _MORE_NAMES.search(lowered):
        return True
    said = secret_name(bare)
    return None if said is None else said[1]


def strong_secret_name(name: str) -> bool:
    """Whether *name* says strongly that its value is a secret (``password``, ``Kennwort``)."""
    return _named_kind(name) is True


_QUALIFIED: Final = re.compile(
    r"(?i:[_-](?:base|data|b64|base64|hex|value|raw|plain|enc|private))$"
)
# The names :data:`_MORE_WORDS` finds, as they end a name (``PBKDF2HMAC`` is a class, ``_hmac``
# a key).
_MORE_NAMES: Final = re.compile(
    r"(?:passwort|kennwort|contrase(?:ñ|n|ni)a|mot[_-]?de[_-]?passe|senha|parola|haslo"
    r"|wachtwoord|salasana|losenord|(?:^|[_.-])(?:pat|sk|hmac|sig)|salt|pepper|seed|mnemonic)$"
)


def _picked(value: str) -> bool:
    """``Copper49Ad#3rHz``, ``Summer439VRDOLF0rI``: letters and digits a person put together.

    Both cases or a symbol, a digit, and not words run together (``isES2015OrLaterIterable``
    is an identifier, ``%Y-%m-%dT%H`` a format).
    """
    if not 8 <= len(value) <= 64 or not any(c.isdigit() for c in value):
        return False
    if sum(c.islower() for c in value) < 2:
        return False  # PBES2g-HS256, AES256GCM: names of algorithms, not typed passwords
    if _camel_tail(value):
        return False  # Ed25519PrivateKey: words after the digits, as in a type's name
    # ES2015, Win32, Utf8: an identifier's digits end a word; a person types on past them.
    return any(c in _SYMBOLS for c in value) or (
        chosen(value) and bool(_DIGIT_THEN_LETTER.search(value))
    )


def _code(value: str) -> bool:
    """Whether *value* is code or text rather than a literal credential (see ``plausible_bare``).

    A dotted value that starts with a capitalised word and digits (``Orbit82.yLo.dc``) is
    typed by a person: attribute paths start with a module or an object (``settings.X``).
    """
    if grouped_draw(value):
        return False  # GQES-SS60-0GYS-...: a recovery key, not a version
    if (
        is_reference(value)
        or _ADDRESS.fullmatch(value)
        or _VERSION.fullmatch(value)
        or _HOSTISH.fullmatch(value)
        or _HEX_NUMBERS.fullmatch(value)
        or _FLAG.match(value)
        or _camel_tail(value)
        or "\\" in value
    ):
        return True  # a flag, 0x20-0x7E, Ed25519PrivateKey, f2py\nSee: code and text
    if len(_FORMAT.findall(value)) >= 2:
        return True  # "%Y-%m-%d", "%s:%d": a format
    return not plausible_bare(value) and not (
        "." in value and _PERSON_FIRST.match(value) is not None
    )


def shape(value: str) -> int:
    """How much *value* looks like a credential: 0 (code, a word), PLAIN, PICKED or RANDOM."""
    if _HEX.fullmatch(value) or _SHORT_HEX.fullmatch(value):
        return PICKED  # a hex key or a UUID token: a credential only where a name says so
    if grouped_draw(value):
        return RANDOM  # 327613-460955-...: a recovery key in groups, no version number
    if _issued(value):
        return RANDOM  # before the code check: hvs.<draw> is no attribute path
    if random_letters(value) and drawn_letters(value, least=MIN_DRAWN):
        return RANDOM  # crkUKtpYYqfZLpDfaFaX: no identifier flips case at every other letter
    if _BASE64_BLOB.fullmatch(value) and _drawn(value.replace("/", "").replace("+", "")):
        return RANDOM  # /QXFO9KxqHyqCWXZIt2/TD1U2ARHgXJN: base64 that starts with a slash
    if _padded_draw(value):
        return RANDOM  # AAsIKDxEvNDAS/MGKvKrpQ==: 16 random bytes, no digit among them
    if (value.isalnum() or not _NOT_TYPED.search(value)) and typed_on(value):
        return PICKED  # Orbit31TrvRrue: no word after the digits, so no type's name
    if typed_passphrase(value):
        # Kestrel%mariposa%126eRB: no attribute starts with digits, no format so ends
        return RANDOM if not wordy(value) and _drawn(value) else PICKED
    if drawn_letters(value, least=MIN_DRAWN):
        return PICKED  # BJBIVHlEPKXJbvyeJHiVio: drawn, if its cases flip less than most draws
    if _code(value):
        return 0
    if not wordy(value) and (_drawn(value) or random_letters(value)):
        return RANDOM
    if any(word in value.lower() for word in FIELD_WORDS):
        return 0  # MyTestSecret-a1b2c3, password2: a name, not what it names
    if (not wordy(value) and (_picked(value) or _short_draw(value))) or typed_on(value):
        return PICKED
    # Tiger613dtte, postgres196: a word and digits, which only a strong name makes a secret.
    if len(value) >= 6 and _WORD_AND_DIGITS.match(value) and not _HOSTISH.fullmatch(value):
        return PLAIN
    return 0


_PADDED_BASE64: Final = re.compile(r"[A-Za-z0-9+/]{18,}(?:==|=)")


def _padded_draw(value: str) -> bool:
    """Random bytes in padded base64 (``openssl rand -base64 16``), digits or none.

    ``_drawn`` asks for a digit, which a 22-character draw lacks one time in a hundred; the
    padding that makes the length a multiple of four says bytes were encoded, and the letters
    must still be as mixed as a draw's (not ``AbstractFactoryBuilder==``).
    """
    if len(value) % 4 or not _PADDED_BASE64.fullmatch(value):
        return False
    core = value.rstrip("=")
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    return (
        upper >= len(core) // 4
        and lower >= len(core) // 4
        and shannon_entropy(core) >= expected_entropy(len(core), 64) - 0.7
        and ordered_fraction(core) <= 0.25
    )


def _issued(value: str) -> bool:
    """``dop_v1_<hex>``, ``pat-na1-<uuid>``: up to three short parts naming an issuer, a draw."""
    body = value
    for _ in range(3):
        part = _ISSUER_PART.match(body)
        if part is None:
            return False
        body = body[part.end() :]
        if len(body) >= 16 and "." not in body and shape(body) >= PICKED:
            return True
    return False


def _short_draw(value: str) -> bool:
    """``ldyWzNAOOBAVtiaM``: 16 or more random characters, too few to tell from a name alone."""
    if drawn_letters(value, least=16):
        return True  # ldyWzNAOOBAVtiaM: base52 with no digit drawn
    return looks_random(value) and _NOT_HEX.search(value) is not None and not _camel_tail(value)


def _drawn(value: str) -> bool:
    """``twkg7bpc4uvo3ui2l5uwq2zj``, ``Kbn9MKGkEzIe...``: 20 or more characters drawn at random.

    As random as a draw from the alphabet the value uses (one case and digits, both cases,
    base64), with digits and letters both; bare hex is left to names (digests are hex).
    """
    core = value.rstrip("=")
    if len(core) < MIN_DRAWN or not any(c.isdigit() for c in core):
        return False
    if "=" in core or _REPEATED_SYMBOL.search(core):
        return False  # value1//key2=value2//...: pairs and paths, not a draw
    if not any(c.isalpha() for c in core) or _NOT_HEX.search(core) is None:
        return False
    alphabet = 62 if any(c.isupper() for c in core) and any(c.islower() for c in core) else 36
    return (
        shannon_entropy(core) >= expected_entropy(len(core), alphabet) - 0.7
        and ordered_fraction(core) <= 0.25
    )


def _adjacent(text: str, name_end: int, strong: bool) -> tuple[int, int] | None:
    """The value right after a name (``= X``, ``: "X"``, ``is X``), if it has the shape."""
    gap = _GAP.match(text, name_end)
    if gap is None or gap.end() == name_end:
        return None
    quote = gap.group("quote")
    django = _django_key(text, gap.end(), quote)
    if django is not None:
        return django
    m = (_QUOTED_VALUE if quote and quote != _BARS else _VALUE).match(text, gap.end())
    if m is None:
        return None
    start, end = m.span()
    if quote:
        if not text.startswith(quote, end):
            return None  # the quoted value holds something a value does not
        if _FORMATTED.match(text, end + 1):
            return None  # "VS%0.f0COMNTOOLS" % version: a format, filled in
    elif end < len(text) and text[end] not in _VALUE_END:
        return None
    at = text.rfind("@", start, end)
    if at > start and _HOST_AFTER.match(text, at + 1, end):
        end = at  # x-access-token:<token>@github.com/...: the host is not the value
    value = text[start:end]
    if not quote:
        trimmed = value.rstrip(".:!?")
        end -= len(value) - len(trimmed)
        value = trimmed
    found = shape(value)
    if not found and not quote and value.lower() in _QUALIFIERS and text.startswith(" ", end):
        return _adjacent(text, end, strong)  # password plaintext <value>
    if not found and not quote and _SCHEME.fullmatch(value) and text.startswith(" ", end):
        # Authorization: GenieKey <value>, Bearer <value>: the scheme names the value after it
        return _adjacent(text, end, strong)
    if found == RANDOM or (strong and found >= PICKED):
        return start, end
    if found == PICKED and _keyed_shape(value) and _keyed(text, start):
        return start, end  # api: / key: <hex>, user: u / key: <uuid>
    if found == PICKED and quote and "," in gap.group() and typed_on(value):
        return start, end  # useInMemoryPgpKeys(signingKey, "Orbit952*gC1S"): its sibling
    if strong and found == PLAIN and _plain_place(text, gap, end):
        return start, end
    return None


# Django's ``get_random_secret_key()``: 50 characters of ``a-z0-9!@#$%^&*(-_=+)``, which the
# value regexes read as code for its brackets (``'+e_ki9+%ijd99hd)2*9(lg_4^-eq(d8@...'``); apps
# built on Django (Paperless-ngx, Sentry, NetBox) ask for one "of at least 50 characters" and
# people draw it in both cases, longer or a little shorter.
_DJANGO_KEY: Final = re.compile(r"(?:django-insecure-)?[A-Za-z0-9!@#$%^&*(\-_=+)]{40,100}")


def _django_key(text: str, start: int, quote: str | None) -> tuple[int, int] | None:
    """A Django secret key right after a secret's name, quoted or ending the value."""
    if not quote and text.startswith("==", start - 2):
        start -= 1  # SECRET_KEY==h+&b...: the gap took the key's first "=" for an operator's
    m = _DJANGO_KEY.match(text, start)
    if m is None:
        return None
    end = m.end()
    if quote:
        if not text.startswith(quote, end):
            return None
    elif end < len(text) and not text[end].isspace():
        return None
    key = m.group().removeprefix("django-insecure-")
    cased = any(c.isupper() for c in key) and any(c.islower() for c in key)
    if len(key) < 40 or (len(key) != 50 and not cased):
        return None  # Django's own length, or a person's draw in both cases
    symbols = sum(not c.isalnum() for c in key)
    digits = sum(c.isdigit() for c in key)
    if symbols < 4 or digits < 2 or symbols > len(key) // 2:
        return None  # a draw of 50 holds about 14 symbols and 10 digits (8 and 6 in both cases)
    drawn = shannon_entropy(key) >= expected_entropy(len(key), 50) - 0.7
    return (start, end) if drawn and ordered_fraction(key) <= 0.25 else None


def _plain_place(text: str, gap: re.Match[str], end: int) -> bool:
    """Whether a plain value (``postgres196``) stands where only a literal can stand.

    A quoted value after an operator, or a bare one ending the line after a bare name (YAML,
    INI, ``.env``; a comment may follow it), or ending a clause of prose after the name and a
    blank (``(login admin, pw Harbor16PKNYT)``). Not an argument (``Buffer(password,
    'utf16le')``, ``createToken('GTE0')``) nor a bare value after a quoted name
    (``'Authorization': type1msg`` is a variable).
    """
    between = gap.group()
    if "," in between or "(" in between:
        return False
    if gap.group("quote"):
        return True
    rest = text[end : line_end(text, end, 160)]
    ended = not rest.strip(" \t.!?") or _TRAILING_COMMENT.match(rest) is not None
    clause = between == " " and rest[:1] in {")", ",", ";"}
    return (ended or clause) and not between.startswith(("'", '"', "`"))


# A comment after a value that ends its line's text (``pw = X ; shared with cron``, INI and
# shell alike): the value still ends the setting.
_TRAILING_COMMENT: Final = re.compile(r"[ \t]+[;#][ \t]")


def _further(text: str, start: int) -> list[tuple[int, int]]:
    """Values further along the line that are random or picked (``login u X``, ``Auth("u", X)``)."""
    stop = min(line_end(text, start), start + _LINE_REACH)
    spans: list[tuple[int, int]] = []
    for m in _LATER.finditer(text, start, stop):
        which = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g))
        value = m.group(which)
        if which != "bare" and _FORMATTED.match(text, m.end()):
            continue  # "VS%0.f0COMNTOOLS" % version
        hex_digits = _HEX.fullmatch(value) or _SHORT_HEX.fullmatch(value)
        drawn = shape(value) >= PICKED and not hex_digits
        if drawn or (which != "bare" and shape(_spelled(value)) >= PICKED):
            spans.append(m.span(which))
    return spans


_HEX_TEXT: Final = re.compile(r"(?:[0-9a-fA-F]{2}){8,128}")
_BASE64_TEXT: Final = re.compile(
    r"(?:[A-Za-z0-9+/]{4}){2,64}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
)


def _spelled(value: str) -> str:
    """The text a hex or base64 literal spells, if it spells printable text; else ``""``.

    A password kept "out of plain text" is a decode away (``bytes.fromhex("4d61706c65...")``,
    ``$(echo 'TWFwbGUx...' | base64 -d)``): further along a secret's line, the literal counts
    when what it spells has a credential's shape. Digests and keys spell bytes, not text.
    """
    try:
        if _HEX_TEXT.fullmatch(value):
            raw = bytes.fromhex(value)
        elif _BASE64_TEXT.fullmatch(value):
            raw = base64.b64decode(value)
        else:
            return ""
    except ValueError:
        return ""
    return raw.decode("ascii") if raw.isascii() and raw.decode("ascii").isprintable() else ""


def _spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    begin, name_end = _name_around(text, m.start(), m.end())
    if _referenced(text, begin, name_end):
        # "$PASSPHRASE", %TOKEN%, ${SECRET}: a reference stands here, not a name; but the
        # default a placeholder falls back to (${DB_PASSWORD:X}) is a literal.
        return _placeholder_default(text, begin, name_end)
    name = text[begin:name_end]
    strength = _named_kind(name)
    if strength is None and not name.lower().endswith("login"):
        return []
    adjacent = _adjacent(text, name_end, bool(strength))
    if adjacent is not None:
        return [adjacent]
    if strength is False and not name.lower().endswith("auth"):
        return []  # "key", "session": too common in code to read the rest of the line for
    return _further(text, name_end)


# The default after a placeholder's name (``${DB_PASSWORD:X}``, ``${TOKEN:-X}``, Spring and
# shell alike), up to the brace that closes it.
_DEFAULT: Final = re.compile(r":-?(?P<value>[^\s${}\"'`]{4,200})\}")


def _placeholder_default(text: str, begin: int, name_end: int) -> list[tuple[int, int]]:
    """The literal a strongly named placeholder falls back to, if it has a credential's shape.

    Configs that read a secret from the environment often carry the real one as the default
    (``password: ${DB_PASSWORD:Lantern41dPW#I8.e}``); a word (``${DB_PASSWORD:postgres}``)
    or another placeholder is left.
    """
    if text[max(0, begin - 2) : begin] != "${" or _named_kind(text[begin:name_end]) is not True:
        return []
    m = _DEFAULT.match(text, name_end)
    if m is None or shape(m.group("value")) < PLAIN:
        return []
    return [m.span("value")]


# A user and a password joined by a colon or a comma: after a user flag or field
# (``-u ci:X``, ``--user root:X``, ``user = "jdoe:X"``, ``-u deploy,X``) or as a URL's user-info
# (``amqps://worker:X@host``). Read on the lowercased text, so the engine finds "user", "-u"
# and "://" by their prefixes.
_PAIR_RE: Final = re.compile(
    r"(?:(?:--user|-user|user|-u)(?:name)?[\"']?[ \t]{0,4}[=: \t][ \t]{0,4}[\"']?"
    r"|://)(?P<user>[^\s:,\"'@/<>=]{1,64})[:,](?P<secret>[^\s\"'`,;@<>]{1,128})"
)
# Below this many characters a user's "password" is a placeholder (``-u KEY:X``) or a port.
_LEAST_PAIRED: Final = 6


def _pair_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """A user's password with a credential's shape (a plain word is a port), and the user.

    The user counts when it is a drawn key (``-u <api key>:X``: the key stands where the user
    does, with a placeholder for the password).
    """
    value = text[m.start("secret") : m.end("secret")]
    url = m.group().startswith("://")
    if url and not text.startswith("@", m.end("secret")):
        return []  # scheme://host:port/..., not user-info
    spans: list[tuple[int, int]] = []
    long_enough = len(value) >= _LEAST_PAIRED and not value.isdigit()
    if long_enough and shape(value) >= (PLAIN if url else PICKED):
        spans.append(m.span("secret"))
    user = text[m.start("user") : m.end("user")]
    if len(user) >= MIN_DRAWN and (
        shape(user) == RANDOM or (has_entropy(user) and looks_random(user))
    ):
        spans.append(m.span("user"))
    return spans


# A URL's user-info that is one drawn token (``https://<token>@git.fury.io/...``).
_TOKEN_USER_RE: Final = re.compile(r"://(?P<secret>[^\s:/@\"'<>]{16,128})@")


def _classify_token_user(m: re.Match[str], text: str) -> str | None:
    value = text[m.start("secret") : m.end("secret")]
    return KIND if shape(value) == RANDOM else None


# A URL's query parameter named for a key or a token (``?appid=<hex>``, ``&token=<draw>``):
# where a URL carries its credential. Anchored on the ``?`` or ``&`` (``key=`` alone is every
# keyword argument in Python).
_QUERY_RE: Final = re.compile(
    r"[?&](?:app_?id|api_?key|api-key|key|access_?token|token|auth|secret|sig|signature)="
    r"(?P<secret>[A-Za-z0-9._~-]{12,256})(?=[&#\s\"'<>)]|$)"
)
# The same query names written outside a URL (``appid <hex>`` in a sentence, ``APPID =
# '<hex>'``, ``appId: "<hex>"``): ``appid`` is the key of the APIs that name it so, and 32 hex
# digits or more are no app's public id (those are numbers, or short). Read lowercased.
_APP_ID_RE: Final = re.compile(
    r"app(?:id|_id|-id)[\"'`]?[ \t]{0,8}(?:[:=][ \t]{0,8})?[\"'`]?"
    r"(?P<secret>[0-9a-f]{32,64})(?![0-9a-z_-])"
)
# Log collectors that take their token as a path segment (``/inputs/<uuid>/tag/...``).
_PATH_TOKEN_RE: Final = re.compile(
    r"/(?:inputs?|ingest|collect|bulk)/(?P<secret>[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
    r"|[0-9a-f]{32,64})(?=[/?#\s\"'<>)]|$)"
)
# The key of an encrypted paste, in a URL's fragment after the paste's id (``/?<id>#<key>``):
# the server never sees it, so whoever has the link has the plaintext.
_FRAGMENT_KEY_RE: Final = re.compile(
    r"/\?[0-9a-f]{8,64}#(?P<secret>[1-9A-HJ-NP-Za-km-z]{32,64}|[A-Za-z0-9_-]{32,64})"
)


def _classify_query(m: re.Match[str], text: str) -> str | None:
    """A query value that is hex, a UUID or a draw: a word or a number is some other setting."""
    value = text[m.start("secret") : m.end("secret")]
    if _HEX.fullmatch(value) or shape(value) == RANDOM:
        return KIND
    if is_reference(value):
        return None
    if _short_app_token(value):
        return KIND
    if not _flipping(value):
        return None  # a word, a name, a version: some other setting
    return KIND if has_entropy(value) or not wordy(value) else None


def _short_app_token(value: str) -> bool:
    """A short token that may hold a dot (``AbXkz.QpwLRT9``): digits, both cases, no word.

    In a URL's ``token=`` no attribute path stands, so a dot does not make it code; a
    name's capitals start its words (``Release.Candidate2``), a draw's stand anywhere.
    """
    if "." not in value or not has_entropy(value) or wordy(value):
        return False
    inner = sum(c.isupper() for part in value.split(".") for c in part[1:])
    return inner >= 2


def _flipping(value: str) -> bool:
    """Whether the letters of *value* flip case as often as a draw's (three in ten at least).

    Identifiers flip once a word (``XMLHttpRequest``: three in thirteen).
    """
    letters = [c for c in value if c.isalpha()]
    flips = sum(a.isupper() != b.isupper() for a, b in itertools.pairwise(letters))
    return flips >= 0.3 * max(1, len(letters) - 1)


def _classify_url_part(m: re.Match[str], text: str) -> str | None:
    return KIND


# A secret's name whose value is on the lines after it: the name closes an element at the end
# of its line (``<key>Password</key>``, ``<name>db.password</name>``), opens one
# (``<AdministratorPassword>``, ``<elementProp name="password" ...>``), or is assigned a block
# opened there (``SMTP_PASSWORD = (``, ``"X-Api-Key": {``). Read on the lowercased text.
_OPENER_RE: Final = re.compile(
    "(?:" + _SECRET_WORDS + ")"
    "(?:" + _SECRET_ENDINGS + r")?[0-9_-]{0,3}+"
    r"(?P<opener></[\w:.-]{1,40}>|[\"'][^<>\n]{0,80}>|>"
    r"|[\"'`]?[ \t]{0,8}(?:=>|=|:)[ \t]{0,8}[\[({]"
    r"|(?P<last>[\"'`]?[ \t]{0,8}[:=,]?[ \t]{0,8}(?:\"\"\"|'''|[\"'`])?[,;]?))[ \t]*\r?\n"
)
# What the lines after such a name may hold as its value: an element's text, a literal alone on
# its line, or a field of the block (``"equalTo": "X"``).
_BLOCK_VALUE: Final = re.compile(
    r"[ \t]*(?:<[\w:.-]{1,40}(?:[ \t][^<>\n]{0,120})?>(?P<text>[^<>\s]{4,200})</"
    r"|(?P<q>[\"'])(?P<literal>[^\"'\s\\]{4,200})(?P=q)[ \t]*[,)]?[ \t]*\r?$"
    r"|[\"'][\w.-]{1,40}[\"'][ \t]*:[ \t]*(?P<fq>[\"'])(?P<field>[^\"'\s\\]{4,200})(?P=fq))"
)
# What the line after a secret's name that ends its line may hold as its value (``$ cat
# ~/.x/access-token`` then the token, ``- name: registry-password`` then ``value: X``,
# ``expect "password:"`` then ``send "X"``): a value alone, a YAML field named for a value,
# or one word and a quoted literal. A value alone may hold a ``#`` (``Cobalt#fjord#117mSl3``):
# only one that starts its line is a comment.
_NEXT_LINE_VALUE: Final = re.compile(
    r"[ \t]*(?:(?P<alone>[^\s\"'`<>,;#][^\s\"'`<>,;]{7,199})(?:\"\"\"|'''|[,;])?"
    r"|(?:-[ \t]+)?[\"']?[\w.-]{0,24}(?i:value|val|data)[\"']?[ \t]*[:=][ \t]*(?P<vq>[\"']?)"
    r"(?P<value>[^\"'\s\\]{4,200})(?P=vq)"
    r"|[a-z][\w-]{0,24}[ \t]+(?P<wq>[\"'])(?P<said>[^\"'\s\\]{4,200}?)(?:\\[rn])*(?P=wq))"
    r"[ \t]*[,;)}\]]{0,2}[ \t]*\r?$"
)
_BLOCK_LINES: Final = 4


def _block_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The value on the few lines after a secret's name that opens a block or an element.

    The first value there with a credential's shape (a strong name takes a picked or hex one,
    a weak one only a random draw): ``<boolProp>false</boolProp>`` before it is skipped.
    """
    if m.group("last") is not None and _statement(text, m.start(), m.start("opener")):
        return []
    begin, name_end = _name_around(text, m.start(), m.start("opener"))
    if _referenced(text, begin, name_end):
        return []
    strength = _named_kind(text[begin:name_end])
    if strength is None:
        return []
    least = PICKED if strength else RANDOM
    position = m.end()
    if m.group("last") is not None:
        return _next_line_spans(text, position, least)
    for _ in range(_BLOCK_LINES):
        stop = line_end(text, position)
        found = _BLOCK_VALUE.match(text, position, stop)
        if found is not None:
            which = next(g for g in ("text", "literal", "field") if found.group(g))
            if shape(found.group(which)) >= least:
                return [found.span(which)]
        position = stop + 1
        if position >= len(text):
            break
    return []


def _statement(text: str, start: int, end: int) -> bool:
    """Whether the word ending its line at ``text[start:end]`` is Python's ``pass`` statement."""
    return end - start == 4 and (start == 0 or text[start - 1] in " \t\n")


def _next_line_spans(text: str, position: int, least: int) -> list[tuple[int, int]]:
    """The value on the first line with text after a secret's name that ended its own line."""
    for _ in range(2):
        stop = line_end(text, position)
        if text[position:stop].strip():
            found = _NEXT_LINE_VALUE.match(text, position, stop)
            if found is None:
                return []
            which = next(g for g in ("alone", "value", "said") if found.group(g))
            value = found.group(which)
            if shape(value) >= least and not (which == "alone" and _code(value)):
                return [found.span(which)]
            return []
        position = stop + 1
        if position >= len(text):
            break
    return []


# A person's password with no name near: a capitalised word, digits and typed-on characters
# (``Tiger10!X_6HWcD`` as a call's fourth argument, ``jdoe Maple83_VZfch.`` in a file of
# users), standing as a token of its own (or glued to a one-letter flag: ``-pCopper67yWlq``, or
# after an escaped line break: ``AUTH\r\n$14\r\nCopper662dTMYi`` in a protocol trace);
# a ``$`` continues a JavaScript name (``Base64Url$``), so it ends none.
_TYPED_TOKEN: Final = re.compile(
    r"(?:(?<![A-Za-z0-9_.$])|(?<=-[a-z])|(?<=\\[nrt]))(?P<secret>[A-Z][a-z]{2,9}[0-9]{2,4}"
    r"[A-Za-z0-9!#%^*_.~+?=&]{4,10}+)(?![A-Za-z0-9!#%^*_$~+?=&])"
)
# Where the engine finds one: the word and the first two digits, inside the few characters
# around a run of digits it searches (the token is read whole by :func:`_typed_spans`).
_TYPED_RE: Final = re.compile(
    r"(?:(?<![A-Za-z0-9_.$])|(?<=-[a-z])|(?<=\\[nrt]))(?P<secret>[A-Z][a-z]{2,9}[0-9]{2})"
    r"(?=[A-Za-z0-9!#%^*_.~+?=&])"
)
_TYPED_HEAD: Final = re.compile(r"[A-Z][a-z]{2,9}[0-9]{2}")
# In a tail, what a name has and a person's typing rarely does: a capitalised word
# (``Route53Actions0``), an attribute, a constant or a host after a dot (``Route53.dispatch``,
# ``Shell32.INSTANCE``, not ``Harbor35KIS.Swx``), a dunder (``Catalog0380__set``).
_NAMED_TAIL: Final = re.compile(
    r"[A-Z](?=[a-z]{3})[a-z]*?[aeiouy]|\.[A-Z]?(?=[a-z]{3})[a-z]*?[aeiouy]|\.[A-Z_]{4}|__"
)


def typed_anywhere(value: str) -> bool:
    """Whether *value* is a person's password by its shape alone, with no name to say so.

    Stricter than :func:`comodor.brain.redaction.values.typed_on`, which a secret's name
    backs: four characters or more typed on, not all digits (``Stmt1480452973134`` is an
    id), and nothing a type's or an attribute's name has (``Base64Str``, ``Float64_co``).
    """
    head = _TYPED_HEAD.match(value)
    if head is None or not typed_on(value) or _code(value):
        return False
    tail = value[head.end() :]
    if len(tail) < 4 or tail.isdigit():
        return False
    # Tiger796CizhKs8, Tiger12OYanpkI: a word-like run among short runs no name uses (an
    # acronym's last capital before a word is the name's: Mingw32CCompiler)
    return not (_named_tail(tail) and words_after_digits(_ACRONYM_END.sub("", tail)))


_ACRONYM_END: Final = re.compile(r"[A-Z](?=[A-Z][a-z])")


_RUN_AT: Final = re.compile(r"[._]?[A-Z]?[a-z]+")


def _named_tail(tail: str) -> bool:
    """Whether *tail* holds what a name has (:data:`_NAMED_TAIL`) in a word a name could use.

    ``Route53Actions0``, ``Route53.dispatch``; not ``Harbor60Njblo``, whose capitalised run
    starts as no English word does.
    """
    for m in _NAMED_TAIL.finditer(tail):
        run = _RUN_AT.match(tail, m.start())
        if run is None or word_like(run.group().lstrip("._")):
            return True
    return False


def _typed_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    whole = _TYPED_TOKEN.match(text, m.start())
    if whole is None:
        return []
    start, end = whole.span("secret")
    value = text[start:end]
    if not (text.startswith(_CLOSING_QUOTES, end) and _TYPED_BEFORE_DOT.search(value)):
        value = value.rstrip(".")  # a sentence's full stop, unless quoted after typing
    return [(start, start + len(value))] if typed_anywhere(value) else []


_CLOSING_QUOTES: Final = ("`", "'", '"')
# A final dot kept inside quotes (``Copper37Yr7.``, ``Tiger75y7m.``) ends typing that went on
# past the letters after the digits, not a word (``Base64Url.``).
_TYPED_BEFORE_DOT: Final = re.compile(r"[0-9][A-Za-z]+[0-9!#%^*_~+?=&]")


NET_RULES: Final[tuple[Rule, ...]] = (
    Rule(KIND, ENTROPY, _WORD_RE, on_lowercase=True, spans=_spans),
    Rule(KIND, ENTROPY, _PAIR_RE, on_lowercase=True, spans=_pair_spans),
    Rule(KIND, ENTROPY, _TOKEN_USER_RE, _classify_token_user),
    Rule(KIND, ENTROPY, _QUERY_RE, _classify_query, on_lowercase=False),
    Rule(KIND, ENTROPY, _APP_ID_RE, _classify_url_part, on_lowercase=True),
    Rule(KIND, ENTROPY, _PATH_TOKEN_RE, _classify_url_part),
    Rule(KIND, ENTROPY, _FRAGMENT_KEY_RE, _classify_url_part),
    Rule(KIND, ENTROPY, _OPENER_RE, on_lowercase=True, spans=_block_spans),
    Rule(
        KIND,
        ENTROPY,
        _TYPED_RE,
        spans=_typed_spans,
        # The engine looks only at runs of two digits or more right after a lower-case letter
        # (``Tiger10``), and starts the pattern up to ten letters before them: a regex over
        # the whole text would cost a 5,000-line correction 6 ms.
        run_chars="0123456789",
        min_run=2,
        run_lead=10,
        run_after="abcdefghijklmnopqrstuvwxyz",
    ),
)
"""The net, meant to run after every named rule (:data:`comodor.brain.redaction.RULES`)."""
