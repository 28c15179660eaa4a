r"""Key material: PEM blocks, bare base64 keys, wallet keys, byte arrays, seed phrases, k8s secrets.

A private key is removed whole, wherever it sits: as a PEM block, as the same block with its
line breaks escaped inside a JSON, YAML or TOML string (``"private_key": "-----BEGIN
...\\n..."``), cut short in a log line, as bare base64 DER (``MIIEvQIBADANBg...``), or
base64-encoded once more (a Kubernetes ``tls.key``). Wallet keys and seed phrases have no
prefix, so they are only taken where their shape is clear *and* a name says what they are (a
wallet's constructor, or a heading on the line above, counts as a name). Tools that print key
bytes as text are read by their listing's own format: ``klist -k -K``'s keytab keys,
``paperkey``'s numbered lines of hex.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import itertools
import re
from typing import Final

from ..base import (
    BASE64_CHARS,
    CONTEXTUAL,
    PRIVATE_KEY,
    PROVIDER,
    WORD,
    Rule,
    anchored,
    group,
    line_end,
    line_start,
    lines_below,
)

_PEM_LABEL: Final = r"[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_KEY_MATERIAL: Final = re.compile(r"[A-Za-z0-9+/=]{20}")


def _classify_private_key(m: re.Match[str], _text: str) -> str | None:
    # Documentation mentions the BEGIN/END lines with no key in between; leave it readable.
    return "private-key" if _KEY_MATERIAL.search(m.group("body")) else None


# DER private keys in base64 start with fixed bytes: PKCS#1 RSA ("MIIEpAIBAAKCAQEA"),
# PKCS#8 ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"), SEC1 EC ("MHcCAQEEI"), PKCS#8 Ed25519
# ("MC4CAQAwBQYDK2VwBCIEI"), PKCS#8 EC ("MIGHAgEAMBMGByqGSM49"). Public keys and certificates
# ("MIIBIjANBg...", "MIIDdzCCAl+g...") start differently and are left alone.
# PKCS#12 bundles (.p12, .pfx: a key and its certificate) are a SEQUENCE holding version 3:
# "MIIKWwIBAzCC" (two length bytes), "MIMBAAACAQMwgw" (three), "MIACAQMwgA" (BER, Java).
_DER_KEY_RE: Final = re.compile(
    r"(?P<secret>(?:MII[A-Za-z0-9+/]{2}(?:AIBAAK|[A-Za-z0-9+/]IBADAN)|MHcCAQEE|MC4CAQAw|MIGHAgEAMBMG"
    r"|MIG2AgEAMBAG|MIIBVQIBADAN|b3BlbnNzaC1rZXktdjE"
    r"|MI[IJKL][A-Za-z0-9+/]{2}[AQgw]IBAzCC|MIM[A-Za-z0-9+/]{4}CAQMwgw|MIACAQMwgA)[A-Za-z0-9+/]{20,}+"
    r"(?:(?:\\n|\r?\n)[A-Za-z0-9+/]{40,}+)*+=*)"
)
# The base64 of "-----BEGIN" (a PEM block encoded again: Kubernetes secrets, CI variables).
_ENCODED_PEM_RE: Final = re.compile(r"(?P<secret>LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}=*)")
# The base64 of '{"auths":' -- a Docker config.json, as stored in a Kubernetes secret.
_ENCODED_DOCKER_CONFIG_RE: Final = re.compile(r"(?P<secret>eyJhdXRocyI6[A-Za-z0-9+/]{16,}=*)")


def _decoded_head(value: str, chars: int = 120) -> str:
    head = value[: chars - chars % 4]
    try:
        return base64.b64decode(head + "=" * (-len(head) % 4)).decode("ascii", "replace")
    except (binascii.Error, ValueError):
        return ""


def _classify_encoded_pem(m: re.Match[str], text: str) -> str | None:
    return "private-key" if "PRIVATE KEY" in _decoded_head(group(m, text, "secret") or "") else None


# PuTTY .ppk files: only the "Private-Lines" block is secret; the public half and the
# comment stay readable.
_PUTTY_RE: Final = re.compile(
    r"Private-Lines:[ \t]*[0-9]+\r?\n(?P<secret>(?:[A-Za-z0-9+/=]++(?:\r?\n|$))+)"
)

# --- wallets ----------------------------------------------------------------------------------

# 0x and 64 hex is a private key, a transaction hash, a block hash or a storage slot; only a
# name right before it tells which.
_HEX_KEY_RE: Final = re.compile(r"0x(?P<secret>[0-9a-f]{64})(?![0-9a-z])")
_WALLET_NAME: Final = re.compile(r"priv|secret|wallet|signer|deployer|mnemonic|seed|(?<!pub)key")
_NOT_WALLET_KEY: Final = re.compile(r"hash|tx|block|root|topic|slot|salt|nonce|public|pubkey")


# Hardhat and Truffle configs list the deployer's private keys: accounts: ["0x...", "0x..."]
# (an account's address is 40 hex digits; 64 under "accounts: [" are its keys).
_ACCOUNT_LIST: Final = re.compile(r"accounts[\"']?[ \t]*[:=][ \t]*\[[^\]]*$")


def _classify_hex_key(m: re.Match[str], text: str) -> str | None:
    if _ACCOUNT_LIST.search(text[max(0, m.start() - 600) : m.start()].lower()):
        return "wallet-key"
    line_start = text.rfind("\n", max(0, m.start() - 64), m.start()) + 1
    before = text[max(line_start, m.start() - 64) : m.start()].lower()
    name = before.rstrip(" \t:=\"'`,({[")
    name = name[max(0, len(name) - 40) :]
    if not _WALLET_NAME.search(name) or _NOT_WALLET_KEY.search(name):
        return None
    return "wallet-key"


# A phrase after a name that says seed, or as a wallet's first argument (``new
# HDWalletProvider('<words>', ...)``), or on the lines under a heading that says so (``Here is
# your secret paper key phrase:``, a blank line, the words). 12 to 25 words: BIP-39 phrases,
# Electrum's and Keybase's 13, Monero's 25.
_SEED_PHRASE_RE: Final = re.compile(
    r"(?:mnemonic|seed|recovery|secret|backup|wallet)[a-z_ -]{0,24}?(?:phrase|words|mnemonic)?"
    r"[\"'`]?[ \t]*(?:[:=]{1,2}[ \t]*[\"'`]?|\(?[\"'`])(?:[ \t]*\r?\n){0,2}[ \t]*"
    r"(?P<secret>(?:[a-z]{3,8}[ \t]+){11,24}+[a-z]{3,8})(?![a-z])"
)
_PHRASE_LENGTHS: Final = frozenset({12, 13, 15, 18, 21, 24, 25})


# Common English words that are not in the BIP-39 list: a sentence has several of them.
_PROSE_WORDS: Final = frozenset(
    {
        "the",
        "and",
        "that",
        "this",
        "with",
        "from",
        "have",
        "will",
        "should",
        "would",
        "could",
        "must",
        "does",
        "your",
        "their",
        "into",
        "when",
        "what",
        "which",
        "then",
        "than",
        "been",
        "were",
        "these",
        "those",
        "them",
        "they",
        "its",
        "our",
        "are",
        "was",
        "not",
        "but",
        "for",
        "you",
        "can",
        "how",
        "why",
        "who",
        "use",
    }
)


def _classify_seed_phrase(m: re.Match[str], text: str) -> str | None:
    words = (group(m, text, "secret") or "").split()
    if len(words) not in _PHRASE_LENGTHS or len(set(words)) < len(words) * 3 // 4:
        return None
    if sum(word in _PROSE_WORDS for word in words) >= 2:
        return None
    return "seed-phrase"


# --- keys written as byte arrays -------------------------------------------------------------

# A 32- or 64-byte key as a JSON array of numbers: Solana's id.json keypair, a NEAR or Sui
# key exported from a wallet, Uint8Array.from([...]) in a script.
_BYTE_ARRAY_RE: Final = re.compile(
    r"\[[ \t]*(?P<secret>(?:[0-9]{1,3}[ \t]*,[ \t]*){31}[0-9]{1,3}"
    r"(?:(?:[ \t]*,[ \t]*[0-9]{1,3}){32})?)[ \t]*\]"
)
_KEY_ARRAY_NAME: Final = re.compile(r"secret|priv|seed|keypair|wallet|signer|(?<!pub)key")


def _classify_byte_array(m: re.Match[str], text: str) -> str | None:
    """Random bytes, on a line of their own (a key file's content) or named for a key."""
    numbers = [int(n) for n in (group(m, text, "secret") or "").split(",")]
    rising = sum(b > a for a, b in itertools.pairwise(numbers))
    if max(numbers) > 255 or len(set(numbers)) < len(numbers) * 5 // 8:
        return None  # not bytes, or not random (a table, a run of zeros)
    if not len(numbers) // 4 < rising < len(numbers) * 3 // 4:
        return None  # sorted or nearly so: a range, an index, not a draw
    before = text[line_start(text, m.start(), 120) : m.start()]
    after = text[m.end() : line_end(text, m.end(), 120)]
    if not before.strip() and not after.strip():
        return "private-key"
    name = before.lower()
    return "private-key" if _KEY_ARRAY_NAME.search(name) and "public" not in name else None


# --- Kubernetes secrets -------------------------------------------------------------------------

# A `data:` (or `stringData:`) block of a Secret manifest: every value is a secret, and as
# base64 none of them says so. The names are kept.
_K8S_DATA_RE: Final = re.compile(
    r"data:[ \t]*\n(?P<secret>(?:[ \t]+[A-Za-z0-9_.-]+:[^\n]*(?:\n|$))+)"
)
_K8S_VALUE_RE: Final = re.compile(
    r"[ \t]+[A-Za-z0-9_.-]+:[ \t]*(?P<value>[^\s#][^\n]*?)[ \t]*$", re.M
)
_K8S_KIND_RE: Final = re.compile(
    r"kind:[ \t]*[\"']?Secret\b|type:[ \t]*[\"']?(?:Opaque|kubernetes\.io/)"
)


def _k8s_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    start, end = m.span("secret")
    spans = []
    for value in _K8S_VALUE_RE.finditer(text, start, end):
        if len(value.group("value")) >= 4:
            spans.append(value.span("value"))
    return spans


@functools.lru_cache(maxsize=1)
def _secret_manifest_marks(text: str) -> list[int]:
    """Where *text* says ``kind: Secret``: found once per text, not once per ``data:`` block."""
    return [m.start() for m in _K8S_KIND_RE.finditer(text)]


def _classify_k8s_data(m: re.Match[str], text: str) -> str | None:
    line_start = text.rfind("\n", max(0, m.start() - 64), m.start()) + 1
    if text[line_start : m.start()].strip().lower() not in {"", "string"}:
        return None  # "metadata:" or some other key ending in "data"
    # The kind may come before the data (as written) or after it (kubectl prints keys sorted).
    marks = _secret_manifest_marks(text)
    i = bisect.bisect_left(marks, m.start() - 2048)
    if i == len(marks) or marks[i] > m.end() + 2048 or not _k8s_spans(m, text):
        return None
    return "kubernetes-secret"


# --- passwords only obfuscated, and keys in text encodings of their own -------------------------

# Reversible obfuscations: Junos ``$9$`` (a fixed-table cipher anyone can undo) and WebSphere
# Liberty's ``{xor}``/``{aes}`` (base64 of the password xored with "_", or AES with a shipped
# key). Stored as they are, they are the password.
_OBFUSCATED_RE: Final = re.compile(
    r"(?P<secret>\$9\$[A-Za-z0-9./\-]{8,256}|\{(?:xor|aes)\}[A-Za-z0-9+/]{4,512}={0,2})"
)
# A ZeroMQ CURVE key in Z85 (40 characters from an alphabet full of punctuation) named secret:
# the public one beside it is not a secret.
_Z85_SECRET_RE: Final = re.compile(
    r"secret[_-]?key[\"'\]]?[ \t]*(?:=|:|\()[ \t]*b?(?P<q>[\"'])"
    r"(?P<secret>[0-9a-z.\-:+=^!/*?&<>()\[\]{}@%$#]{40})(?P=q)"
)


# Two-factor recovery (backup) codes: a file or a page named for them, then lines of codes
# (``08f66-571ab  67f5a-4c61d``, ``8d3k-2m9q``, ``48291736``), each a one-time password.
_RECOVERY_CODES_RE: Final = re.compile(r"(?:recovery|backup)[ _-]?codes?[^\n]{0,80}\r?\n")
_CODE_LINE: Final = re.compile(
    r"[ \t]*(?:[-*][ \t]+)?(?:[0-9a-z]{4,6}-[0-9a-z]{4,6}|[0-9]{8,10}|[0-9a-z]{8,12})"
    r"(?:[ \t]+(?:[0-9a-z]{4,6}-[0-9a-z]{4,6}|[0-9]{8,10}|[0-9a-z]{8,12}))*[ \t]*\r?"
)
_CODE_LINES: Final = 20


def _recovery_code_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The lines of codes right after a recovery codes header (a blank line may come first).

    Codes have digits: a list of words under the header (``enabled``) is not one.
    """
    spans: list[tuple[int, int]] = []
    position = m.end()
    for _ in range(_CODE_LINES):
        end = line_end(text, position)
        line = text[position:end]
        if _CODE_LINE.fullmatch(line) and any(c.isdigit() for c in line):
            first = len(line) - len(line.lstrip(" \t-*"))
            spans.append((position + first, end))
        elif line.strip() or spans:
            break  # text, or the blank line after the codes
        position = end + 1
        if position >= len(text):
            break
    return spans


# --- key listings: tools that print secret key bytes as text --------------------------------

# ``klist -k -K`` (and ``ktutil``'s ``list -k``) print each keytab entry's key after its
# encryption type: ``host/web01@REALM (aes256-cts-hmac-sha1-96)  (0x<hex>)``.
_KEYTAB_KEY_RE: Final = re.compile(
    r"\((?:aes|arcfour|des|camellia|rc4)[\w-]{0,40}\)[ \t]{1,8}"
    r"\(0x(?P<secret>[0-9a-fA-F]{16,128})\)"
)
# ``paperkey``'s text output: a header naming the secret portions, then numbered lines of hex
# bytes each ending in a CRC (``  2: 17 AD 21 ... D1 8E03F1``).
_PAPERKEY_RE: Final = re.compile(r"# secret portions of key[ \t]")
_PAPERKEY_LINE: Final = re.compile(
    r"[ \t]*[0-9]{1,5}:[ \t](?P<bytes>(?:[0-9A-F]{2}[ \t]){1,64}[0-9A-F]{6})"
)
_PAPERKEY_LINES: Final = 400


def _paperkey_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The bytes of every numbered line under a paperkey header (comment lines skipped)."""
    spans: list[tuple[int, int]] = []
    for position, line in lines_below(text, line_end(text, m.start()) + 1, _PAPERKEY_LINES):
        found = _PAPERKEY_LINE.fullmatch(line.rstrip("\r"))
        if found is not None:
            spans.append((position + found.start("bytes"), position + found.end("bytes")))
        elif not line.startswith("#"):
            break  # the listing ends at the first line that is neither data nor a comment
    return spans


def _classify_obfuscated(m: re.Match[str], text: str) -> str | None:
    """An obfuscation's body is a draw of many characters (not ``{xor}xxxx`` in documentation)."""
    value = m.group("secret")
    body = value[3:] if value.startswith("$9$") else value.partition("}")[2]
    return "password" if len(body) >= 8 and len(set(body)) >= 6 else None


# --- an Ethereum keystore and a key a wallet CLI prints in hex -----------------------------------

# A Web3 Secret Storage (v3) keystore: its ``ciphertext`` is the private key, encrypted only by
# a password that may be weak. Only in a keystore's ``crypto`` object (a ``kdf`` or
# ``cipherparams`` beside it): "ciphertext" also names test vectors in code.
_KEYSTORE_CIPHERTEXT_RE: Final = re.compile(
    r"\"ciphertext\"[ \t]*:[ \t]*\"(?P<secret>(?:0x)?[0-9a-fA-F]{32,512})\""
)
_KEYSTORE_SIBLINGS: Final = ('"kdf"', '"cipherparams"', '"kdfparams"')


def _classify_keystore_ciphertext(m: re.Match[str], text: str) -> str | None:
    near = text[max(0, m.start() - 400) : m.end() + 400]
    return "private-key" if any(word in near for word in _KEYSTORE_SIBLINGS) else None


# What ``gaiad keys export --unarmored-hex`` and its kin print: a warning that names the
# private key, then the key alone on a line as hex.
_PRINTED_HEX_KEY_RE: Final = re.compile(
    r"private key[^\n]{0,300}\n(?:[^\n]{0,300}\n)?"
    r"[ \t]*(?P<secret>(?:0x)?[0-9a-f]{64})[ \t]*(?:\r?\n|$)"
)


KEY_RULES: Final[tuple[Rule, ...]] = (
    Rule("private-key", CONTEXTUAL, _KEYSTORE_CIPHERTEXT_RE, _classify_keystore_ciphertext),
    Rule("private-key", CONTEXTUAL, _PRINTED_HEX_KEY_RE, on_lowercase=True),
    Rule("password", CONTEXTUAL, _OBFUSCATED_RE, _classify_obfuscated, WORD + "$"),
    Rule("private-key", CONTEXTUAL, _Z85_SECRET_RE, on_lowercase=True),
    Rule(
        "password",
        CONTEXTUAL,
        _RECOVERY_CODES_RE,
        on_lowercase=True,
        spans=_recovery_code_spans,
    ),
    Rule(
        "private-key",
        PRIVATE_KEY,
        # The whole BEGIN...END block. The body cannot contain "-----", so an unterminated
        # block costs one scan up to the next dashes, not a scan to the end of the text.
        re.compile(
            rf"(?P<secret>-----BEGIN{_PEM_LABEL}(?P<body>(?:[^-]++|-(?!----))*+)"
            rf"-----END{_PEM_LABEL})"
        ),
        _classify_private_key,
    ),
    Rule(
        "private-key",
        PRIVATE_KEY,
        # A block cut short (a truncated log line, half a diff): remove what is there.
        re.compile(
            rf"(?P<secret>-----BEGIN{_PEM_LABEL}(?P<body>(?:[A-Za-z0-9+/=\s\\:,.]++|-(?!----))*+))"
        ),
        _classify_private_key,
    ),
    Rule(
        "private-key",
        PRIVATE_KEY,
        # SSH.com / RFC 4716 keys: "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----". The body runs
        # to the END line; its headers may hold dashes (Comment: "rsa-key-20240514").
        re.compile(
            r"(?P<secret>---- BEGIN SSH2[ A-Z]*PRIVATE KEY ----(?P<body>(?:[^-]++|-(?!---))*+)"
            r"(?:---- END[^\n]*)?)"
        ),
        _classify_private_key,
    ),
    Rule("private-key", PRIVATE_KEY, _PUTTY_RE),
    Rule("private-key", PRIVATE_KEY, _KEYTAB_KEY_RE, on_lowercase=True),
    Rule(
        "private-key",
        PRIVATE_KEY,
        _PAPERKEY_RE,
        on_lowercase=True,
        spans=_paperkey_spans,
    ),
    Rule("private-key", PRIVATE_KEY, _DER_KEY_RE, not_after=BASE64_CHARS),
    Rule("private-key", PRIVATE_KEY, _ENCODED_PEM_RE, _classify_encoded_pem, BASE64_CHARS),
    Rule("docker-config", PROVIDER, _ENCODED_DOCKER_CONFIG_RE, not_after=BASE64_CHARS),
    # Bitcoin extended private keys (base58). WIF keys have no prefix: the entropy net
    # takes them, as it takes any 51 random base58 characters.
    anchored(
        "wallet-key",
        r"(?P<secret>prv[1-9A-HJ-NP-Za-km-z]{100,112})",
        back="xtyz",
        least=1,
        most=1,
    ),
    Rule("wallet-key", CONTEXTUAL, _HEX_KEY_RE, _classify_hex_key, WORD, on_lowercase=True),
    Rule("private-key", CONTEXTUAL, _BYTE_ARRAY_RE, _classify_byte_array, scan_whole=True),
    Rule("seed-phrase", CONTEXTUAL, _SEED_PHRASE_RE, _classify_seed_phrase, on_lowercase=True),
    Rule(
        "kubernetes-secret",
        CONTEXTUAL,
        _K8S_DATA_RE,
        _classify_k8s_data,
        on_lowercase=True,
        spans=_k8s_spans,
    ),
)
