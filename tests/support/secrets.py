"""A corpus of FAKE credentials, shaped exactly like real ones, for the whole test suite.

Every value is drawn at random for each test run (from :data:`SEED`, printed in the pytest
header; set ``COMODOR_SECRETS_SEED`` to replay a run) and carries an obvious ``FAKE``/``fake``
marker where the format allows it, so none of them is, or was ever, a working credential.
They still have the right prefixes, lengths and alphabets, which is what a redactor (or a
leak) cares about. Fixed values are used only where the real format is fixed.

Each sample is one *kind* of credential as it is found in the wild (:attr:`SecretSample.name`:
a Discord bot token, a ``mysql -p`` flag, a Kubernetes ``Secret``), with the marker the
redactor is expected to write for it (:attr:`SecretSample.kind`).

Use :data:`SECRET_SAMPLES` to feed realistic lines of code, config and logs through the product,
and :func:`all_secret_strings` to assert that none of those bytes appear in anything the product
writes::

    for secret in all_secret_strings():
        assert secret not in brain_file.read_text()
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import random
import string
import uuid

import attrs

__all__ = [
    "SECRET_SAMPLES",
    "SEED",
    "SecretSample",
    "all_secret_strings",
    "build_corpus",
    "samples_of_kind",
]

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
BASE32 = string.ascii_uppercase + "234567"
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BASE64 = ALNUM + "+/"
BASE64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
DIGITS = string.digits

SEED: int = int(os.environ.get("COMODOR_SECRETS_SEED") or random.SystemRandom().randrange(2**32))
"""The seed of this run's corpus (a new one per run unless ``COMODOR_SECRETS_SEED`` is set)."""

# The first words of the BIP-39 English list: a seed phrase is 12 or 24 of them.
_SEED_WORDS = tuple(
    [
        "abandon",
        "ability",
        "able",
        "about",
        "above",
        "absent",
        "absorb",
        "abstract",
        "absurd",
        "abuse",
        "access",
        "accident",
        "account",
        "accuse",
        "achieve",
        "acid",
        "acoustic",
        "acquire",
        "across",
        "action",
        "actor",
        "actress",
        "actual",
        "adapt",
        "addict",
        "address",
        "adjust",
        "admit",
        "adult",
        "advance",
        "advice",
        "aerobic",
        "affair",
        "afford",
        "afraid",
        "again",
        "agent",
        "agree",
        "ahead",
        "airport",
        "aisle",
        "alarm",
        "album",
        "alcohol",
        "alert",
        "alien",
        "alley",
        "allow",
        "almost",
        "alone",
        "alpha",
        "already",
        "also",
        "alter",
        "always",
        "amateur",
        "amazing",
        "among",
        "amount",
        "amused",
        "analyst",
        "anchor",
        "ancient",
        "anger",
        "angle",
        "angry",
        "animal",
        "ankle",
        "announce",
        "annual",
        "another",
        "answer",
        "antenna",
        "antique",
        "anxiety",
        "apart",
        "apology",
        "appear",
        "apple",
        "approve",
        "april",
        "arch",
        "arctic",
        "area",
        "arena",
        "argue",
        "armed",
        "armor",
        "army",
        "around",
        "arrange",
        "arrest",
        "arrive",
        "arrow",
        "artefact",
        "artist",
        "artwork",
        "aspect",
        "assault",
        "asset",
        "assist",
        "assume",
        "asthma",
        "athlete",
        "atom",
        "attack",
        "attend",
        "attitude",
        "attract",
        "auction",
        "audit",
        "august",
        "aunt",
        "auto",
        "autumn",
        "average",
        "avocado",
        "avoid",
        "awake",
        "aware",
        "away",
        "awesome",
        "awful",
        "awkward",
        "axis",
    ]
)


@attrs.frozen
class SecretSample:
    """One fake credential and a realistic line (or block) of text that embeds it."""

    kind: str  # the kind the redactor is expected to report: [REDACTED:<kind>]
    secret: str  # the raw secret exactly as it appears in ``context``
    context: str
    name: str = ""  # the kind of credential, as a person would name it

    def __attrs_post_init__(self) -> None:
        assert self.secret in self.context, f"{self.kind}: secret not embedded in its context"
        assert len(self.secret) >= 8, f"{self.name}: too short to check for fragments"

    @property
    def fragments(self) -> list[str]:
        """The secret plus each substantial line of it (a key leaks line by line in a diff)."""
        lines = [
            line.strip()
            for chunk in self.secret.split("\n")
            for line in chunk.split("\\n")
            if len(line.strip()) >= 16 and "-----" not in line
        ]
        return [self.secret, *(line for line in lines if line != self.secret)]

    @property
    def shingles(self) -> set[str]:
        """Every 8-character piece of the secret: none of them may survive redaction."""
        return {self.secret[i : i + 8] for i in range(len(self.secret) - 7)}

    @property
    def own_shingles(self) -> set[str]:
        """The pieces of the secret its text does not also say elsewhere, in any case.

        For checks that compare without case: "postgres" of the password postgres123
        is also the ordinary word in POSTGRES_USER beside it, and may stay.
        """
        around = self.context.replace(self.secret, " ").lower()
        return {piece for piece in self.shingles if piece.lower() not in around}


class _Draw:
    """Random values for one corpus, each drawn from its own label so samples stay stable."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def rng(self, label: str) -> random.Random:
        digest = hashlib.sha256(f"comodor-fake-secrets/{self.seed}/{label}".encode()).digest()
        return random.Random(digest)

    def fake(self, label: str, length: int, alphabet: str = ALNUM, marker: str = "FAKE") -> str:
        """``length`` characters from ``alphabet``, starting with ``marker``.

        Generated strings always mix upper case, lower case and digits when the alphabet has
        them, like real random tokens do.
        """
        rng = self.rng(label)
        wanted = [
            cls
            for cls in (string.ascii_uppercase, string.ascii_lowercase, string.digits)
            if any(c in alphabet for c in cls)
        ]
        while True:
            body = marker + "".join(rng.choice(alphabet) for _ in range(length - len(marker)))
            if all(any(c in cls for c in body) for cls in wanted):
                return body

    def hex(self, label: str, length: int) -> str:
        return self.fake(label, length, HEX, marker="fa4e")

    def uuid(self, label: str) -> str:
        return str(uuid.UUID(int=self.rng(label).getrandbits(128), version=4))

    def password(self, label: str, length: int = 18) -> str:
        """A password of the kind people pick for services: a word, digits and a symbol."""
        rng = self.rng(label)
        word = rng.choice(["Fake", "Falcon", "Harbor", "Maple", "Orbit", "Summer", "Tiger"])
        rest = "".join(rng.choice(ALNUM + "!#%^*_") for _ in range(length - len(word) - 2))
        return f"{word}{rng.randrange(10, 99)}{rest}"

    def b64(self, label: str, size: int) -> str:
        return base64.b64encode(self.rng(label).randbytes(size)).decode()

    def words(self, label: str, count: int) -> str:
        rng = self.rng(label)
        return " ".join(rng.sample(_SEED_WORDS, count))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _fake_jwt(draw: _Draw) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {
        "sub": f"fake-user-{draw.rng('jwt').randrange(10**6)}",
        "name": "Fake Person",
        "iat": 1700000000,
        "fake": True,
    }
    payload = _b64url(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode()
    signature = hmac.new(draw.rng("jwt-key").randbytes(32), signing_input, hashlib.sha256)
    return f"{header}.{payload}.{_b64url(signature.digest())}"


def _pem(draw: _Draw, label: str, der_prefix: bytes, size: int, *, line_break: str = "\n") -> str:
    """A PEM block whose body is ``der_prefix`` followed by random bytes."""
    body = base64.b64encode(der_prefix + draw.rng(label).randbytes(size)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return line_break.join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])


def build_corpus(seed: int) -> list[SecretSample]:
    """Every sample, drawn from *seed* (the same seed always gives the same corpus)."""
    from tests.support import secret_kinds

    draw = _Draw(seed)
    samples: list[SecretSample] = []

    def add(name: str, kind: str, secret: str, context: str) -> None:
        samples.append(SecretSample(kind, secret, context, name))

    secret_kinds.providers(draw, add)
    secret_kinds.keys(draw, add, jwt=_fake_jwt(draw), pem=lambda *a, **k: _pem(draw, *a, **k))
    secret_kinds.context(draw, add)
    return samples


SECRET_SAMPLES: list[SecretSample] = build_corpus(SEED)


def samples_of_kind(kind: str) -> list[SecretSample]:
    """The samples whose expected kind is ``kind``."""
    return [sample for sample in SECRET_SAMPLES if sample.kind == kind]


def all_secret_strings() -> list[str]:
    """Every raw secret value in the corpus, plus each substantial line of multi-line ones.

    None of these strings may appear in any file the product writes.
    """
    seen: dict[str, None] = {}
    for sample in SECRET_SAMPLES:
        for fragment in sample.fragments:
            seen.setdefault(fragment)
    return list(seen)
