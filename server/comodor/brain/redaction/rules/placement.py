"""Secrets recognised by where they stand, whatever service issued them.

The catalogue of :mod:`.providers` names tokens one issuer at a time, so every new provider
was a new leak until someone added its pattern. The rules here need no provider: they know
the *places* credentials are written, and take whatever stands there.

* the password field of credential files: ``.netrc`` (``machine``/``default`` ...
  ``password``), ``.pgpass`` (``host:port:db:user:password``), space-separated config
  directives (Redis ``requirepass``/``masterauth``, OpenLDAP ``rootpw``/``bindpw``), XML
  config (Maven ``<password>``, .NET ``<add key="...Password" value="..."/>``), Oracle
  ``user/password@host`` connect identifiers;
* the arguments of auth calls and clients: ``ftp.login("user", "pw")``,
  ``HTTPBasicAuth("u", "pw")``, ``auth=("u", "pw")``, ``connect(host, user, "pw", db)``,
  ``DriverManager.getConnection(url, user, "pw")``, any call named for credentials
  (``new NetworkCredential("svc", "pw")``, ``keyring.set_password(...)``), and a
  token-shaped literal passed to any call or constructor (``Github("...")``);
* tools' own password syntax (``openssl -passout pass:X``, ``zip -P``, ``7z -p``,
  ``ssh-keygen -N``), expect scripts answering a password prompt, a CLI's ``login <token>``;
* ``Basic <base64 of user:password>`` anywhere (an nginx ``proxy_set_header``, a log line),
  and a ``user:password`` literal handed to a base64 encoder (``btoa("u:X")``);
* the literal default of a variable or setting named for a secret: ``ENV.fetch("X_PASSWORD")
  { "lit" }``, ``process.env.X_SECRET || "lit"``, ``${X_TOKEN:-lit}``;
* crypt(3) password hashes (``.htpasswd``, ``/etc/shadow``) and bech32 secret keys whose
  human-readable part says they are secret (``nsec1...``, ``ed25519_sk1...``).

Patterns start with a literal where they can (the engine then looks only where it occurs)
or declare the character run a match lies in; classifiers look a bounded distance around
the match. The kinds they report are generic (``password``, ``token``): the catalogue's
named kinds stay the precise first line, and win when both find the same span.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
import urllib.parse
from typing import Final

from ..base import (
    ALNUM,
    ASSIGNMENT,
    MARKER_PREFIX,
    STRUCTURAL,
    WORD,
    Rule,
    group,
    line_end,
    line_start,
    shannon_entropy,
)
from ..values import (
    chosen,
    drawn_letters,
    expected_entropy,
    is_reference,
    is_template,
    looks_random,
    ordered_fraction,
    secret_name,
    typed_on,
    typed_passphrase,
    wordy,
)

# --- credential files ---------------------------------------------------------------------------

_NETRC_RE: Final = re.compile(r"password[ \t]+(?P<secret>[^\s\"'`]{2,256})")
_NETRC_CONTEXT: Final = re.compile(
    r"(?:^|\s)(?:machine[ \t]+\S+|default)\s+(?:(?:login|account)[ \t]+\S+\s+){0,2}$"
)


_KEY_NAME_CHARS: Final = frozenset(ALNUM + "_.-\"'")


def _reach_back(text: str, start: int, chars: frozenset[str], most: int) -> int:
    """Where a run of *chars* ending at *start* begins, looking back at most *most* of them."""
    limit = max(0, start - most)
    while start > limit and text[start - 1] in chars:
        start -= 1
    return start


def _classify_netrc(m: re.Match[str], text: str) -> str | None:
    """``machine h login u password p`` (or ``default ...``), on one line or several."""
    before = text[max(0, m.start() - 200) : m.start()]
    after = text[m.end() : m.end() + 200]
    if not _NETRC_CONTEXT.search(before) or ("login" not in before and "login" not in after):
        return None
    value = group(m, text, "secret") or ""
    return None if is_reference(value) else "password"


# host:port:database:user:password -- found by its port field (digits or *).
_PGPASS_RE: Final = re.compile(
    r":(?:[0-9]{1,5}|\*):[^:\s]{1,128}:[^:\s]{1,128}:(?P<secret>(?:[^:\s\\]|\\.){1,256})(?=\r?\n|$)"
)
_HOST: Final = re.compile(r"[A-Za-z0-9*][A-Za-z0-9.*_-]{0,253}")


def _classify_pgpass(m: re.Match[str], text: str) -> str | None:
    line_start = text.rfind("\n", max(0, m.start() - 256), m.start()) + 1
    if line_start == 0 and m.start() > 256:
        return None
    # The host field is the last word before the match: a pgpass line quoted after other
    # words ("Keep *:*:*:replicator:pw", "run_shell: db:5432:...") is still one.
    before = text[line_start : m.start()]
    host = "" if not before or before[-1].isspace() else before.split()[-1]
    if not _HOST.fullmatch(host):
        return None
    value = group(m, text, "secret") or ""
    return None if is_reference(value) else "password"


# Space-separated directives (redis.conf, slapd.conf, keepalived, sssd with "="-less forms).
_DIRECTIVE_RE: Final = re.compile(
    r"(?P<kw>requirepass|masterauth|rootpw|bindpw|auth_pass|authpass)[ \t]+"
    r"(?P<secret>\"[^\"\n]{1,256}\"|[^\s\"'`#]{1,256})"
)


def _classify_directive(m: re.Match[str], text: str) -> str | None:
    line_start = text.rfind("\n", max(0, m.start() - 64), m.start()) + 1
    if text[line_start : m.start()].strip() or (line_start == 0 and m.start() > 64):
        return None  # not at the start of a line
    rest = text[m.end() : m.end() + 128].partition("\n")[0].strip()
    if rest and not rest.startswith("#"):
        return None
    value = (group(m, text, "secret") or "").strip('"')
    if is_reference(value) or value.lower() in {"yes", "no", "none", "off", "on"}:
        return None
    return "password"


# XML config: Maven settings.xml <password>, .NET <add key="DbPassword" value="..."/>.
_XML_ELEMENT_RE: Final = re.compile(
    r"(?P<kw>password|passwd|passphrase|pass|pwd|secret|token|apikey|api_key|api-key|privatekey"
    r"|private_key|credentials?)(?:[ \t][^<>\n]{0,160})?>(?P<secret>[^<>\n]{1,256})</"
)
_NOT_PASS_TAGS: Final = ("bypass", "compass", "surpass", "overpass", "underpass")
_XML_TAG_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.:-")


def _xml_tag(m: re.Match[str], text: str) -> str | None:
    """The element's name (read back to its ``<``), when it is one; else ``None``."""
    start = m.start()
    limit = max(0, start - 41)
    while start > limit and text[start - 1].lower() in _XML_TAG_CHARS:
        start -= 1
    if start == 0 or text[start - 1] != "<":
        return None
    return text[start : m.end("kw")].lower()


_XML_ADD_RE: Final = re.compile(
    r"key=\"(?P<name>[a-z0-9_.:-]{0,60}(?:password|passwd|pwd|secret|token|apikey|api_key"
    r"|accesskey|privatekey))\"[ \t]+value=\"(?P<secret>[^\"\n]{1,256})\""
)


def _classify_xml(m: re.Match[str], text: str) -> str | None:
    if "kw" in m.re.groupindex:
        # <Pass encoding="base64">...</Pass> (FileZilla): attributes may stand after the name.
        tag = _xml_tag(m, text)
        if tag is None or text[m.end() : m.end() + len(tag) + 1].lower() != tag + ">":
            return None
        if tag.endswith(_NOT_PASS_TAGS):
            return None
    value = (group(m, text, "secret") or "").strip()
    if not value or is_reference(value) or is_template(value) or MARKER_PREFIX in value:
        return None
    return "password"


# Any element whose name says secret, found by its closing tag: <SmtpPassword>,
# <ClientSecret>, <keyMaterial> (a Wi-Fi profile), <AccessToken>, <sessionKey> (weak: a
# random value only). The value must be the element's only content on its line.
_XML_CLOSE_RE: Final = re.compile(r"</(?P<tag>[A-Za-z_][A-Za-z0-9_.:-]{0,60})>")
# Jenkins stores secrets encrypted as {<base64>}: still the secret, with its key beside it.
_BRACED_BASE64: Final = re.compile(r"\{[A-Za-z0-9+/]{20,}={0,2}\}")


def _xml_value_span(m: re.Match[str], text: str) -> tuple[int, int] | None:
    tag = m.group("tag")
    begin = line_start(text, m.start())
    gt = text.rfind(">", begin, m.start())
    if gt < 0:
        return None
    lt = text.rfind("<", begin, gt)
    opening = text[lt + 1 : gt] if lt >= 0 else ""
    name = opening.split(None, 1)[0] if opening.strip() else ""
    if name.lower() != tag.lower():
        return None
    return gt + 1, m.start()


def _classify_xml_close(m: re.Match[str], text: str) -> str | None:
    found = secret_name(m.group("tag").rsplit(":", 1)[-1])
    span = _xml_value_span(m, text) if found is not None else None
    if found is None or span is None:
        return None
    kind, strong = found
    value = text[span[0] : span[1]].strip()
    if not value or MARKER_PREFIX in value or "<" in value:
        return None
    if _BRACED_BASE64.fullmatch(value):
        return kind
    if is_reference(value) or is_template(value):
        return None
    return kind if strong or looks_random(value) else None


def _xml_close_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    span = _xml_value_span(m, text)
    if span is None:
        return []
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    return [(start, end)]


# A value wrapped by its host syntax: ``<password><![CDATA[X]]></password>``. The element rules
# read text without ``<``, and CDATA exists to hold ``<`` and ``&``; found by the wrapper's
# opening, which code hardly ever holds, then the element it opens is named.
_CDATA_RE: Final = re.compile(r"<!\[CDATA\[(?P<secret>[^\n]{1,256}?)\]\]>")
_CDATA_OPENER: Final = re.compile(
    r"<(?P<tag>[A-Za-z_][A-Za-z0-9_.:-]{0,60})(?:[ \t][^<>\n]{0,120})?>$"
)


def _classify_cdata(m: re.Match[str], text: str) -> str | None:
    """The CDATA section is the whole text of an element whose name says secret."""
    opener = _CDATA_OPENER.search(text, max(0, m.start() - 200), m.start())
    if opener is None or not text.startswith("</" + opener.group("tag"), m.end()):
        return None
    found = secret_name(opener.group("tag").rsplit(":", 1)[-1])
    value = m.group("secret").strip()
    if found is None or not value or is_reference(value) or is_template(value):
        return None
    kind, strong = found
    return kind if strong or looks_random(value) else None


# A record of a name and a value in sibling elements on one line: KeePass's XML export
# (``<Key>Password</Key><Value ProtectInMemory="True">X</Value>``), a plist's ``<key>Token
# </key><string>X</string>``. The element rules see a ``Key`` and a ``Value``, neither named
# for a secret; the net reads the value only on the lines after a name ending its line.
_SIBLING_RE: Final = re.compile(
    r"</key>[ \t]*<(?P<tag>value|string|data)(?:[ \t][^<>\n]{0,120})?>"
    r"(?P<secret>[^<>\n]{1,256})</(?P=tag)>"
)
_KEY_NAME: Final = re.compile(r"<key>(?P<name>[^<>\n]{1,80})$")


def _classify_sibling(m: re.Match[str], text: str) -> str | None:
    """The ``<Key>`` element just before names a secret; its sibling holds the value."""
    name = _KEY_NAME.search(text.lower(), max(0, m.start() - 90), m.start())
    found = secret_name(name.group("name")) if name is not None else None
    value = (group(m, text, "secret") or "").strip()
    if found is None or not value or MARKER_PREFIX in value or is_reference(value):
        return None
    kind, strong = found
    return kind if strong or looks_random(value) else None


# Bundler's credentials for a gem source: a key named for the host (dots written ``__``,
# ``BUNDLE_GEMS__CONTRIBSYS__COM``) in ``.bundle/config`` or the environment, its value
# ``user:password`` or a token. No secret word names it: the host in the key does.
_BUNDLE_HOST_RE: Final = re.compile(
    r"BUNDLE_(?P<host>[A-Z0-9_-]{1,120}__[A-Z0-9-]{2,24})[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?P<secret>[^\s\"']{8,256})"
)
# Settings whose keys hold ``__`` but no host: build flags and mirrors (``BUNDLE_BUILD__PG``).
_BUNDLE_SETTINGS: Final = ("BUILD__", "MIRROR__", "SPECIFIC_PLATFORM")


def _classify_bundle_host(m: re.Match[str], text: str) -> str | None:
    """A host's credentials: ``user:password`` or a token, not a flag, a path or a reference."""
    if m.group("host").startswith(_BUNDLE_SETTINGS):
        return None
    value = m.group("secret")
    if is_reference(value) or is_template(value) or value.startswith(("-", "/", "http")):
        return None
    user, colon, password = value.partition(":")
    if colon and user and len(password) >= 6:
        return "basic-auth"
    return "token" if looks_random(value) else None


# A key written as its bytes: ``network_key: [1, 3, 5, ...]`` (Zigbee2MQTT), ``"secretKey":
# [12, 200, ...]`` (a JSON dump of a Uint8Array). The value rules read one token; here sixteen
# numbers or more, each a byte, under a key's name. Not C's ``{0x2b, 0x7e, ...}``: there the
# array under a key's name is mostly a standard's test vector.
_BYTE_ARRAY_RE: Final = re.compile(r"(?:key|secret)[\"']?[ \t]*[:=][ \t]*\[[ \t]*(?:0x)?[0-9]")
_BYTE: Final = re.compile(r"[ \t]*(?:0x[0-9a-f]{1,2}|[0-9]{1,3})[ \t]*(?:,|(?=[\]}]))")
_LEAST_BYTES: Final = 16


def _byte_array_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The numbers of a byte array under a key's name, when they are as varied as a draw's."""
    begin = _reach_back(text, m.start(), _KEY_NAME_CHARS, 60)
    if secret_name(text[begin : m.start() + 6]) is None:
        return []
    start = text.index("[", m.start()) + 1
    position, values = start, list[int]()
    while (byte := _BYTE.match(text, position)) is not None and len(values) < 128:
        number = byte.group().strip(" \t,")
        values.append(int(number, 16) if number.startswith("0x") else int(number))
        position = byte.end()
    if len(values) < _LEAST_BYTES or max(values) > 255 or len(set(values)) < len(values) // 2:
        return []
    if sum(b - a == 1 for a, b in itertools.pairwise(values)) > len(values) // 4:
        return []  # 0, 1, 2, 3...: a count, not a draw
    return [(start, position)]


# Oracle connect identifiers: sqlplus scott/tiger@//host:1521/service, CONNECT u/p@tns.
_ORACLE_RE: Final = re.compile(
    r"(?P<tool>sqlplus|sqlldr|rman|expdp|impdp|dgmgrl|connect|conn)[ \t]+(?:-[a-z]+[ \t]+)*"
    r"[\"']?[a-z0-9_$#.]{1,64}/(?P<secret>[^\s/@\"']{1,128})@"
)


# The same identifier in Oracle's JDBC URL (``jdbc:oracle:thin:scott/X@//host:1521/svc``):
# the thin driver takes ``user/password@`` where other URLs write ``user:password@``.
_ORACLE_THIN_RE: Final = re.compile(
    r"(?P<tool>thin|oci8|oci):[a-z0-9_$#.]{1,64}/(?P<secret>[^\s/@\"';]{1,128})@"
)


def _classify_oracle(m: re.Match[str], text: str) -> str | None:
    value = group(m, text, "secret") or ""
    return None if is_reference(value) else "password"


# Data source names without a scheme: Go's user:password@tcp(host:3306)/db, and
# user:password@host:port/db in a DSN value. (With "://" the URL rules own them.)
# Found by the "@" and the address after it (a ":" is on every other line of code); the
# host must be followed by a port or a path (an email address is followed by neither).
_DSN_RE: Final = re.compile(r"@(?:(?:tcp[46]?|unix|udp)\(|[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5}|/))")
_DSN_USER: Final = frozenset(ALNUM + "_.%+-")
_DSN_PASSWORD_STOPS: Final = frozenset(" \t\r\n:@/\"'`?=")


def _dsn_password(m: re.Match[str], text: str) -> tuple[int, int] | None:
    """The password of ``user:password@`` before the match, read backwards."""
    end = m.start()
    limit = max(0, end - 129)
    start = end
    while start > limit and text[start - 1] not in _DSN_PASSWORD_STOPS:
        start -= 1
    if start in (end, 0) or text[start - 1] != ":":
        return None
    colon = start - 1
    begin = colon
    while begin > max(0, colon - 65) and text[begin - 1] in _DSN_USER:
        begin -= 1
    if begin == colon or (begin > 0 and text[begin - 1] not in " \t\n\"'=(,`"):
        return None  # no user, or part of a longer word (a URL's path, an email, a time)
    value = text[start:end]
    if is_reference(value) or not (password_shaped(value) or token_shaped(value)):
        return None
    return start, end


def _classify_dsn(m: re.Match[str], text: str) -> str | None:
    return "password" if _dsn_password(m, text) is not None else None


def _dsn_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    span = _dsn_password(m, text)
    return [] if span is None else [span]


# --- call arguments -------------------------------------------------------------------------------

_STRING: Final = re.compile(r"(?P<q>[\"'`])(?P<body>(?:[^\"'`\\\n]|\\.){0,256}?)(?P=q)")
_AUTH_CALL_RE: Final = re.compile(
    r"(?P<call>login|logon|signin|sign_in|authenticate|simple_bind_s|simple_bind|basicauth|digestauth|userinfo"
    r"|getconnection|connect|credentials?|auth|basic)[ \t]*(?P<eq>=[ \t]*)?\("
)
_USER_THEN_PASSWORD: Final = frozenset(
    {
        "login",
        "logon",
        "signin",
        "sign_in",
        "authenticate",
        "simple_bind_s",
        "simple_bind",
        "basicauth",
        "digestauth",
        "credential",
        "credentials",
        "auth",
        "basic",  # OCaml's `Basic ("user", "password"), an auth scheme's constructor
        "userinfo",  # nats.UserInfo("svc", "password"): a client's option
    }
)


# Names that may be glued to a word before them: HTTPBasicAuth(, userLogin(, getConnection(.
_GLUED_OK: Final = frozenset(
    {"basicauth", "digestauth", "login", "signin", "getconnection", "userinfo"}
)


def _arguments(text: str, start: int, reach: int = 400) -> list[tuple[int, int, bool]] | None:
    """The top-level arguments of a call whose ``(`` ends at *start*: (start, end, is-string).

    For an argument that is one string literal the span is its inside, without quotes.
    ``None`` when the call does not close within *reach* characters.
    """
    args: list[tuple[int, int, bool]] = []
    i, end, depth, arg_start = start, min(len(text), start + reach), 0, start
    while i < end:
        c = text[i]
        if c in "\"'`":
            s = _STRING.match(text, i, end)
            if s is None:
                return None
            i = s.end()
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        elif (c == "," and not depth) or c == ")":
            args.append(_argument(text, arg_start, i))
            if c == ")":
                return args
            arg_start = i + 1
        i += 1
    return None


def _argument(text: str, start: int, end: int) -> tuple[int, int, bool]:
    piece = text[start:end]
    stripped = piece.strip()
    s = _STRING.fullmatch(stripped)
    if s is None:
        return start, end, False
    offset = start + piece.index(stripped)
    return offset + s.start("body"), offset + s.end("body"), True


_PASSWORD_SHAPE: Final = re.compile(r"[^\s]{6,}")


def password_shaped(value: str) -> bool:
    """A literal that looks chosen as a password: letters with digits or symbols, no spaces."""
    if not _PASSWORD_SHAPE.fullmatch(value) or is_reference(value) or is_template(value):
        return False
    if typed_passphrase(value):
        return True  # Zorro.bluebird.5585v80: words, digits and a typed tail, no host name
    if "://" in value or value.count(".") >= 2 or "@" in value or "/" in value:
        return False  # an address, a host name, a path
    has_letter = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    if any(c in "()[]{}<>\"'`\\" for c in value):
        return False  # code, markup or an escape, not a chosen password
    has_symbol = any(not c.isalnum() and c not in "_-." for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return has_letter and (has_digit or has_symbol) and (mixed or has_symbol or len(value) >= 12)


# A Wi-Fi join call takes the network's name, then its passphrase: Arduino and ESP32's
# ``WiFi.begin("ssid", "X")``, ``WiFi.softAP(...)``, ``wifiMulti.addAP(...)``, MicroPython's
# ``wlan.connect("ssid", "X")``. No argument is named, so only the call says which is which.
_WIFI_JOIN_RE: Final = re.compile(r"(?:wifi\.(?:begin|softap)|wifimulti\.addap|wlan\.connect)\(")


def _wifi_join_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The second argument, when it is a literal shaped like a passphrase (not a variable)."""
    args = _arguments(text, m.end())
    if not args or len(args) < 2 or not args[0][2] or not args[1][2]:
        return []
    value = text[args[1][0] : args[1][1]]
    return [args[1][:2]] if password_shaped(value) or typed_passphrase(value) else []


def _auth_call_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    call = m.group("call")
    if m.start() > 0 and text[m.start() - 1].isalnum() and call not in _GLUED_OK:
        return []  # disconnect(, rebind(: some other call
    args = _arguments(text, m.end())
    if not args:
        return []
    spans: list[tuple[int, int]] = []
    if call in _USER_THEN_PASSWORD:
        if m.group("eq") is not None and call != "auth":
            return []
        if len(args) >= 2 and args[1][2]:
            value = text[args[1][0] : args[1][1]]
            if password_shaped(value) or token_shaped(value):
                spans.append(args[1][:2])
        elif len(args) == 1 and args[0][2] and token_shaped(text[args[0][0] : args[0][1]]):
            spans.append(args[0][:2])
        return spans
    # connect(host, user, "password", db) / getConnection(url, user, "password")
    if len(args) < 3:
        return []
    for a_start, a_end, is_string in args[1:]:
        if is_string and password_shaped(text[a_start:a_end]):
            spans.append((a_start, a_end))
    return spans


# A constructor given a database, a user and a password as its first three literals
# (``new Sequelize('shop', 'shop_app', 'X', {...})``, a client's ``new Client('db', 'u', 'X')``).
# The regex asks for three leading string literals, so the Python that parses the arguments
# runs only for such constructors, not for every ``new X(`` of a JavaScript file.
_CONSTRUCTOR_RE: Final = re.compile(
    r"new[ \t]+[A-Za-z_$][\w.$]{0,60}[ \t]*\((?=(?:[ \t]*[\"'][^\"'\n]{1,64}[\"'][ \t]*,){2}"
    r"[ \t]*[\"'])"
)
_NAME_LITERAL: Final = re.compile(r"[\w.@-]{1,64}")


def _constructor_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The third literal, when the two before it are names and it is shaped as a password."""
    if m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_"):
        return []  # renew(, a word ending in "new"
    args = _arguments(text, m.end())
    if args is None or len(args) < 3 or not all(is_string for _, _, is_string in args[:3]):
        return []
    if not all(_NAME_LITERAL.fullmatch(text[start:end]) for start, end, _ in args[:2]):
        return []
    start, end, _ = args[2]
    value = text[start:end]
    return [(start, end)] if password_shaped(value) or typed_on(value) else []


# A client given its host's address as its first literal, then (a port and) a user and the
# password, positionally: ``FileStation('10.0.0.9', '5001', 'ann', 'X')``, ``FTP('10.0.0.5',
# 'ann', 'X')``. Only where an IPv4 literal stands: one rule per quote, so the engine looks
# only where a quote and a digit meet (``'1`` to ``"9``), which little code holds.
_HOST_FIRST_RES: Final = tuple(
    re.compile(q + r"[1-9][0-9]{0,2}(?:\.[0-9]{1,3}){3}" + q) for q in ("'", '"')
)
_PORT: Final = re.compile(r"[\"']?[0-9]{2,5}[\"']?")


def _host_first_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The literal after the user, when the call's first argument is the address."""
    before = text[max(0, m.start() - 40) : m.start()].rstrip()
    if not before.endswith("("):
        return []
    args = _arguments(text, m.start())
    if args is None or len(args) < 3:
        return []
    at = 2 if _PORT.fullmatch(text[args[1][0] : args[1][1]].strip()) else 1
    if len(args) <= at + 1:
        return []
    (u_start, u_end, user_is_string), (start, end, is_string) = args[at], args[at + 1]
    if not (user_is_string and is_string) or not _NAME_LITERAL.fullmatch(text[u_start:u_end]):
        return []
    value = text[start:end]
    return [(start, end)] if _positional_password(value) else []


def _positional_password(value: str) -> bool:
    """A literal where only the password stands: letters with digits, not an identifier."""
    if password_shaped(value):
        return True
    if not _PASSWORD_SHAPE.fullmatch(value) or is_reference(value) or is_template(value):
        return False
    if _IDENTIFIER.fullmatch(value) or "/" in value:
        return False  # handler_v2, a path: a name, not a password
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# A token-shaped literal as an argument: Github("..."), new Ably.Realtime('...').
_TOKEN_ARG_RE: Final = re.compile(
    r"[(,][ \t]{0,4}(?P<q>[\"'`])(?P<secret>[A-Za-z0-9+/_.:~=%-]{20,300})(?P=q)[ \t]*[,)]"
)
_HEX_ONLY: Final = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_PREFIXED_UUID: Final = re.compile(r"[a-z]{2,8}[-_]" + _UUID.pattern)
_CALLEE: Final = re.compile(
    r"(?:new[ \t]+)?(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)[ \t]*$"
)
# Calls that take hex or UUIDs that are data: digests, ids, colours, test expectations.
_DATA_CALLS: Final = re.compile(
    r"(?i)hex|uuid|guid|hash|sha|md5|digest|assert|equal|expect|compare|check|verify|decimal"
    r"|color|colour|id$|ids$|parse|match|test|oid|int|bytes|encode|decode|fingerprint"
)
_AUTH_HINT: Final = re.compile(
    r"(?i)client|github|gitlab|api|auth|token|key|secret|sdk|init|login|run|signer|connect"
    r"|session|credential|search|realtime|bot|config|twilio|stripe|dropbox"
)


def token_shaped(value: str) -> bool:
    """Whether a literal looks machine-made: long, random, not a word, path or number."""
    core = value.strip("=")
    if len(core) < 20 or is_reference(core) or "://" in core or core.isdigit():
        return False
    letters = sum(c.isalpha() for c in core)
    digits = sum(c.isdigit() for c in core)
    if letters < 4 or digits < 2:
        return False
    if core.startswith(("/", "./")) or core.count("/") >= 3:
        return False
    if _PREFIXED_UUID.fullmatch(core):
        return True  # sdk-<uuid>, mob-<uuid>: a key with its kind in front
    # Dotted names (module.Class.method) and words joined by separators are identifiers.
    if any(wordy(part) for part in core.split(".") if len(part) >= 8):
        return False
    if ordered_fraction(core) > 0.25:
        return False  # an alphabet: "0123456789abcdefABCDEF"
    alphabet = 16 if _HEX_ONLY.fullmatch(core) else 36 if core.isupper() or core.islower() else 62
    return shannon_entropy(core) >= expected_entropy(len(core), alphabet) - 0.7


_TWO_DIGITS: Final = re.compile(r"[0-9][^0-9]*+[0-9]")


def _may_be_token_arg(text: str, start: int, end: int) -> bool:
    """Whether the run ``text[start:end]`` holds the two digits :func:`token_shaped` wants.

    The quoted value a run holds is the run itself (quotes are not of its characters), and
    a value with fewer digits is no token; asked once a run, before the regex.
    """
    return _TWO_DIGITS.search(text, start, end) is not None


_DECODED_QUERY: Final = re.compile(r"[\[\]{}&,;\s\"'<>]|=.")


def _classify_token_arg(m: re.Match[str], text: str) -> str | None:
    value = group(m, text, "secret") or ""
    if "%" in value and _DECODED_QUERY.search(urllib.parse.unquote(value)):
        return None  # a URL-encoded query ("a%5Bb%5D=c"), not a URL-encoded token
    if not token_shaped(value):
        return None
    paren = (
        m.start() if text[m.start()] == "(" else text.rfind("(", max(0, m.start() - 200), m.start())
    )
    if paren < 0:
        return None
    callee = _CALLEE.search(text, max(0, paren - 80), paren)
    name = callee.group("name") if callee is not None else ""
    last = name.rsplit(".", 1)[-1]
    if not last or _DATA_CALLS.search(last):
        return None
    core = value.strip("=")
    one_kind = (
        _HEX_ONLY.fullmatch(core) or _UUID.fullmatch(core) or core.isupper() or core.islower()
    )
    # Hex, UUIDs and one-case strings are common data; only auth-ish callees take them, or a
    # call given an id and then this draw (``StreamChat.getInstance('key', '<secret>')``).
    if one_kind and not (
        _AUTH_HINT.search(name)
        or (last[:1].isupper() and len(core) >= 32)
        or (not _HEX_ONLY.fullmatch(core) and _after_an_id(text, paren, m.start()))
    ):
        return None
    return "token"


# The first argument of a call, a short literal: an app's id or key before its secret.
_ID_LITERAL: Final = re.compile(r"\([ \t]*(?P<q>[\"'`])[A-Za-z0-9_-]{6,40}(?P=q)[ \t]*,[ \t]*$")


def _after_an_id(text: str, paren: int, start: int) -> bool:
    """Whether a drawn literal is a call's second argument after an id literal: a key pair.

    SDKs take an app's key and its secret positionally (``getInstance('xrs0448dahd0',
    '<secret>')``, ``Pusher(appId, key, secret)``); a one-case draw of 32 characters or more
    in that place is the secret, where alone it might be an id of some record (hex is left:
    ``lookup('sha256', '<digest>')``).
    """
    return text[start] == "," and _ID_LITERAL.match(text, paren, start + 1) is not None


# A call or constructor named for credentials: new NetworkCredential("svc", "..."),
# keyring.set_password("smtp", "me", "..."), new PDO($dsn, "root", "..."), and one member
# down: Credentials.basic("u", "..."), PDO->__construct('mysql:...', 'u', '...') in a stack
# trace. A literal shaped like a chosen password, after the first argument, is one.
_CREDENTIAL_CALL_RE: Final = re.compile(
    r"(?P<call>credential|password|passwd|login|logon|auth|pdo)[a-z0-9_]{0,40}"
    r"(?:(?:\.|->|::)[a-z_][a-z0-9_]{0,40})?[ \t]*\("
)


def _credential_call_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    args = _arguments(text, m.end())
    if not args or len(args) < 2:
        return []
    return [
        (start, end)
        for start, end, is_string in args[1:]
        if is_string
        and (password_shaped(text[start:end]) or drawn_letters(text[start:end], least=10))
    ]


# Password flags of tools that take them in their own syntax: openssl -passout pass:X,
# zip -P X, 7z -pX, ssh-keygen -N X.
_TOOL_RES: Final = tuple(
    re.compile(pattern.replace("VALUE", r"[\"']?(?P<secret>[^\s\"'`-][^\s\"'`]*)"))
    for pattern in (
        r"-pass(?:in|out|word)?[ \t]+[\"']?pass:VALUE",
        r"(?:zip|unzip|zipcloak)\b[^\n;|&]{0,160}?[ \t]-p[ \t]+VALUE",
        r"7z[a-z]?\b[^\n;|&]{0,160}?[ \t]-pVALUE",
        r"ssh-keygen\b[^\n;|&]{0,160}?[ \t]-[np][ \t]+VALUE",
    )
)


def _classify_tool(m: re.Match[str], text: str) -> str | None:
    value = (group(m, text, "secret") or "").strip("'\"")
    return None if is_reference(value) else "password"


# Password hashes in crypt(3) form (.htpasswd, /etc/shadow): crackable, so secret.
_CRYPT_HASH_RE: Final = re.compile(
    r"\$(?:apr1|2[abxy]|5|6|y|gy|7|argon2id|argon2i|argon2d|sha1|md5)\$(?P<rest>[A-Za-z0-9./$=,+]{20,})"
)


def _classify_crypt(m: re.Match[str], text: str) -> str | None:
    return "password-hash" if "$" in m.group("rest") else None


def _crypt_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return [m.span()]


# expect scripts: expect "password:" / send "...\r".
_EXPECT_SEND_RE: Final = re.compile(r"send[ \t]+(?:--[ \t]+)?\"(?P<secret>[^\"\n\\]{1,128})\\r\"")


def _classify_expect_send(m: re.Match[str], text: str) -> str | None:
    before = text[max(0, m.start() - 200) : m.start()].lower()
    return (
        "password"
        if "expect" in before and ("assword" in before or "passphrase" in before)
        else None
    )


# A CLI's login or auth subcommand given a token: vault login X, heroku auth:token X.
_CLI_LOGIN_RE: Final = re.compile(
    r"(?:login|auth|authenticate)[ \t]+(?P<secret>[A-Za-z0-9._~+/=-]{20,256})(?![A-Za-z0-9._~+/=-])"
)


def _classify_cli_login(m: re.Match[str], text: str) -> str | None:
    value = group(m, text, "secret") or ""
    if token_shaped(value):
        return "token"
    # Base62 drawn at random may hold no digit at all; a login's argument still is a token.
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    random_enough = shannon_entropy(value) >= expected_entropy(len(value), 62) - 0.7
    return "token" if mixed and random_enough and not wordy(value) else None


# --- Basic credentials anywhere ------------------------------------------------------------------

_BASIC_RE: Final = re.compile(r"basic[ \t]+(?P<secret>[a-z0-9+/]{8,512}={0,2})(?![a-z0-9+/=])")


def _classify_basic(m: re.Match[str], text: str) -> str | None:
    value = text[m.start("secret") : m.end("secret")]
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    user, colon, password = decoded.partition(":")
    if not colon or not password or not decoded.isprintable() or len(user) > 256:
        return None
    return "basic-auth"


# --- bech32 secret keys ---------------------------------------------------------------------------

_BECH32_RE: Final = re.compile(r"1(?P<data>[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{38,})(?![a-z0-9])")
_HRP_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_SECRET_HRP: Final = re.compile(r"sec|sk|prv|priv|secret|key|seed|xsk")


def _bech32_start(m: re.Match[str], text: str) -> int | None:
    start = m.start()
    limit = max(0, start - 40)
    begin = start
    while begin > limit and text[begin - 1].lower() in _HRP_CHARS:
        begin -= 1
    hrp = text[begin:start].lower()
    if not hrp or not _SECRET_HRP.search(hrp):
        return None
    return begin


def _classify_bech32(m: re.Match[str], text: str) -> str | None:
    return None if _bech32_start(m, text) is None else "bech32-secret-key"


def _bech32_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    begin = _bech32_start(m, text)
    return [] if begin is None else [(begin, m.end())]


# --- the default of a variable named for a secret ----------------------------------------------

# ENV.fetch("DB_PASSWORD") { "X" }, process.env.API_SECRET || "X", ${DB_PASSWORD:-X}
_ENV_DEFAULT_RE: Final = re.compile(
    r"(?P<kw>password|passwd|passphrase|secret|token|key|pwd|pass|credentials?)"
    r"(?:(?P<fetch>[\"']\)[ \t]*\{[ \t]*)|(?P<either>[ \t]*(?:\|\||\?\?)[ \t]*)|(?P<shell>:?[-=]))"
    r"(?:\"(?P<dq>[^\"\n]{1,256})\"|'(?P<sq>[^'\n]{1,256})'|(?P<bare>[^\s\"'{}$]{1,256})\})"
)
_NAME_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _classify_env_default(m: re.Match[str], text: str) -> str | None:
    """A literal given as the default of an environment variable or setting named for a secret.

    Ruby's ``ENV.fetch("X") { "lit" }``, JavaScript's ``process.env.X || "lit"``, the
    shell's ``${X:-lit}``: when the variable is unset, the literal is the secret.
    """
    start = m.start("kw")
    limit = max(0, start - 64)
    while start > limit and text[start - 1] in _NAME_CHARS:
        start -= 1
    found = secret_name(text[start : m.end("kw")])
    if found is None or not found[1]:
        return None
    before = text[max(0, start - 12) : start].lower()
    if m.group("fetch") is not None:
        if not before.endswith(('fetch("', "fetch('")):
            return None
    elif m.group("either") is not None:
        if not before.endswith(("env.", 'env["', "env['")):
            return None
    elif not before.endswith("${"):
        return None
    if (m.group("bare") is None) != (m.group("shell") is None):
        return None  # a bare value only inside ${...}
    value = group(m, text, "dq") or group(m, text, "sq") or group(m, text, "bare") or ""
    if is_reference(value) or not (password_shaped(value) or token_shaped(value) or chosen(value)):
        return None
    return found[0]


def _env_default_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    for name in ("dq", "sq", "bare"):
        if m.start(name) >= 0:
            return [m.span(name)]
    return []


# A ``user:password`` literal being encoded, as Basic credentials are before they are sent:
# ``base64Encode(utf8.encode('admin:X'))``, ``btoa("u:X")``, ``b64encode(b"u:X")``,
# ``Convert.ToBase64String(Encoding.UTF8.GetBytes("u:X"))``, ``[]byte("u:X")`` to Go's
# ``EncodeToString``. The encoder's name is the anchor, as each language spells it: read
# case-blind, every ``base`` and ``encode`` of a file would be tried. One call may wrap the
# literal.
_ENCODED_PAIR_RE: Final = re.compile(
    r"(?:b64encode|btoa|base64Encode|encode64|Base64\.encode|ToBase64String|GetBytes"
    r"|utf8\.encode|Buffer\.from|EncodeToString|base64_encode)[ \t]*\("
    r"(?:[\w.]{1,30}\([ \t]*)?(?:\[\]byte\()?[bu]?(?P<q>[\"'`])"
    r"[\w.@+-]{1,64}:(?P<secret>[^\s\"'`:]{4,128})(?P=q)"
)


def _classify_encoded_pair(m: re.Match[str], text: str) -> str | None:
    """A password-shaped part after the user's: ``btoa("foo:bar")`` is a test's, not one."""
    value = group(m, text, "secret") or ""
    return "basic-auth" if password_shaped(value) or typed_on(value) else None


# --- a Keychain item's value --------------------------------------------------------------------

# Apple's Security framework stores whatever stands after ``kSecValueData`` as the item's secret:
# Swift ``kSecValueData as String: "X".data(using: .utf8)!``, ``query[kSecValueData as String] =
# "X".data(...)``, Objective-C ``(__bridge id)kSecValueData: [@"X" dataUsingEncoding:...]``.
_KEYCHAIN_VALUE_RE: Final = re.compile(
    r"kSecValueData(?:[ \t]+as[ \t]+(?:String|NSString|CFString))?\]?[ \t]*[:=][ \t]*\[?@?"
    r"\"(?P<secret>(?:[^\"\\\n]|\\.){4,512})\""
)


def _classify_keychain_value(m: re.Match[str], text: str) -> str | None:
    """Any literal but a placeholder: a Keychain item holds nothing else than a credential."""
    value = group(m, text, "secret") or ""
    if is_reference(value) or is_template(value) or value.isspace():
        return None
    return "password" if password_shaped(value) or token_shaped(value) or chosen(value) else None


# --- a licence's serial -------------------------------------------------------------------------

# A serial named as such whose value is a product key's dash-separated groups (a Unity licence's
# ``UNITY_SERIAL: SC-U02O-7GYH-AFU3-OVRR-48YS``, ``serial_key = "K7M2Q-..."``): it activates a
# paid licence. A device's serial (``C02XK0ZJJG5H``) has no such groups and a uuid's are hex of
# other lengths; a port (``SERIAL_PORT``) is not a serial's name.
_SERIAL_KEY_RE: Final = re.compile(
    r"serial(?:[_-]?(?:number|no|key|code))?[\"']?[ \t]*(?:=>|[:=])[ \t]*[\"']?"
    r"(?P<secret>(?:[a-z0-9]{1,6}-)?[a-z0-9]{4,6}(?:-[a-z0-9]{4,6}){3,7})(?![\w-])"
)


def _classify_serial_key(m: re.Match[str], text: str) -> str | None:
    """A product key: upper-case letters and digits both, not a template's ``XXXX-XXXX``."""
    value = group(m, text, "secret") or ""
    letters = [c for c in value if c.isalpha()]
    digits = sum(c.isdigit() for c in value)
    if not letters or digits < 3 or not all(c.isupper() for c in letters):
        return None
    return "license-key" if len(set(value.replace("-", ""))) >= 8 else None


# --- files a tool writes its login into ----------------------------------------------------

# The ``configstore`` package (snyk, yeoman, many npm CLIs) keeps a tool's settings in
# ``~/.config/configstore/<tool>.json``; snyk's API token is its ``"api"`` field, a UUID.
_CONFIGSTORE_RE: Final = re.compile(r'"api"[ \t]*:[ \t]*"(?P<secret>[^"\s]{16,128})"')
_CONFIGSTORE_REACH: Final = 2000


def _classify_configstore(m: re.Match[str], text: str) -> str | None:
    """The ``"api"`` of a configstore file: named by its path, a UUID or a drawn token."""
    begin = max(0, m.start() - _CONFIGSTORE_REACH)
    if text.find("configstore", begin, m.start()) < 0 and text.find("snyk", begin, m.start()) < 0:
        return None
    value = group(m, text, "secret") or ""
    return "token" if _UUID.fullmatch(value) or token_shaped(value) else None


# Deluge's ``auth`` file: ``user:password:level`` lines, the daemon's own ``localclient`` line
# (40 hex, written on first start) first -- no word names the passwords.
_DELUGE_RE: Final = re.compile(r"localclient:(?=[0-9a-f]{40}:[0-9]{1,2}\b)")
_DELUGE_LINE: Final = re.compile(r"[^\s:#]{1,64}:(?P<secret>[^\s:]{4,128}):[0-9]{1,2}[ \t]*$")
_DELUGE_LINES: Final = 50


def _deluge_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """Every password of the file the ``localclient`` line opens, the daemon's included."""
    spans = []
    start = m.start()
    for _ in range(_DELUGE_LINES):
        end = line_end(text, start, 300)
        line = _DELUGE_LINE.match(text, start, end)
        if line is None:
            break
        value = line.group("secret")
        if not is_reference(value):
            spans.append(line.span("secret"))
        start = end + 1
    return spans


PLACEMENT_RULES: Final[tuple[Rule, ...]] = (
    Rule("token", STRUCTURAL, _CONFIGSTORE_RE, _classify_configstore),
    Rule("password", STRUCTURAL, _DELUGE_RE, spans=_deluge_spans),
    Rule("password", STRUCTURAL, _KEYCHAIN_VALUE_RE, _classify_keychain_value),
    Rule("license-key", STRUCTURAL, _SERIAL_KEY_RE, _classify_serial_key, on_lowercase=True),
    Rule(
        "password",
        ASSIGNMENT,
        _ENV_DEFAULT_RE,
        _classify_env_default,
        on_lowercase=True,
        spans=_env_default_spans,
    ),
    Rule("password", STRUCTURAL, _NETRC_RE, _classify_netrc, WORD, on_lowercase=True),
    Rule("password", STRUCTURAL, _PGPASS_RE, _classify_pgpass),
    Rule("password", STRUCTURAL, _XML_ELEMENT_RE, _classify_xml, on_lowercase=True),
    Rule("password", STRUCTURAL, _XML_ADD_RE, _classify_xml, on_lowercase=True),
    Rule("password", STRUCTURAL, _XML_CLOSE_RE, _classify_xml_close, spans=_xml_close_spans),
    Rule("password", STRUCTURAL, _CDATA_RE, _classify_cdata),
    Rule("basic-auth", STRUCTURAL, _BUNDLE_HOST_RE, _classify_bundle_host, WORD),
    Rule("key", STRUCTURAL, _BYTE_ARRAY_RE, on_lowercase=True, spans=_byte_array_spans),
    Rule("password", STRUCTURAL, _SIBLING_RE, _classify_sibling, on_lowercase=True),
    Rule("password", STRUCTURAL, _ORACLE_RE, _classify_oracle, WORD, on_lowercase=True),
    Rule("password", STRUCTURAL, _ORACLE_THIN_RE, _classify_oracle, WORD, on_lowercase=True),
    Rule("password", STRUCTURAL, _DSN_RE, _classify_dsn, spans=_dsn_spans),
    Rule("password", STRUCTURAL, _DIRECTIVE_RE, _classify_directive, WORD, on_lowercase=True),
    Rule(
        "password",
        ASSIGNMENT,
        _AUTH_CALL_RE,
        on_lowercase=True,
        spans=_auth_call_spans,
    ),
    Rule("password", STRUCTURAL, _WIFI_JOIN_RE, on_lowercase=True, spans=_wifi_join_spans),
    Rule(
        "password",
        STRUCTURAL,
        _CONSTRUCTOR_RE,
        spans=_constructor_spans,
    ),
    *(Rule("password", STRUCTURAL, r, spans=_host_first_spans) for r in _HOST_FIRST_RES),
    Rule(
        "token",
        ASSIGNMENT,
        _TOKEN_ARG_RE,
        _classify_token_arg,
        run_chars=ALNUM + "+/_.:~=%-",  # URL-encoded tokens hold %3D
        min_run=20,
        run_lead=8,
        run_after="\"'`",
        run_check=_may_be_token_arg,
    ),
    Rule(
        "password",
        ASSIGNMENT,
        _CREDENTIAL_CALL_RE,
        on_lowercase=True,
        spans=_credential_call_spans,
    ),
    *(Rule("password", STRUCTURAL, r, _classify_tool, WORD, on_lowercase=True) for r in _TOOL_RES),
    Rule("password-hash", STRUCTURAL, _CRYPT_HASH_RE, _classify_crypt, WORD, spans=_crypt_spans),
    Rule("password", STRUCTURAL, _EXPECT_SEND_RE, _classify_expect_send, WORD),
    Rule("token", STRUCTURAL, _CLI_LOGIN_RE, _classify_cli_login, WORD),
    Rule("basic-auth", STRUCTURAL, _BASIC_RE, _classify_basic, WORD, on_lowercase=True),
    Rule("basic-auth", STRUCTURAL, _ENCODED_PAIR_RE, _classify_encoded_pair),
    Rule(
        "bech32-secret-key",
        STRUCTURAL,
        _BECH32_RE,
        _classify_bech32,
        on_lowercase=True,
        spans=_bech32_spans,
        # Discord tokens' characters (a dot more): the two rules share one pass over the text,
        # and a bech32 key found inside a longer run is found all the same.
        run_chars=ALNUM + "_-.",
        min_run=40,
    ),
)
