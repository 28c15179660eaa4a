"""Random-looking tokens that no other rule names: the net under every other rule.

A credential from a service nobody listed still looks like one: a run of 20 or more letters
and digits, mixed case, drawn at random. Real code is full of long runs that are *not*
secrets, and this module exists to tell them apart:

* hexadecimal of any length (commit SHAs, SHA-256 digests, UUIDs, lock-file hashes) is never
  taken on its own: hex secrets are only found by their names (``TOKEN=...``);
* integrity hashes (``sha512-...``, ``sha256:...``, ``h1:...``) and ``data:`` URIs are data;
* identifiers and paths (``test_redact_keeps_names``, ``os/path/join``, ``CamelCaseName``)
  are made of words, so their letters come in long lower-case runs a random draw rarely makes;
* base64 of ordinary text (test fixtures of words) decodes to text; it counts only when the
  text inside holds a secret (``postgres://user:pass@...``, a PEM block);
* alphabets and counting sequences (``ABCDEFGHIJ...``, ``0123456789``) are ordered, not random;
* blobs longer than a few hundred characters are images, fonts or archives, not keys --
  unless they are base64 of a text that holds a secret (a JSON key file in one variable).

The thresholds were tuned on the Python standard library and the JavaScript of
``client-vscode/node_modules`` (see ``bench/redaction.py``): at least 2 upper-case letters, 2
lower-case letters and 2 digits, and a Shannon entropy close to what a random draw of the same
length gives.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
from typing import Final

from ..base import ALNUM, ENTROPY, Rule, group, shannon_entropy
from ..matching import contains
from ..values import expected_entropy, ordered_fraction, wordy
from .keys import KEY_RULES
from .named_fields import CONTEXT_RULES
from .providers import PROVIDER_RULES

MIN_LENGTH: Final = 20
MAX_LENGTH: Final = 200

_TOKEN_RE: Final = re.compile(
    r"(?<![A-Za-z0-9+/_.~-])(?P<secret>[A-Za-z0-9+/_-]{20,}+={0,3})"
    r"(?![A-Za-z0-9+/=_~-]|\.[A-Za-z0-9])"
)
_DIGIT: Final = re.compile(r"[0-9]")
_DIGEST_PREFIX: Final = re.compile(
    r"(?:sha[0-9]{1,3}|md5|h1|blake2[bs]?|sum|hash|digest|integrity|checksum|etag|nonce)"
    r"[-:=\"' ]{1,4}$",
    re.IGNORECASE,
)
_DATA_URI: Final = re.compile(r"data:[a-z0-9.+/-]*(?:;[a-z0-9=.-]+)*;base64,$", re.IGNORECASE)


def _decodes_to_text(token: str) -> str | None:
    """The text a base64 token encodes, if it encodes printable text; else ``None``."""
    body = token.rstrip("=")
    if len(body) % 4 == 1:
        return None
    try:
        raw = base64.b64decode(
            body + "=" * (-len(body) % 4), altchars=b"-_" if "-" in body or "_" in body else None
        )
    except (binascii.Error, ValueError):
        return None
    if not raw:
        return None
    printable = sum(1 for byte in raw if 32 <= byte < 127 or byte in (9, 10, 13))
    return raw.decode("ascii", "replace") if printable >= len(raw) * 0.95 else None


# Public key material: certificates and public keys are published, not secret.
_ARMOR_RE: Final = re.compile(r"-----BEGIN (?P<label>[A-Z0-9 ]{1,40})-----")


@functools.lru_cache(maxsize=1)
def _public_blocks(text: str) -> tuple[list[int], list[int]]:
    """Where the PEM blocks of *text* that hold no private key start and end."""
    starts: list[int] = []
    ends: list[int] = []
    for m in _ARMOR_RE.finditer(text):
        if "PRIVATE" in m.group("label") or (starts and m.start() < ends[-1]):
            continue
        end = text.find(f"-----END {m.group('label')}-----", m.end())
        starts.append(m.start())
        ends.append(len(text) if end < 0 else end)
    return starts, ends


def _inside_public_block(text: str, position: int) -> bool:
    if "-----BEGIN " not in text:
        return False
    starts, ends = _public_blocks(text)
    i = bisect.bisect_right(starts, position)
    return i > 0 and position < ends[i - 1]


def _is_public_key_encoding(token: str) -> bool:
    """DER (certificates, SubjectPublicKeyInfo) or an SSH public key blob, by their bytes."""
    try:
        head = base64.b64decode(token[:24] + "=" * (-len(token[:24]) % 4))
    except (binascii.Error, ValueError):
        return False
    available = len(token.rstrip("=")) * 3 // 4
    if (
        len(head) >= 2
        and head[0] == 0x30
        # A short SEQUENCE states about the length there is (a line more, if wrapped); a
        # random token that merely starts with 0x30 states some unrelated length.
        and (head[1] >= 0x80 or available - 2 <= head[1] + 2 <= available + 48)
    ):
        return True  # an ASN.1 SEQUENCE (private ones are caught by the key rules first)
    # SSH wire format: a 4-byte length and then "ssh-rsa", "ecdsa-sha2-...", "sk-ssh-...".
    return len(head) >= 8 and head[:3] == b"\0\0\0" and head[4:8] in {b"ssh-", b"ecds", b"sk-s"}


_NOT_HEX: Final = re.compile(r"[^0-9a-fA-F=-]")
# Keys that are public by design: Stripe's publishable keys go into web pages.
_PUBLIC_PREFIXES: Final = ("pk_live_", "pk_test_")
# Identifiers made of a letter or two and hex: Gerrit's Change-Id (I + 40 hex), Twilio SIDs.
_PREFIXED_HEX: Final = re.compile(r"[A-Za-z]{1,2}[0-9a-fA-F]{16,}")
# What decoded text must contain before it is worth scanning for a secret of its own.
_SECRET_HINTS: Final = ("://", "-----", ":", "=", "_", "-")


_JSON_STRING: Final = re.compile(r'"(?P<value>[A-Za-z0-9+/=_-]{20,})"')


def _json_with_random_value(decoded: str) -> bool:
    """``{"a":"...","s":"<random>"}``: a JSON object holding a random base64 string."""
    if not decoded.startswith("{"):
        return False
    for m in _JSON_STRING.finditer(decoded):
        value = m.group("value").rstrip("=")
        if (
            len(value) >= 20
            and _NOT_HEX.search(value)
            and any(c.isupper() for c in value)
            and any(c.isdigit() for c in value)
            and not wordy(value)
            and shannon_entropy(value) >= expected_entropy(len(value)) - 0.6
        ):
            return True
    return False


_HEX_TEXT_MOST: Final = 8192


def _hex_text_secret(token: str) -> bool:
    """Hex that spells text holding a secret (``7b2254797065...``: ``{"Type":...,"PrivateKey"``).

    Wallets export keys so (``lotus wallet export``), tools dump config so; SHAs and digests
    spell bytes, not text, and fail the printable check on their first few pairs.
    """
    if len(token) % 2 or not 40 <= len(token) <= _HEX_TEXT_MOST:
        return False
    try:
        raw = bytes.fromhex(token)
    except ValueError:
        return False
    if any(not (32 <= byte < 127 or byte in (9, 10, 13)) for byte in raw[:8]):
        return False
    printable = sum(1 for byte in raw if 32 <= byte < 127 or byte in (9, 10, 13))
    if printable < len(raw) * 0.95:
        return False
    decoded = raw.decode("ascii", "replace")
    return _json_with_random_value(decoded) or contains(decoded, _RECHECK)


_DOCUMENT_MOST: Final = 8192


def _encoded_document(token: str) -> str | None:
    """A blob that is base64 of a text holding a secret: a service account's JSON key file.

    Longer than any token, so usually an image or a font; those spell bytes, and fail on the
    first few characters. A whole credential file put in one variable
    (``GOOGLE_CREDENTIALS_B64=eyJ0eXBlIjogInNlcnZpY2VfYWNjb3VudCIs...``) spells text.
    """
    if len(token) > _DOCUMENT_MOST or _decodes_to_text(token[:64]) is None:
        return None
    decoded = _decodes_to_text(token)
    if decoded is None or not any(hint in decoded for hint in _SECRET_HINTS):
        return None
    return "encoded-secret" if contains(decoded, _RECHECK) else None


def _may_be_random(token: str) -> bool:
    """Hex, or with a capital and a digit: anything else is a word or an identifier.

    Most of what a correction holds, told at once (~2 us a token saved, 0.2 ms of a
    5,000-line one); the count in :func:`_classify_random_token` rejects it too.
    """
    return _NOT_HEX.search(token) is None or (
        not token.islower() and _DIGIT.search(token) is not None
    )


def _may_be_random_token(text: str, start: int, end: int) -> bool:
    """:func:`_may_be_random` of a run, asked before the regex runs there.

    The token a run holds is the run itself (``=`` padding is hex to :data:`_NOT_HEX`, and
    neither a letter nor a digit): ~470 runs of a 5,000-line correction, identifiers nearly all.
    """
    return _may_be_random(text[start:end])


def _classify_random_token(m: re.Match[str], text: str) -> str | None:
    token = group(m, text, "secret") or ""
    length = len(token.rstrip("="))
    if not _may_be_random(token):
        return None
    if not _NOT_HEX.search(token):
        # Hexadecimal (SHAs, digests, UUIDs) is data, unless it spells a secret's text.
        return "encoded-secret" if _hex_text_secret(token) else None
    if length > MAX_LENGTH:
        return _encoded_document(token)
    if length < MIN_LENGTH:
        return None  # too short
    if _PREFIXED_HEX.fullmatch(token) or token.startswith(_PUBLIC_PREFIXES):
        return None
    upper = sum(map(str.isupper, token))
    digits = sum(map(str.isdigit, token))
    if not upper or not digits or upper + digits < 4 or upper + digits == len(token):
        return None
    if wordy(token) or (token.startswith("/") and token.count("/") >= 2 and "+" not in token):
        return None  # an identifier, a path or a JSON pointer (base64 may start with "/" too)
    before = text[max(0, m.start() - 40) : m.start()]
    if _DIGEST_PREFIX.search(before) or _DATA_URI.search(before):
        return None
    if _is_public_key_encoding(token) or _inside_public_block(text, m.start()):
        return None
    decoded = _decodes_to_text(token)
    if decoded is not None:
        if _json_with_random_value(decoded):
            return "encoded-secret"  # a tunnel or service token: base64 of a JSON object
        if not any(hint in decoded for hint in _SECRET_HINTS):
            return None
        return "encoded-secret" if contains(decoded, _RECHECK) else None
    if shannon_entropy(token) < expected_entropy(length) - 0.6:
        return None
    if ordered_fraction(token) > 0.25:
        return None  # an alphabet or a counting sequence
    return "random-token"


ENTROPY_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "random-token",
        ENTROPY,
        _TOKEN_RE,
        _classify_random_token,
        skip_covered=True,
        run_chars=ALNUM + "+/_-",
        min_run=MIN_LENGTH,
        run_check=_may_be_random_token,
    ),
)

_RECHECK: Final[tuple[Rule, ...]] = (*PROVIDER_RULES, *KEY_RULES, *CONTEXT_RULES, *ENTROPY_RULES)
"""The whole catalogue, in :data:`comodor.brain.redaction.RULES`' order, for decoded text."""
