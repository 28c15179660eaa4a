"""Secrets in records that name them in a sibling field or a parent key, not in their own key.

:mod:`.named_fields` takes a value whose own key says secret (``password: X``). Many formats
instead write records of a name and a value, or put the value one level down:

* ``{"name": "sessionid", "value": "..."}`` (HTTPie sessions, HAR cookies and headers, Postman
  and Insomnia environments), ``<param name="password" value="..."/>`` (XML attributes),
  ``- name: DB_PASSWORD`` then ``value: ...`` (Kubernetes env, Helmfile ``set``, Tekton
  params), ``set { name = "adminPassword" value = "..." }`` (Terraform),
  ``ParameterKey``/``ParameterValue`` (CloudFormation), ``Key``/``Value``;
* a value object under a key that names the secret: ``"adminPassword": {"value": "..."}``
  (ARM parameters), ``"db_password": {"sensitive": true, "value": "..."}`` (Terraform
  outputs);
* a map named for secrets whose own keys are arbitrary names: ``"apikeys": {"acme": "..."}``,
  ``tokens:`` with ``host: token`` lines under it;
* an atom and its value: ``{password, "..."}`` (Erlang ``sys.config``), ``{:password, "..."}``
  (Elixir), ``:password "..."`` (Clojure, EDN).
* fields named by one letter beside a user's (``P=`` beside ``I=``, ``"P:X"`` beside ``"U:"``,
  ``WIFI:S:..;P:X;;``), values under a section named for them (``[admins]``), a Markdown
  table's Password column, and ``user: password`` lines under a comment documenting them so.

The record is found by its braces on one line, else by the lines indented like the value's
own key; classifiers look a bounded distance around the match.
"""

from __future__ import annotations

import re
from typing import Final

from ..base import STRUCTURAL, Rule, first_value_span, group, line_end, line_start, lines_below
from ..values import (
    NUMBER,
    TYPE_NAME,
    is_reference,
    is_template,
    looks_random,
    plausible_bare,
    plausible_quoted,
    secret_name,
)
from .command_lines import literal_credential
from .net import PICKED, shape


def _value_counts(value: str, quoted: bool, kind: str, strong: bool) -> bool:
    if len(value) < 4 or (not quoted and "(" in value):
        return False  # value = next(it): a call, not a stored value
    if is_reference(value) or is_template(value):
        return False
    if TYPE_NAME.fullmatch(value) or (NUMBER.fullmatch(value) and kind != "password"):
        return False
    plausible = plausible_quoted(value, kind) if quoted else plausible_bare(value, config_line=True)
    return plausible and (strong or looks_random(value))


# --- name and value siblings ------------------------------------------------------------------

_FIELD_VALUE: Final = (
    r"[ \t]*(?P<secret>\"(?:[^\"\\\n]|\\.){1,4096}\"|'(?:[^'\\\n]|\\.){1,4096}'"
    r"|[^\s\"'`,{}\[\]#][^\s,{}\[\]#]{0,4095})"
)
_VALUE_FIELDS: Final = ("value", "parametervalue", "currentvalue", "initialvalue")
# Spelled out with what follows the name ("value:", "value =", '"value"'): a bare "value" is
# on every tenth line of code. The other names are JSON keys (CloudFormation, Postman), so
# only their quoted form is looked for.
_VALUE_FIELD_RE: Final = re.compile(r"(?P<field>value:|value=|value =|value  =)" + _FIELD_VALUE)
_QUOTED_VALUE_FIELD_RE: Final = re.compile(
    r"[\"'](?P<field>" + "|".join(_VALUE_FIELDS) + r")[\"'][ \t]*[:=]" + _FIELD_VALUE
)
_NAME_FIELD_RE: Final = re.compile(
    r"(?:^|[\s{,;<])[\"']?(?:name|key|parameterkey|parametername|variable|header|label)[\"']?"
    r"[ \t]*[:=][ \t]*(?:[\"'](?P<quoted>[^\"'\n]{1,80})[\"']"
    r"|(?P<bare>[A-Za-z0-9_.:/-]{1,80})(?=[\s,;}>/]|$))",
    re.IGNORECASE,
)
_PARENT_KEY_RE: Final = re.compile(r"[\"']?(?P<name>[A-Za-z0-9_.:-]{1,80})[\"']?[ \t]*[:=][ \t]*$")


def _unquoted(value: str) -> tuple[str, bool]:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1], True
    return value, False


def _brace_record(text: str, start: int, reach: int = 300) -> tuple[int, int] | None:
    """The ``{...}`` around *start* when it opens on the same line: (after ``{``, at ``}``)."""
    depth = 0
    i = start - 1
    limit = max(0, start - reach)
    while i >= limit:
        c = text[i]
        if c == "\n":
            return None
        if c in "}]":
            depth += 1
        elif c in "{[":
            if depth == 0:
                if c != "{":
                    return None
                break
            depth -= 1
        i -= 1
    else:
        return None
    close = text.find("}", start, start + reach)
    line_end = text.find("\n", start, start + reach)
    end = close if close >= 0 else (line_end if line_end >= 0 else min(len(text), start + reach))
    return i + 1, end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t-"))


def _whole_line(text: str, begin: int, end: int) -> bool:
    return (begin == 0 or text[begin - 1] == "\n") and (end == len(text) or text[end] == "\n")


def _sibling_lines(text: str, start: int, most: int = 8) -> tuple[str, str]:
    """The lines of the record holding the line at *start*, and the line that opens it.

    Siblings are the nearby lines whose key is indented like this one's (a YAML item's
    ``- name:`` counts at its key's column); the record ends at a line indented less, at a
    blank line and at the next ``- `` item.
    """
    begin, end = line_start(text, start), line_end(text, start)
    if not _whole_line(text, begin, end):
        return "", ""  # a line longer than any record's: minified, a blob
    own = text[begin:end]
    column = _indent(own)
    siblings: list[str] = []
    parent = ""
    item_started = own.lstrip(" \t").startswith("- ")
    for _ in range(most):  # upwards
        if begin == 0 or item_started:
            break
        end = begin - 1
        begin = line_start(text, end)
        line = text[begin:end]
        if not line.strip() or not _whole_line(text, begin, end):
            break
        if _indent(line) != column:
            parent = line if _indent(line) < column else ""
            break
        siblings.append(line)
        item_started = line.lstrip(" \t").startswith("- ")
    end = line_end(text, start)
    for _ in range(most):  # downwards
        if end >= len(text):
            break
        begin = end + 1
        end = line_end(text, begin)
        line = text[begin:end]
        if not line.strip() or not _whole_line(text, begin, end):
            break
        if _indent(line) != column or line.lstrip(" \t").startswith("- "):
            break
        siblings.append(line)
    return "\n".join(siblings), parent


def _name_field(record: str) -> str | None:
    found = _NAME_FIELD_RE.search(record)
    if found is None:
        return None
    return found.group("quoted") if found.start("quoted") >= 0 else found.group("bare")


def _record_name(m: re.Match[str], text: str) -> str | None:
    """The name a value field's record gives it: a sibling name field, else the parent key."""
    start = m.start()
    braces = _brace_record(text, start)
    if braces is not None:
        begin, end = braces
        name = _name_field(text[begin:start] + " " + text[m.end() : end])
        if name is not None:
            return name
        parent = _PARENT_KEY_RE.search(text, max(0, begin - 1 - 96), begin - 1)
        return parent.group("name") if parent is not None else None
    # <param name="password" value="..."/>: an element's attributes are a record on one line.
    element = text.rfind("<", line_start(text, start, 300), start)
    if element >= 0 and ">" not in text[element:start]:
        name = _name_field(text[element:start])
        if name is not None:
            return name
    siblings, parent_line = _sibling_lines(text, start)
    name = _name_field(siblings)
    if name is not None:
        return name
    parent_key = _PARENT_KEY_RE.search(parent_line.strip(" \t-").rstrip("{ \t"))
    return parent_key.group("name") if parent_key is not None else None


def _classify_value_field(m: re.Match[str], text: str) -> str | None:
    field_start = m.start()
    before = text[field_start - 1 : field_start] if field_start else ""
    if before.isalnum() or before == "_":
        return None  # myvalue, max_value are other names
    value, quoted = _unquoted(text[m.start("secret") : m.end("secret")])
    if not _value_counts(value, quoted, "password", strong=True):
        return None  # default=None, value: int -- no literal, so no record to look up
    name = _record_name(m, text)
    if name is None:
        return None
    found = secret_name(name)
    if found is None:
        return None
    kind, strong = found
    return kind if _value_counts(value, quoted, kind, strong) else None


def _value_field_span(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    start, end = m.span("secret")
    if text[start] in "\"'":
        return [(start + 1, end - 1)]
    return [(start, end)]


# --- {password, "X"}, :password "X" -------------------------------------------------------------

# A tuple of an atom and a value (Erlang sys.config {password, "X"}, Elixir {:password, "X"})
# and a keyword before its value (Clojure and EDN :password "X", {:db/password "X"}).
_ATOM_PAIR_RE: Final = re.compile(
    r"(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|token|_key|-key|credentials?)"
    r"(?P<sep>[ \t]*,[ \t]*|[ \t]+)(?P<q>[\"'])(?P<secret>(?:(?!(?P=q))[^\\\n]|\\.){1,256})(?P=q)"
)
_ATOM_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-./")


def _classify_atom_pair(m: re.Match[str], text: str) -> str | None:
    start = m.start("kw")
    limit = max(0, start - 64)
    while start > limit and text[start - 1].lower() in _ATOM_CHARS:
        start -= 1
    lead = text[max(0, start - 2) : start]
    if "," in m.group("sep"):
        # {password, "X"} or {:password, "X"}: an atom right after a tuple's brace.
        if not (lead.endswith("{") or lead.endswith("{:") or lead == "{:"):
            return None
    elif not lead.endswith(":") or lead.endswith("::"):
        return None  # :password "X" -- a keyword; a bare word before a string is prose
    found = secret_name(text[start : m.end("kw")])
    if found is None:
        return None
    kind, strong = found
    value = group(m, text, "secret") or ""
    return kind if _value_counts(value, True, kind, strong) else None


# --- maps named for secrets ---------------------------------------------------------------------

_SECRET_MAP_RE: Final = re.compile(
    r"(?P<kw>api[_-]?keys?|tokens|secrets|passwords|credentials|auths|access[_-]?tokens)"
    r"[\"']?[ \t]*[:=][ \t]*(?P<open>\{|\r?\n)"
)
# A name quoted (JSON) or bare (a JS object: hardhat's ``apiKey: {mainnet: '...'}``).
_JSON_PAIR_RE: Final = re.compile(
    r"(?:[\"'](?P<name>[^\"'\n]{1,80})[\"']|(?<![\w$.])[A-Za-z_$][\w$-]{0,79})"
    r"[ \t]*:[ \t]*(?:\"(?P<dq>[^\"\\\n]{1,512})\""
    r"|'(?P<sq>[^'\\\n]{1,512})')[ \t]*(?=[,}\n])"
)
_YAML_PAIR_RE: Final = re.compile(
    r"[ \t]+[\"']?[^\s:\"']{1,80}[\"']?:[ \t]+(?:\"(?P<dq>[^\"\n]{1,512})\""
    r"|'(?P<sq>[^'\n]{1,512})'|(?P<bare>[^\s\"'#][^\s#]{0,511}))[ \t]*$"
)


def _closing_brace(text: str, start: int, limit: int) -> int:
    """Where the ``{`` just before *start* closes (children may be maps: ``"staging": {..}``)."""
    depth = 0
    for found in _BRACE_RE.finditer(text, start, min(limit, len(text))):
        if found.group() == "{":
            depth += 1
        elif depth == 0:
            return found.start()
        else:
            depth -= 1
    return -1


_BRACE_RE: Final = re.compile(r"[{}]")


def _secret_map_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """Every credential-shaped value of a map whose name says it holds secrets."""
    spans: list[tuple[int, int]] = []
    if m.group("open") == "{":
        end = _closing_brace(text, m.end(), m.end() + 2048)
        if end < 0:
            return []
        for pair in _JSON_PAIR_RE.finditer(text, m.end(), end):
            if pair.group("name") and secret_name(pair.group("name")) is not None:
                continue  # {"auth": X} one level down: its own name's rule names it better
            group_name = "dq" if pair.start("dq") >= 0 else "sq"
            if literal_credential(pair.group(group_name)):
                spans.append(pair.span(group_name))
        return spans
    column = _indent(text[line_start(text, m.start(), 256) : m.start()] + "x")
    for position, line in lines_below(text, m.end(), 32):
        if not line.strip() or _indent(line) <= column:
            break
        entry = _YAML_PAIR_RE.fullmatch(line)
        value = None if entry is None else first_value_span(entry)
        if value is not None and literal_credential(line[value[0] : value[1]]):
            spans.append((position + value[0], position + value[1]))
    return spans


# --- records whose fields are letters: P= beside I=, "P:X" beside "U:", WIFI:S:..;P:X;; ----------

# A one-letter password field (hexchat's servlist ``P=``, sendmail's authinfo ``"P:"``, a Wi-Fi
# QR payload's ``P:``): only a password when a sibling one-letter field names the user, the
# identity or the network (``U``, ``I``, ``S``, ``N``).
_LETTER_FIELD_RE: Final = re.compile(r"[\n\"';]P[:=](?P<secret>[^\s\"';]{4,128})")
_LETTER_SIBLING: Final = re.compile(r"[\n\"';](?:U|I|S|N)[:=][^\s\"';]")
_SIBLING_REACH: Final = 160


def _classify_letter_field(m: re.Match[str], text: str) -> str | None:
    start = max(0, m.start() - _SIBLING_REACH)
    if not _LETTER_SIBLING.search(text, start, min(len(text), m.end() + _SIBLING_REACH)):
        return None
    return "password" if literal_credential(group(m, text, "secret") or "") else None


# --- values under a section named for them: [admins] / admin = X ---------------------------------

_CREDENTIAL_SECTION_RE: Final = re.compile(
    r"\[(?:admins|users|passwords|credentials|secrets)\][ \t]*\r?\n"
)
_SECTION_LINE: Final = re.compile(r"[ \t]*[^\s=:\[#;]{1,64}[ \t]*[=:][ \t]*(?P<value>[^\s]{4,256})")
_SECTION_LINES: Final = 20


def _section_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The literal credentials of the ``name = value`` lines of a credentials section."""
    spans: list[tuple[int, int]] = []
    position = m.end()
    for _ in range(_SECTION_LINES):
        end = line_end(text, position)
        line = _SECTION_LINE.match(text, position, end)
        if line is None:
            break  # a blank line, a comment or the next [section] ends it
        if literal_credential(line.group("value")):
            spans.append(line.span("value"))
        position = end + 1
    return spans


# --- a Markdown table with a Password column ----------------------------------------------------

_TABLE_COLUMNS: Final = ("password", "passwd", "passphrase", "secret", "token", "api key", "pin")
# Anchored on the pipe before the name, so the engine looks up "| password" and "|password",
# not "token" (a word every tokenizer repeats).
_TABLE_HEADER_RE: Final = re.compile(
    r"\|(?:" + "|".join(f" {name}|{name}" for name in _TABLE_COLUMNS) + r")[ \t]*\|"
)
_TABLE_ROWS: Final = 50


def _cells(row: str) -> list[tuple[int, int]]:
    r"""Where each cell of a table row lies, between pipes.

    A backslash-escaped pipe (``\|``, how Markdown writes a pipe inside a cell) stays in its cell.
    """
    cells: list[tuple[int, int]] = []
    start = i = 0
    while i < len(row):
        if row[i] == "\\":
            i += 2
            continue
        if row[i] == "|":
            cells.append((start, i))
            start = i + 1
        i += 1
    cells.append((start, min(i, len(row))))
    return cells


def _table_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The cells of a table's column headed Password (or Secret, Token...).

    Markdown's header is ``| User | Password |`` over a ``|---|`` line; Jira's and Confluence's
    wiki markup writes ``||User||Password||`` with no such line. Either way the column is the
    number of cell breaks before the name, and the rows under it are ``|a|b|`` lines.
    """
    begin = line_start(text, m.start())
    header = text[begin : m.start() + 1]
    if not header.lstrip().startswith("|"):
        return []
    wiki = header.lstrip().startswith("||")
    column = header.count("||") if wiki else len(_cells(header)) - 1
    position = line_end(text, m.end()) + 1
    if not wiki:
        separator = text[position : line_end(text, position)]
        if not separator.strip().startswith("|") or "-" not in separator:
            return []
        position += len(separator) + 1
    spans: list[tuple[int, int]] = []
    for _ in range(_TABLE_ROWS):
        end = line_end(text, position)
        row = text[position:end]
        if not row.lstrip().startswith("|") or row.lstrip().startswith("||"):
            break
        cells = _cells(row)
        if column < len(cells):
            cell = row[cells[column][0] : cells[column][1]]
            value = cell.strip().strip("`")
            spelled = value.replace("\\|", "|")
            if value and (literal_credential(spelled) or shape(spelled) >= PICKED):
                start = position + cells[column][0] + cell.index(value)
                spans.append((start, start + len(value)))
        position = end + 1
        if position >= len(text):
            break
    return spans


# --- lines under a comment that documents them as user and password ------------------------------

# ``# username: password [,rolename ...]`` (Jetty and ActiveMQ realms), ``# user=password``: the
# file says what its lines hold, so the field after the separator is a password.
_DOCUMENTED_RECORD_RE: Final = re.compile(
    r"user(?:name)?[ \t]*(?P<sep>[:=,])[ \t]*password\b[^\n]{0,80}\r?\n"
)
_RECORD_LINES: Final = 50


def _documented_record_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The password field of each ``user<sep>password`` line under a comment saying so."""
    begin = line_start(text, m.start())
    if not text[begin : m.start()].strip().startswith(("#", "//", ";", "!")):
        return []  # code that mentions user: password, not a file documenting its records
    line_re = re.compile(
        r"[ \t]*[^\s#;!"
        + re.escape(m.group("sep"))
        + r"]{1,64}[ \t]*"
        + re.escape(m.group("sep"))
        + r"[ \t]*(?P<value>[^\s,]{4,256})"
    )
    spans: list[tuple[int, int]] = []
    position = m.end()
    for _ in range(_RECORD_LINES):
        end = line_end(text, position)
        line = line_re.match(text, position, end)
        if line is None:
            break
        if literal_credential(line.group("value")):
            spans.append(line.span("value"))
        position = end + 1
        if position >= len(text):
            break
    return spans


RECORD_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "password",
        STRUCTURAL,
        _DOCUMENTED_RECORD_RE,
        on_lowercase=True,
        spans=_documented_record_spans,
    ),
    Rule("password", STRUCTURAL, _LETTER_FIELD_RE, _classify_letter_field),
    Rule(
        "password",
        STRUCTURAL,
        _CREDENTIAL_SECTION_RE,
        on_lowercase=True,
        spans=_section_spans,
    ),
    Rule(
        "password",
        STRUCTURAL,
        _TABLE_HEADER_RE,
        on_lowercase=True,
        spans=_table_spans,
    ),
    Rule("password", STRUCTURAL, _ATOM_PAIR_RE, _classify_atom_pair, on_lowercase=True),
    Rule(
        "password",
        STRUCTURAL,
        _VALUE_FIELD_RE,
        _classify_value_field,
        on_lowercase=True,
        spans=_value_field_span,
        scan_whole=True,  # "value" is everywhere in code: the regex's own scan is cheaper
    ),
    Rule(
        "password",
        STRUCTURAL,
        _QUOTED_VALUE_FIELD_RE,
        _classify_value_field,
        on_lowercase=True,
        spans=_value_field_span,
    ),
    Rule(
        "token",
        STRUCTURAL,
        _SECRET_MAP_RE,
        on_lowercase=True,
        spans=_secret_map_spans,
    ),
)
