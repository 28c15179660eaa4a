"""Secrets in the lines of config files and documents, found by the line's own syntax.

Where :mod:`.placement` knows a handful of credential files by name, these rules know the
syntaxes many files share:

* a password word and its value separated by blanks (``password X`` in msmtprc,
  ``password 0 X`` on a Cisco line, ``with password "X"`` in a fetchmailrc, ``: PSK "X"``
  in ipsec.secrets, ``ALTER ROLE r PASSWORD 'X'``), and SQL's ``IDENTIFIED BY 'X'``;
* the values of a header list in an environment variable (``OTEL_EXPORTER_OTLP_HEADERS=
  "x-honeycomb-team=X"``);
* tools' own user syntax: net-snmp's ``createUser u SHA "X" AES "Y"``, Redis ACL ``>X``;
* tables whose header comment names a secret column (``# client server secret IP``: ppp's
  chap-secrets), ``URL user password`` lines (davfs2 secrets), and delimited exports whose
  header names a password column (a browser's ``name,url,username,password,note`` CSV, a
  spreadsheet's ``Dienst;Benutzer;Kennwort;Notiz``);
* armored blocks whose label says secret, seed or private (``-----BEGIN OpenVPN Static key
  V1-----``, ``-----BEGIN USER NKEY SEED-----``), not only ``PRIVATE KEY``;
* a random segment of a URL's path and what follows it (collector and webhook URLs carry
  their key there: ``.../receiver/v1/http/<key>``);
* K/V records whose key says password (Subversion's ``svn.simple`` cache: ``K 8 / password
  / V <n> / <the password>``);
* the ``Default:`` of a parameter block named for a secret (a CloudFormation
  ``DBMasterPassword:`` with ``NoEcho`` and a default);
* the password after host, port and user on a proxy list line (proxychains' ``socks5 host
  port user pass``).
"""

from __future__ import annotations

import re
from typing import Final

from ..base import (
    STRUCTURAL,
    WORD,
    Rule,
    first_value_span,
    group,
    has_entropy,
    line_end,
    line_start,
    lines_below,
    shannon_entropy,
)
from ..values import TYPE_NAME, chosen, is_reference, ordered_fraction, secret_name, wordy
from .command_lines import literal_credential
from .net import strong_secret_name

_QUOTED_OR_BARE: Final = r"(?P<secret>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'`]{1,256})"


def _unquoted_span(m: re.Match[str], text: str) -> tuple[int, int]:
    start, end = m.span("secret")
    if end - start >= 2 and text[start] == text[end - 1] and text[start] in "\"'":
        return start + 1, end - 1
    return start, end


def _rest_of_line(text: str, start: int) -> str:
    return text[start : start + 128].partition("\n")[0].strip()


# --- password X / password 0 X / PSK "X" / PASSWORD 'X' ------------------------------------------

_BLANK_SEPARATED_RE: Final = re.compile(
    r"(?P<kw>password|passwd|passphrase|secret|psk)[ \t]+(?:[0-9][ \t]+)?" + _QUOTED_OR_BARE
)


def _classify_blank_separated(m: re.Match[str], text: str) -> str | None:
    start, end = _unquoted_span(m, text)
    quoted = (start, end) != m.span("secret")
    glued = m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")
    if glued and not quoted:
        return None  # storePassword 'x' (Groovy, Gradle): a glued name only when quoted
    rest = _rest_of_line(text, m.end())
    # A bare value must end its line (a directive); a quoted one may stand anywhere.
    if (start, end) == m.span("secret") and rest and not rest.startswith("#"):
        return None
    value = text[start:end]
    if literal_credential(value):
        return "password"
    # password Tiger76.Jd.R: after a password word, a dotted word with both cases and a
    # digit is a chosen password (host names are lower-case).
    return "password" if chosen(value) and not is_reference(value) else None


def _blank_separated_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return [_unquoted_span(m, text)]


_IDENTIFIED_BY_RE: Final = re.compile(
    r"identified[ \t]+(?:with[ \t]+[a-z0-9_]+[ \t]+)?by[ \t]+(?:password[ \t]+)?"
    r"(?P<secret>'(?:[^'\\\n]|''|\\.){1,256}'|\"[^\"\n]{1,256}\")"
)


def _classify_identified_by(m: re.Match[str], text: str) -> str | None:
    start, end = _unquoted_span(m, text)
    value = text[start:end]
    return None if not value or is_reference(value) else "password"


# SET PASSWORD FOR 'app'@'%' = 'X' (MySQL, MariaDB), = PASSWORD('X') in older servers.
# Found by "password" (shared with other rules); the "SET" before it is checked after.
_SET_PASSWORD_RE: Final = re.compile(
    r"password[ \t]+(?:for[ \t]+[^=;\n]{1,160}?[ \t]*)?=[ \t]*(?:password[ \t]*\([ \t]*)?"
    r"(?P<secret>'(?:[^'\\\n]|''|\\.){1,256}'|\"[^\"\n]{1,256}\")"
)


def _classify_set_password(m: re.Match[str], text: str) -> str | None:
    if not text[max(0, m.start() - 8) : m.start()].rstrip(" \t").lower().endswith("set"):
        return None
    return _classify_identified_by(m, text)


# --- directives: a name saying password, maybe one argument, the value ending the line ----------

# sentinel auth-pass mymaster X (Redis Sentinel), HTTP_Passwd X (Fluent Bit), auth-pass X.
# ntp authentication-key 1 md5 X, pre-shared-key X (network gear).
_DIRECTIVE_LINE_RE: Final = re.compile(
    r"(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|psk|-key|_key)[ \t]+"
    r"(?P<args>(?:[a-z0-9_.-]{1,64}[ \t]+){0,2})" + _QUOTED_OR_BARE + r"[ \t]*;?(?=\r?\n|$)"
)
# A "-key" directive holds a secret when its name says which (pre-shared-key), or when a
# digit before the value gives its encryption type (authentication-key 1 md5 X).
_SECRET_KEY_NAME: Final = re.compile(
    r"(?:shared|authentication|auth|secret|psk|api|access|private|wpa)[_-]?key$"
)
_DIRECTIVE_NAME: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_CODE_WORDS: Final = frozenset(
    {"if", "elif", "while", "and", "or", "not", "in", "is", "return", "assert", "yield", "else"}
)


def _classify_directive_line(m: re.Match[str], text: str) -> str | None:
    """A config directive whose name says password, with a literal password ending the line.

    The name (glued words allowed: ``HTTP_Passwd``) starts the line, after at most two words
    (``sentinel auth-pass``, ``user admin insecure-password``), and up to two arguments may
    stand before the value (``sentinel auth-pass mymaster X``).
    """
    start = m.start()
    limit = max(0, start - 48)
    while start > limit and text[start - 1].lower() in _DIRECTIVE_NAME:
        start -= 1
    name = text[start : m.end("kw")].lower()
    if name.endswith(("bypass", "compass", "surpass")):
        return None
    args = m.group("args").split()
    if m.group("kw").endswith("key") and not (
        _SECRET_KEY_NAME.search(name) or (args and args[0].isdigit() and len(args[0]) == 1)
    ):
        return None
    before = _line_before(text, start)
    if before is None or len(before.split()) > 2 or before.strip().startswith(("#", "//")):
        return None  # "user admin insecure-password X" (HAProxy): two words at most
    if {w.lower() for w in before.split() + args} & _CODE_WORDS:
        return None  # if pwd and tarinfo.uname: -- Python, not a directive
    value_start, value_end = _unquoted_span(m, text)
    value = text[value_start:value_end]
    if (value_start, value_end) == m.span("secret") and value.endswith((":", ";", "{", ",")):
        return None
    if literal_credential(value) or (chosen(value) and not is_reference(value)):
        return "password"
    return None


def _line_before(text: str, start: int, reach: int = 80) -> str | None:
    """What stands between the start of the line and *start*; ``None`` if too far."""
    line_start = text.rfind("\n", max(0, start - reach), start) + 1
    if line_start == 0 and start > reach:
        return None
    return text[line_start:start]


# --- key 7 X, key 0 X: a key with its encryption type in front (Cisco IOS and its kin) --------

# tacacs-server key 7 0822455D0A16, radius-server key 0 X, ntp authentication-key 1 md5 X
# (above): type 0 is the cleartext, type 7 a reversible encoding of it.
_TYPED_KEY_RE: Final = re.compile(r"key [07] (?P<secret>[^\s\"']{4,128})(?=[ \t]*(?:\r?\n|$))")


def _classify_typed_key(m: re.Match[str], text: str) -> str | None:
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- {PLAIN}X, {SSHA}X: a password with its storage scheme in front ------------------------------

# RFC 2307 userPassword, Dovecot passdb, OpenLDAP rootpw, 389 DS: the scheme in braces says
# the rest is the password (PLAIN, CLEARTEXT) or its hash, which is as good as one offline.
_SCHEMED_PASSWORD_RE: Final = re.compile(
    r"\{(?P<scheme>plain|cleartext|clear|plain-md5|ssha[0-9]*|sha[0-9]*|smd5|md5|crypt"
    r"|blf-crypt|sha[0-9]+-crypt|md5-crypt|argon2id?|pbkdf2[a-z0-9-]*|scram-sha-[0-9]+"
    r"|bcrypt|cram-md5|digest-md5)\}(?P<secret>[^\s:\"'<>,;]{4,512})"
)


def _classify_schemed_password(m: re.Match[str], text: str) -> str | None:
    value = group(m, text, "secret") or ""
    if is_reference(value):
        return None
    return "password" if m.group("scheme") in {"plain", "cleartext", "clear"} else "password-hash"


# --- [BasicAuth], [credentials]: every value of a section named for secrets ----------------------

_AUTH_SECTION_RE: Final = re.compile(
    r"\[(?:basic[_-]?auth|auth|authentication|credentials?|secrets?|passwords?|tokens?"
    r"|api[_-]?keys?|basic_?auth)\][ \t]*\r?\n"
)
_SECTION_ENTRY_RE: Final = re.compile(
    r"[ \t]*[^\s:=\[#;][^:=\n]{0,80}?[ \t]*[:=][ \t]*"
    r"(?:\"(?P<dq>[^\"\n]{1,256})\"|'(?P<sq>[^'\n]{1,256})'|(?P<bare>[^\s\"'#;][^\s#;]{0,255}))"
    r"[ \t]*(?:[#;].*)?\r?"
)


def _auth_section_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The credential-shaped values of a section whose header names secrets.

    Hurl's ``[BasicAuth]`` then ``user: password``; an INI ``[credentials]`` section. Up to
    the next section header or a blank line.
    """
    spans: list[tuple[int, int]] = []
    for position, line in lines_below(text, m.end(), 32):
        if not line.strip() or line.lstrip().startswith("["):
            break
        entry = _SECTION_ENTRY_RE.fullmatch(line)
        span = None if entry is None else first_value_span(entry)
        if span is None:
            continue
        value = line[span[0] : span[1]]
        if literal_credential(value) or (chosen(value) and not is_reference(value)):
            spans.append((position + span[0], position + span[1]))
    return spans


# --- cookies.txt: the value column of a Netscape cookie file -------------------------------------

# domain, include-subdomains, path, secure, expiry, name, value -- tab-separated (curl -c,
# wget --save-cookies, browser exports): every value is a live session's cookie.
_COOKIE_FILE_RE: Final = re.compile(
    r"\t(?:TRUE|FALSE)\t[^\t\n]{0,512}\t(?:TRUE|FALSE)\t[0-9]{1,12}\t[^\t\n]{1,256}\t"
    r"(?P<secret>[^\t\r\n]{8,4096})"
)


def _classify_cookie_file(m: re.Match[str], text: str) -> str | None:
    return None if is_reference(group(m, text, "secret") or "") else "cookie"


# --- SNMP community strings: the password of v1/v2c -----------------------------------------------

_COMMUNITY_RE: Final = re.compile(r"community[ \t]+(?P<secret>[^\s\"']{6,64})")


def _classify_community(m: re.Match[str], text: str) -> str | None:
    """``rocommunity X``, ``snmp-server community X RO``: public/private are no secret."""
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- $USER3$=X: resource macros of Nagios-style monitoring configs --------------------------------

_RESOURCE_MACRO_RE: Final = re.compile(r"\$user[0-9]{1,3}\$[ \t]*=[ \t]*(?P<secret>[^\s]{1,256})")


def _classify_resource_macro(m: re.Match[str], text: str) -> str | None:
    """``$USER4$=X`` in resource.cfg (Nagios, Icinga 1, Naemon): where checks' passwords go.

    The plug-in path and user names stored beside them are not password-shaped.
    """
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- JAAS: user_<name>="X" inside a LoginModule entry ---------------------------------------------

_JAAS_USER_RE: Final = re.compile(
    r"user_[a-z0-9_.-]{1,64}[ \t]*=[ \t]*\"(?P<secret>[^\"\n]{1,256})\""
)


def _classify_jaas_user(m: re.Match[str], text: str) -> str | None:
    """``user_<name>="..."``: each user's password, inside a JAAS login module's entry.

    (ZooKeeper's DigestLoginModule, Kafka's PlainLoginModule.)
    """
    if "loginmodule" not in text[max(0, m.start() - 600) : m.start()].lower():
        return None
    value = group(m, text, "secret") or ""
    return None if not value or is_reference(value) else "password"


# --- OTEL_EXPORTER_OTLP_HEADERS="name=value,name=value" -------------------------------------------

_HEADER_LIST_RE: Final = re.compile(
    r"_headers[\"']?[ \t]*[=:][ \t]*[\"']?"
    r"(?P<secret>[a-z0-9_-]{1,64}=[^\s\"',]{1,512}(?:,[ \t]*[a-z0-9_-]{1,64}=[^\s\"',]{1,512})*)"
)
_HEADER_PAIR_RE: Final = re.compile(r"(?P<name>[A-Za-z0-9_-]{1,64})=(?P<value>[^\s\"',]{1,512})")


def _header_list_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    spans = []
    for pair in _HEADER_PAIR_RE.finditer(text, *m.span("secret")):
        value = pair.group("value")
        if is_reference(value) or len(value) < 8:
            continue
        if any(c.isdigit() for c in value) or len(value) >= 16:
            spans.append(pair.span("value"))
    return spans


# --- createUser u SHA "X" AES "Y"; ACL SETUSER u on >X --------------------------------------------

_SNMP_USER_RE: Final = re.compile(
    r"createuser[ \t]+\S+[ \t]+(?:md5|sha[0-9-]*)[ \t]+(?P<auth>\"[^\"\n]{1,128}\"|[^\s\"]{1,128})"
    r"(?:[ \t]+(?:des|aes[0-9]*)[ \t]+(?P<priv>\"[^\"\n]{1,128}\"|[^\s\"]{1,128}))?"
)


def _snmp_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    spans = []
    for name in ("auth", "priv"):
        start, end = m.span(name)
        if start < 0:
            continue
        if text[start] == '"':
            start, end = start + 1, end - 1
        if not is_reference(text[start:end]):
            spans.append((start, end))
    return spans


_REDIS_ACL_RE: Final = re.compile(r"setuser[ \t]+\S+(?P<rules>[^\n]{0,300})")
_ACL_PASSWORD_RE: Final = re.compile(r"(?:^|[ \t])>(?P<value>[^\s]{1,256})")


def _redis_acl_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return [
        p.span("value")
        for p in _ACL_PASSWORD_RE.finditer(text, *m.span("rules"))
        if not is_reference(p.group("value"))
    ]


# --- tables: "# client server secret IP" and "URL user password" lines ----------------------------

_SECRET_COLUMN_RE: Final = re.compile(r"secret[ \t][a-z \t]{0,40}\n")


def _secret_column_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """Every row under a header comment naming a ``secret`` column: that column's value."""
    line_start = text.rfind("\n", max(0, m.start() - 80), m.start()) + 1
    header = text[line_start : m.end() - 1].lower()
    if not header.lstrip().startswith("#"):
        return []
    words = header.lstrip("# \t").split()
    if len(words) < 3 or "secret" not in words:
        return []
    column = words.index("secret")
    spans: list[tuple[int, int]] = []
    for position, line in lines_below(text, m.end(), 64):
        if not line.strip():
            break  # the table ends at a blank line
        if not line.lstrip().startswith("#"):
            fields = list(re.finditer(r"\"[^\"\n]*\"|\S+", line))
            if len(fields) > column:
                start, stop = fields[column].span()
                value = line[start:stop].strip('"')
                if value not in {"*", "-", ""} and not is_reference(value):
                    offset = 1 if line[start] == '"' else 0
                    spans.append((position + start + offset, position + stop - offset))
    return spans


_URL_USER_PASSWORD_RE: Final = re.compile(
    r"://[^\s\"'<>]{1,256}[ \t]+[^\s\"'<>]{1,64}[ \t]+"
    r"(?P<secret>[^\s\"'<>]{6,256})[ \t]*(?=\r?\n|$)"
)


def _classify_url_user_password(m: re.Match[str], text: str) -> str | None:
    line_start = text.rfind("\n", max(0, m.start() - 64), m.start()) + 1
    if not re.fullmatch(r"[ \t]*[a-z][a-z0-9+.-]*", text[line_start : m.start()]):
        return None  # the line must start with the URL
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- exports: a CSV or spreadsheet whose header names a password column ---------------------------

# A column name that says password, in the header line of a delimited export (a browser's or a
# password manager's CSV, a spreadsheet saved with semicolons): ``name,url,username,password``,
# ``Dienst;Benutzer;Kennwort;Notiz``. Read on the lowercased text.
_EXPORT_COLUMN_RE: Final = re.compile(
    r"(?:pass|pwd|kennwort|senha|wachtwoord|contrase|secret|token|mot de passe|losenord|salasana"
    r"|haslo|parola)[a-z_ -]{0,12}[\"']?(?=[,;\t]|\r?\n)"
)
_DELIMITERS: Final = ",;\t"
# A header's column name: a word or a few, no blank after the delimiter (``a, b, c`` is code).
_COLUMN_NAME: Final = re.compile(r"[\"']?[A-Za-z][\w ./-]{0,39}[\"']?|")
_EXPORT_ROWS: Final = 200
# What stands right before a column's name: a delimiter, its quote, or the start of the line.
_COLUMN_STARTS: Final = frozenset(",;\t\n\"'")


def _export_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The password column's value in every row under a delimited header naming it."""
    if m.start() and text[m.start() - 1] not in _COLUMN_STARTS:
        return []  # not a column's name: a word inside code (``f(token, x)``) or prose
    begin = line_start(text, m.start(), 1024)
    header = text[begin : line_end(text, m.start(), 1024)].rstrip("\r")
    delimiter = next((c for c in header if c in _DELIMITERS), "")
    if not delimiter:
        return []
    names = header.split(delimiter)
    if len(names) < 3 or not all(_COLUMN_NAME.fullmatch(name.rstrip()) for name in names):
        return []  # not a header: code, prose, or a row of values
    column = header.count(delimiter, 0, m.start() - begin)
    if not strong_secret_name(names[column].strip(" \"'")):
        return []
    spans: list[tuple[int, int]] = []
    for position, line in lines_below(text, line_end(text, m.start(), 1024) + 1, _EXPORT_ROWS):
        if line.count(delimiter) != len(names) - 1:
            break  # the export ends at a blank line or a line of some other shape
        span = _field_span(line, delimiter, column)
        if span is not None:
            spans.append((position + span[0], position + span[1]))
    return spans


def _field_span(line: str, delimiter: str, column: int) -> tuple[int, int] | None:
    """Where the value of field *column* of a delimited row stands, its quotes left out."""
    start = 0
    for _ in range(column):
        start = line.index(delimiter, start) + 1
    end = line.find(delimiter, start)
    end = len(line.rstrip("\r")) if end < 0 else end
    if line.startswith('"', start) and line[end - 1 : end] == '"' and end - start >= 2:
        start, end = start + 1, end - 1
    value = line[start:end]
    if len(value) < 4 or is_reference(value) or TYPE_NAME.fullmatch(value):
        return None
    return start, end


# --- armored blocks whose label says secret -------------------------------------------------------

_ARMORED_RE: Final = re.compile(
    r"(?P<secret>-----BEGIN (?P<label>[A-Za-z0-9 ]{1,60})-{5,}(?P<body>(?:[^-]++|-(?!----))*+)"
    r"-{5,}END [A-Za-z0-9 ]{1,60}-{5,})"
)
_SECRET_LABEL: Final = re.compile(r"(?i)secret|seed|private|static key|symmetric")
_KEY_MATERIAL: Final = re.compile(r"[A-Za-z0-9+/=]{20}")


def _classify_armored(m: re.Match[str], text: str) -> str | None:
    label = m.group("label")
    if not _SECRET_LABEL.search(label) or "PRIVATE KEY" in label:
        return None  # not secret, or the key rules' own block
    return "private-key" if _KEY_MATERIAL.search(m.group("body")) else None


# --- a random segment of a URL's path ---------------------------------------------------------

_URL_PATH_RE: Final = re.compile(
    r"://(?P<host>[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?)(?P<path>/[^\s?#\"'<>`)\]]{20,2048})"
)
_HEX: Final = re.compile(r"[0-9a-fA-F-]+")
_HOOKISH: Final = re.compile(r"(?i)^(?:web)?hooks?(?:b?[0-9])?$|webhook|^receiver$|^collector$")


_TOKEN_SEGMENTS: Final = frozenset(
    {"t", "token", "tokens", "tk", "apikey", "api_key", "api-key", "key", "secret", "auth", "pat"}
)


def _mostly_numbered(segment: str) -> bool:
    """``4z-285498a8-840b-...``: most parts hold digits (an id), unlike a slug of words."""
    parts = [p for p in re.split(r"[-_.]", segment) if p]
    return sum(any(c.isdigit() for c in p) for p in parts) * 2 > len(parts)


def _random_segment(segment: str) -> bool:
    core = segment.rstrip("=")
    if len(core) < 20 or _HEX.fullmatch(core) or wordy(core) or ordered_fraction(core) > 0.25:
        return False  # short, a commit SHA or UUID, words, an alphabet
    if not (has_entropy(core) and sum(c.isupper() for c in core) >= 3):
        return False
    return shannon_entropy(core) >= 4.0


def _key_piece(segment: str) -> bool:
    """A short piece of base64 (``zOUgQbRc``), not a path word (``receiver``, ``v1``)."""
    return (
        bool(segment)
        and any(c.isupper() for c in segment)
        and any(c.islower() or c.isdigit() for c in segment)
        and not wordy(segment)
    )


def _url_path_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    segments = m.group("path")[1:].split("/")
    starts = []
    start = m.start("path") + 1
    for segment in segments:
        starts.append(start)
        start += len(segment) + 1
    for found, segment in enumerate(segments):
        if _random_segment(segment):
            i = found
            # base64 holds "/" too: short random pieces right before belong to the key.
            while i > 0:
                if _key_piece(segments[i - 1]):
                    i -= 1
                elif i > 1 and not segments[i - 1] and _key_piece(segments[i - 2]):
                    i -= 2  # "//" inside the base64
                else:
                    break
            return [(starts[i], m.end("path"))]
    for i, segment in enumerate(segments[:-1]):
        following = segments[i + 1]
        if (
            segment.lower() in _TOKEN_SEGMENTS
            and len(following) >= 16
            and any(c.isdigit() for c in following)
            and any(c.isalpha() for c in following)
            and (not wordy(following) or _mostly_numbered(following))
        ):
            # conda.anaconda.org/t/<token>/channel, /token/<token>/: a segment named for
            # the token, then the token (an opaque id, even hex or a UUID with a prefix).
            return [(starts[i + 1], starts[i + 1] + len(following))]
    for i, segment in enumerate(segments[:-1]):
        if _HOOKISH.search(segment):
            # .../webhookb2/<id>@<id>/IncomingWebhook/<hex>/...: past a hook's name, ids
            # and hex are its key (elsewhere hex in a path is a commit or an object id).
            for j in range(i + 1, len(segments)):
                if len(segments[j]) >= 16 and not wordy(segments[j]):
                    return [(starts[j], m.end("path"))]
            break
    return []


# --- a key file's comment line, then the key ----------------------------------------------------

_COMMENTED_KEY_RE: Final = re.compile(
    r"(?:secret|private)[ \t]key[^\n]{0,40}\r?\n(?P<secret>[a-z0-9+/]{40,}={0,2})(?=\r?\n|$)"
)


def _classify_commented_key(m: re.Match[str], text: str) -> str | None:
    """``untrusted comment: minisign encrypted secret key`` and the base64 line under it."""
    line_start = text.rfind("\n", max(0, m.start() - 80), m.start()) + 1
    if "comment" not in text[line_start : m.start()].lower():
        return None
    return "private-key"


# --- files named for credentials: their rows' password fields ---------------------------------

# A comment naming the file, then its rows: "# /etc/pgbouncer/userlist.txt", "# ~/.pgpass".
# Found by the words a credential file's name holds (a "#" starts every Python comment);
# the classifier reads back to the "#".
_CREDENTIAL_FILE_RE: Final = re.compile(
    r"(?:secret|passw|userlist|users|auth|credential|token|htpasswd|shadow|psk|private|\.pass)"
    r"[^\s#]{0,60}"
)
_PATH_BEFORE: Final = re.compile(r"#[ \t]*(?P<head>[^\s#]{0,120})$")
_CREDENTIAL_FILE_NAME: Final = re.compile(
    r"secret|passw|userlist|^users?(?:\.[a-z]+)?$|^auth(?:[._-][a-z]+)?$|[._-]auth[._-]?private$"
    r"|\.auth$|_private$|credential|tokens?(?:\.[a-z]+)?$|htpasswd|shadow|\.pass$|psk"
)
_NOT_CREDENTIAL_FILE: Final = re.compile(r"authorized|known_hosts|\.pub$|\.(?:py|js|ts|go|rs|md)$")
_SCHEME_PREFIX: Final = re.compile(r"\{[A-Z0-9-]{2,24}\}")
_FIELD_RE: Final = re.compile(r"\"[^\"\n]*\"|\S+")


_FILE_PATH: Final = re.compile(r"[A-Za-z0-9_.@/~+-]+")


def _credential_file(path: str) -> bool:
    if not _FILE_PATH.fullmatch(path) or not ("/" in path or "." in path.strip(".")):
        return False  # "# secrets" is a heading, "# /etc/rsyncd.secrets" a file
    name = path.rstrip("/:").rsplit("/", 1)[-1].lower()
    return bool(_CREDENTIAL_FILE_NAME.search(name)) and not _NOT_CREDENTIAL_FILE.search(name)


def _row_secret(secret: str) -> bool:
    return any(c.isdigit() for c in secret) and (
        literal_credential(secret) or (chosen(secret) and not is_reference(secret))
    )


def _row_spans(line: str) -> list[tuple[int, int]]:
    """The password fields of one row: what follows its first field (the user).

    ``"app" "pw"`` (pgbouncer), ``backup:pw`` (rsyncd), ``jdoe:{PLAIN}pw::::::`` (dovecot),
    ``<onion>:descriptor:x25519:<key>`` (Tor), ``client server pw IP`` (chap-secrets); a row
    of one field is the password itself (OpenVPN's auth file: the user, then the password).
    """
    fields = [(f.start(), f.end()) for f in _FIELD_RE.finditer(line)]
    if len(fields) == 1 and ":" in line[fields[0][0] : fields[0][1]]:
        start, stop = fields[0]
        fields = []
        for piece in line[start:stop].split(":"):
            fields.append((start, start + len(piece)))
            start += len(piece) + 1
    if len(fields) > 1:
        fields = fields[1:]
    spans: list[tuple[int, int]] = []
    for field_start, field_end in fields:
        begin, stop = field_start, field_end
        if stop - begin >= 2 and line[begin] == line[stop - 1] == '"':
            begin, stop = begin + 1, stop - 1
        scheme = _SCHEME_PREFIX.match(line, begin, stop)
        if scheme is not None:
            begin = scheme.end()  # {PLAIN}pw: the scheme names how the rest is stored
        if _row_secret(line[begin:stop]):
            spans.append((begin, stop))
    return spans


def _credential_file_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The password fields of the rows under a comment naming a credential file.

    ``# /etc/rsyncd.secrets``, ``# /etc/pgbouncer/userlist.txt``, ``# /etc/dovecot/users``,
    ``# .../client/auth.txt``, ``# .../shop.auth_private``, ``# .../client/office.auth``
    (OpenVPN's ``auth-user-pass`` file: the user's line, then the password's); the comment
    may follow other words ("Keep # /etc/rsyncd.secrets ..."). The rows end at a blank line.
    """
    comment = _PATH_BEFORE.search(text, line_start(text, m.start(), 200), m.start())
    if comment is None:
        return []
    hash_at = comment.start()
    if hash_at > 0 and not text[hash_at - 1].isspace():
        return []  # a URL's fragment (.../credential-chains#use-...), not a comment
    path = comment.group("head") + text[m.start() : m.end()]
    line_end = text.find("\n", m.end(), m.end() + 100)
    if line_end < 0 or not _credential_file(path):
        return []  # the comment must end within 100 characters: the rows are below it
    spans: list[tuple[int, int]] = []
    for position, line in lines_below(text, line_end + 1, 64):
        if not line.strip():
            break
        if not line.lstrip().startswith("#"):
            spans += [(position + begin, position + stop) for begin, stop in _row_spans(line)]
    return spans


# --- a list of "user" "secret" records, one of them a password hash ---------------------------

# pgbouncer's userlist.txt with no comment naming it: a row whose second field is a stored
# hash (``"app_ro" "SCRAM-SHA-256$4096:..."``, ``"app" "md5<32 hex>"``) says the rows beside
# it are users and their passwords, and a plain one among them is a password.
_HASHED_ROW_RE: Final = re.compile(
    r"\"(?:SCRAM-SHA-256\$[0-9]{1,7}:[A-Za-z0-9+/=]{4,}\$|md5[0-9a-f]{32}\")"
)
_QUOTED_ROW: Final = re.compile(
    r"[ \t]*\"[^\"\n]{1,64}\"[ \t]+\"(?P<secret>[^\"\n]{1,256})\"[^\n]*"
)
_STORED_HASH: Final = re.compile(r"SCRAM-SHA-256\$|md5[0-9a-f]{32}$")


def _hashed_rows_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The plain second fields of the ``"user" "secret"`` rows around a row holding a hash."""
    start = line_start(text, m.start(), 100)
    if not _QUOTED_ROW.fullmatch(text, start, line_end(text, m.end(), 1024)):
        return []  # the hash is not a row's second field
    # Back to the block's first row: up to 64 rows of the same shape above it.
    for _ in range(64):
        if start == 0:
            break
        above = line_start(text, start - 1, 1024)
        if not _QUOTED_ROW.fullmatch(text, above, start - 1):
            break
        start = above
    spans: list[tuple[int, int]] = []
    for position, line in lines_below(text, start, 128):
        row = _QUOTED_ROW.fullmatch(line.rstrip("\r"))
        if row is None:
            break
        value = row.group("secret")
        if not _STORED_HASH.match(value) and _row_secret(value):
            spans.append((position + row.start("secret"), position + row.end("secret")))
    return spans


# --- Terraform state: what random_password generated ------------------------------------------

_TF_RESULT_RE: Final = re.compile(
    r"\"(?:result|bcrypt_hash)\":[ \t]*\"(?P<secret>(?:[^\"\\\n]|\\.){4,512})\""
)


def _classify_tf_result(m: re.Match[str], text: str) -> str | None:
    before = text[max(0, m.start() - 1500) : m.start()]
    return "password" if '"random_password"' in before or '"random_string"' in before else None


# --- credentials scoped to a host in an environment variable's name ------------------------------

# Found by the host's top-level domain ("__COM="): a bare "__" is on every line of Python.
_HOST_SCOPED_RE: Final = re.compile(
    r"__(?:COM|ORG|NET|IO|DEV|APP|CLOUD|CO|EU|DE|UK|LOCAL|INTERNAL|CORP)"
    r"=[\"']?[^\s:=\"']{1,64}:(?P<secret>[^\s\"']{4,256})"
)


def _classify_host_scoped(m: re.Match[str], text: str) -> str | None:
    """``BUNDLE_GEMS__EXAMPLE__COM=user:password``: a host's credentials (Bundler's form)."""
    start = m.start()
    limit = max(0, start - 64)
    while start > limit and (text[start - 1].isupper() or text[start - 1] in "_0123456789"):
        start -= 1
    if start == m.start() or (start > 0 and text[start - 1].isalnum()):
        return None
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- Subversion's auth cache: K/V records, the value after "password" -------------------------

_SVN_RECORD_RE: Final = re.compile(
    r"K [0-9]{1,3}\r?\n(?:password|passphrase)\r?\nV (?P<n>[0-9]{1,4})\r?\n"
    r"(?P<secret>[^\r\n]{1,4096})"
)


def _svn_record_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """``~/.subversion/auth/svn.simple/<hash>``: ``K 8 / password / V <n> / <the password>``."""
    start, end = m.span("secret")
    length = int(m.group("n"))
    if not 0 < length <= end - start or is_reference(text[start : start + length]):
        return []
    return [(start, start + length)]


# --- a parameter named for a secret, and its Default -------------------------------------------

_DEFAULT_RE: Final = re.compile(
    r"default[ \t]*:[ \t]*(?P<secret>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"']{1,256})"
    r"[ \t]*(?:\r?\n|$)"
)
_YAML_KEY: Final = re.compile(
    r"[ \t]*[\"']?(?P<name>[A-Za-z0-9_.-]{1,128})[\"']?[ \t]*:[ \t]*(?:#.*)?"
)


def _classify_default(m: re.Match[str], text: str) -> str | None:
    """``DBMasterPassword:`` ... ``Default: X``: the default of a parameter named for a secret.

    CloudFormation, SAM, Serverless, Helm schemas: the block's name is the line above the
    ``Default:`` with less indentation.
    """
    begin = line_start(text, m.start())
    indent = text[begin : m.start()]
    if indent.strip():
        return None
    end = begin - 1
    for _ in range(12):
        if end <= 0:
            return None
        above = line_start(text, end)
        line = text[above:end]
        end = above - 1
        stripped = line.lstrip(" \t")
        if not stripped or len(line) - len(stripped) >= len(indent):
            continue
        key = _YAML_KEY.fullmatch(line)
        if key is None:
            return None
        found = secret_name(key.group("name"))
        if found is None or not found[1]:
            return None
        value = (group(m, text, "secret") or "").strip("\"'")
        if value.startswith(("!", "{{")) or not (literal_credential(value) or chosen(value)):
            return None
        return found[0]
    return None


# --- proxychains' ProxyList: type host port [user pass] ----------------------------------------

_PROXY_LIST_RE: Final = re.compile(
    r"(?:socks4|socks5|http|raw)[ \t]+[^\s]{1,253}[ \t]+[0-9]{1,5}[ \t]+[^\s#]{1,64}[ \t]+"
    r"(?P<secret>[^\s]{1,256})[ \t]*(?:\r?\n|$)"
)


def _classify_proxy_list(m: re.Match[str], text: str) -> str | None:
    """``socks5 198.51.100.20 1080 jdoe X``: a proxy list line's user and password."""
    if text[line_start(text, m.start()) : m.start()].strip():
        return None  # not the start of its line
    return "password" if literal_credential(group(m, text, "secret") or "") else None


CONFIG_LINE_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "password",
        STRUCTURAL,
        _SVN_RECORD_RE,
        spans=_svn_record_spans,
    ),
    Rule("password", STRUCTURAL, _DEFAULT_RE, _classify_default, WORD, on_lowercase=True),
    Rule("password", STRUCTURAL, _PROXY_LIST_RE, _classify_proxy_list, WORD + "-"),
    Rule("password", STRUCTURAL, _HOST_SCOPED_RE, _classify_host_scoped),
    Rule("private-key", STRUCTURAL, _COMMENTED_KEY_RE, _classify_commented_key, on_lowercase=True),
    Rule(
        "password",
        STRUCTURAL,
        _CREDENTIAL_FILE_RE,
        on_lowercase=True,
        spans=_credential_file_spans,
    ),
    Rule("password", STRUCTURAL, _HASHED_ROW_RE, spans=_hashed_rows_spans),
    Rule("password", STRUCTURAL, _TF_RESULT_RE, _classify_tf_result),
    Rule(
        "password",
        STRUCTURAL,
        _BLANK_SEPARATED_RE,
        _classify_blank_separated,
        "-",
        on_lowercase=True,
        spans=_blank_separated_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _IDENTIFIED_BY_RE,
        _classify_identified_by,
        WORD,
        on_lowercase=True,
        spans=_blank_separated_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _SET_PASSWORD_RE,
        _classify_set_password,
        WORD,
        on_lowercase=True,
        spans=_blank_separated_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _DIRECTIVE_LINE_RE,
        _classify_directive_line,
        on_lowercase=True,
        spans=_blank_separated_spans,
    ),
    Rule(
        "password", STRUCTURAL, _SCHEMED_PASSWORD_RE, _classify_schemed_password, on_lowercase=True
    ),
    Rule(
        "password",
        STRUCTURAL,
        _AUTH_SECTION_RE,
        on_lowercase=True,
        spans=_auth_section_spans,
    ),
    Rule("password", STRUCTURAL, _RESOURCE_MACRO_RE, _classify_resource_macro, on_lowercase=True),
    Rule("password", STRUCTURAL, _TYPED_KEY_RE, _classify_typed_key, on_lowercase=True),
    Rule("cookie", STRUCTURAL, _COOKIE_FILE_RE, _classify_cookie_file),
    Rule("password", STRUCTURAL, _COMMUNITY_RE, _classify_community, "_-", on_lowercase=True),
    Rule("password", STRUCTURAL, _JAAS_USER_RE, _classify_jaas_user, WORD, on_lowercase=True),
    Rule(
        "token",
        STRUCTURAL,
        _HEADER_LIST_RE,
        on_lowercase=True,
        spans=_header_list_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _SNMP_USER_RE,
        not_after=WORD,
        on_lowercase=True,
        spans=_snmp_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _REDIS_ACL_RE,
        not_after=WORD,
        on_lowercase=True,
        spans=_redis_acl_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _SECRET_COLUMN_RE,
        on_lowercase=True,
        spans=_secret_column_spans,
    ),
    Rule("password", STRUCTURAL, _URL_USER_PASSWORD_RE, _classify_url_user_password),
    Rule(
        "password",
        STRUCTURAL,
        _EXPORT_COLUMN_RE,
        on_lowercase=True,
        spans=_export_spans,
    ),
    Rule("private-key", STRUCTURAL, _ARMORED_RE, _classify_armored),
    Rule("url-token", STRUCTURAL, _URL_PATH_RE, spans=_url_path_spans),
)
