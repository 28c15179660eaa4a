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
  chap-secrets) and ``URL user password`` lines (davfs2 secrets);
* armored blocks whose label says secret, seed or private (``-----BEGIN OpenVPN Static key
  V1-----``, ``-----BEGIN USER NKEY SEED-----``), not only ``PRIVATE KEY``;
* a random segment of a URL's path and what follows it (collector and webhook URLs carry
  their key there: ``.../receiver/v1/http/<key>``).
"""

from __future__ import annotations

import re
from typing import Final

from .base import STRUCTURAL, WORD, Rule, group, has_entropy, shannon_entropy
from .command_lines import literal_credential
from .values import chosen, is_reference, ordered_fraction, wordy

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


def _classify_header_list(m: re.Match[str], text: str) -> str | None:
    return "token" if _header_list_spans(m, text) else None


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


def _classify_snmp(m: re.Match[str], text: str) -> str | None:
    return "password" if _snmp_spans(m, text) else None


_REDIS_ACL_RE: Final = re.compile(r"setuser[ \t]+\S+(?P<rules>[^\n]{0,300})")
_ACL_PASSWORD_RE: Final = re.compile(r"(?:^|[ \t])>(?P<value>[^\s]{1,256})")


def _redis_acl_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return [
        p.span("value")
        for p in _ACL_PASSWORD_RE.finditer(text, *m.span("rules"))
        if not is_reference(p.group("value"))
    ]


def _classify_redis_acl(m: re.Match[str], text: str) -> str | None:
    return "password" if _redis_acl_spans(m, text) else None


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
    position = m.end()
    for _ in range(64):
        line_end = text.find("\n", position, position + 1024)
        end = len(text) if line_end < 0 else line_end
        line = text[position:end]
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
        if line_end < 0:
            break
        position = line_end + 1
    return spans


def _classify_secret_columns(m: re.Match[str], text: str) -> str | None:
    return "password" if _secret_column_spans(m, text) else None


_URL_USER_PASSWORD_RE: Final = re.compile(
    r"://[^\s\"'<>]{1,256}[ \t]+[^\s\"'<>]{1,64}[ \t]+"
    r"(?P<secret>[^\s\"'<>]{6,256})[ \t]*(?=\r?\n|$)"
)


def _classify_url_user_password(m: re.Match[str], text: str) -> str | None:
    line_start = text.rfind("\n", max(0, m.start() - 64), m.start()) + 1
    if not re.fullmatch(r"[ \t]*[a-z][a-z0-9+.-]*", text[line_start : m.start()]):
        return None  # the line must start with the URL
    return "password" if literal_credential(group(m, text, "secret") or "") else None


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
        if _HOOKISH.search(segment):
            # .../webhookb2/<id>@<id>/IncomingWebhook/<hex>/...: past a hook's name, ids
            # and hex are its key (elsewhere hex in a path is a commit or an object id).
            for j in range(i + 1, len(segments)):
                if len(segments[j]) >= 16 and not wordy(segments[j]):
                    return [(starts[j], m.end("path"))]
            break
    return []


def _classify_url_path(m: re.Match[str], text: str) -> str | None:
    return "url-token" if _url_path_spans(m, text) else None


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


# --- files named for secrets: every line's last field ------------------------------------------

_SECRETS_FILE_RE: Final = re.compile(r"secrets\b[^\n]{0,60}\n")
_SECRETS_PATH: Final = re.compile(r"#[ \t]*[^\s#]*[./_-]$")  # "# /etc/rsyncd." before "secrets"


def _secrets_file_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """Each line's last field under a comment naming a ``*secrets`` file.

    ``# /etc/rsyncd.secrets`` then ``backup:pw``: of a ``user:secret`` field, the part after
    the colon.
    """
    line_start = text.rfind("\n", max(0, m.start() - 80), m.start()) + 1
    comment = text[line_start : m.start()]
    if not _SECRETS_PATH.search(comment):
        # "# /etc/rsyncd.secrets", "# /etc/ppp/chap-secrets" (also quoted after other words:
        # "Keep # /etc/rsyncd.secrets ..."), not "# secrets"
        return []
    spans: list[tuple[int, int]] = []
    position = m.end()
    for _ in range(64):
        line_end = text.find("\n", position, position + 1024)
        end = len(text) if line_end < 0 else line_end
        line = text[position:end]
        if not line.strip():
            break
        if not line.lstrip().startswith("#"):
            last = list(re.finditer(r"\"[^\"\n]*\"|\S+", line))[-1]
            begin, stop = last.span()
            value = line[begin:stop]
            if value.startswith('"') and value.endswith('"') and len(value) >= 2:
                begin, stop = begin + 1, stop - 1
            elif ":" in value:
                begin += value.rindex(":") + 1
            secret = line[begin:stop]
            if any(c.isdigit() for c in secret) and (
                literal_credential(secret) or (chosen(secret) and not is_reference(secret))
            ):
                spans.append((position + begin, position + stop))
        if line_end < 0:
            break
        position = line_end + 1
    return spans


def _classify_secrets_file(m: re.Match[str], text: str) -> str | None:
    return "password" if _secrets_file_spans(m, text) else None


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


CONFIG_LINE_RULES: Final[tuple[Rule, ...]] = (
    Rule("password", STRUCTURAL, _HOST_SCOPED_RE, _classify_host_scoped),
    Rule("private-key", STRUCTURAL, _COMMENTED_KEY_RE, _classify_commented_key, on_lowercase=True),
    Rule(
        "password",
        STRUCTURAL,
        _SECRETS_FILE_RE,
        _classify_secrets_file,
        on_lowercase=True,
        spans=_secrets_file_spans,
    ),
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
        "token",
        STRUCTURAL,
        _HEADER_LIST_RE,
        _classify_header_list,
        on_lowercase=True,
        spans=_header_list_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _SNMP_USER_RE,
        _classify_snmp,
        WORD,
        on_lowercase=True,
        spans=_snmp_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _REDIS_ACL_RE,
        _classify_redis_acl,
        WORD,
        on_lowercase=True,
        spans=_redis_acl_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _SECRET_COLUMN_RE,
        _classify_secret_columns,
        on_lowercase=True,
        spans=_secret_column_spans,
    ),
    Rule("password", STRUCTURAL, _URL_USER_PASSWORD_RE, _classify_url_user_password),
    Rule("private-key", STRUCTURAL, _ARMORED_RE, _classify_armored),
    Rule("url-token", STRUCTURAL, _URL_PATH_RE, _classify_url_path, spans=_url_path_spans),
)
