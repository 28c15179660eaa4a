"""Scrub secrets out of text before Comodor stores it.

Comodor remembers what happens in a workspace: lesson text, rule details, task goals, diffs,
chat messages, the subjects of denied actions. All of that is copied out of editors, terminals
and config files, which is exactly where credentials live. The invariant this module exists to
uphold is:

    **No secret reaches the brain file** (nor any other file the product writes).

So every string is passed through :func:`redact` on its way to storage. A leaked lesson file
is then an embarrassment, not an incident.

How the detection is balanced:

* Shapes that are unambiguous on their own (provider token prefixes such as ``ghp_`` or
  ``AKIA``, PEM private-key blocks, JWTs, credentials inside URLs, ``Authorization`` headers)
  are removed wherever they appear. When in doubt about where such a token ends, more is
  removed rather than less.
* Generic assignments (``password = ...``, ``"token": ...``, ``API_KEY=...``) are only
  redacted when the value is a *literal*. ``password = os.environ["PASSWORD"]``,
  ``token = get_token()`` or ``password: str`` are ordinary code, and stored lessons must stay
  readable, so for assignments only the value is replaced and the name and operator are kept.
* Replacements look like ``[REDACTED:<kind>]``. Markers are never matched again, which makes
  :func:`redact` idempotent: text that went through it once can go through it again unchanged.

Every pattern is written to run in linear time: repetitions are over a single character class
(or alternatives that cannot both match the same character) and are followed by something that
class cannot contain, so a failed attempt never re-scans more than one run of characters. Rules
whose first characters are common carry a look-behind, so a long run of letters offers a single
starting position instead of one per character. A 10 MB input is scanned in well under a second.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Final

import attrs

__all__ = ["SecretMatch", "contains_secret", "find_secrets", "redact"]

MARKER_PREFIX: Final = "[REDACTED:"
_MARKER_RE: Final = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


@attrs.frozen
class SecretMatch:
    """A secret found in a text: ``text[start:end]`` is what :func:`redact` replaces."""

    kind: str
    start: int
    end: int


# A classifier looks at a regex match (and the whole text, for context) and returns the kind to
# report, or ``None`` when the match turns out not to be a secret.
_Classifier = Callable[[re.Match[str], str], "str | None"]


@attrs.frozen
class _Rule:
    kind: str
    priority: int
    pattern: re.Pattern[str]
    classify: _Classifier | None = None


# When matches from several rules overlap they are merged into one redaction, named after the
# most specific rule involved: a GitHub token inside a git remote URL is reported as
# ``github-token`` rather than ``url-credentials``.
_PROVIDER: Final = 100
_PRIVATE_KEY: Final = 90
_JWT: Final = 80
_CONTEXTUAL: Final = 70
_STRUCTURAL: Final = 60
_ASSIGNMENT: Final = 50


def _has_entropy(value: str, *, need_upper: bool = True) -> bool:
    """Tell random-looking tokens from slugs such as ``sk-learn-compatible-wrapper``."""
    has_digit = any(c.isdigit() for c in value)
    has_lower = any(c.islower() for c in value)
    has_upper = any(c.isupper() for c in value)
    return has_digit and has_lower and (has_upper or not need_upper)


def _check_entropy(kind: str, *, need_upper: bool = True) -> _Classifier:
    def classify(m: re.Match[str], _text: str) -> str | None:
        return kind if _has_entropy(m.group("secret"), need_upper=need_upper) else None

    return classify


# --- values: literal or code? ------------------------------------------------------------------

_WORDISH: Final = re.compile(r"[A-Za-z_-]+(?:\.[A-Za-z_-]+)*")
_SHORT_NUMBER: Final = re.compile(r"[0-9.]{1,7}")
_PLACEHOLDER: Final = re.compile(r"<[^<>]*>|%[a-z]|\.\.\.|…")
# Interpolations: ${VAR}, {{ var }}, #{var}, %(name)s, $(cmd), {name}, $VAR.
_TEMPLATE: Final = re.compile(
    r"\$\{[^{}]*\}|\{\{[^{}]*\}\}|#\{[^{}]*\}|%\([^()]*\)[a-z]|\$\([^()]*\)"
    r"|\{[A-Za-z_][A-Za-z0-9_.]*\}|\{\}|\$[A-Za-z_][A-Za-z0-9_]*"
)
_SECRETISH_RUN: Final = re.compile(r"[^\s]{8,}")
_REFERENCE_STARTS: Final = "$%{<&*!@`\\"
_CODE_CHARS: Final = "([{"
_PATHLIKE: Final = re.compile(r"(?:/|\./|\.\./|~/|[A-Za-z]:\\)")
_URL_WITHOUT_CREDENTIALS: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^@\s]*")


def _is_template(value: str) -> bool:
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


def _plausible_quoted(content: str) -> bool:
    """Whether the inside of a string literal assigned to a secret-ish name is a real value."""
    if not content or MARKER_PREFIX in content:
        return False
    # "Password: ", x  -- the quote we took for an opening one was the end of a string.
    if content[0].isspace() or content[0] in ",;)+":
        return False
    if _is_template(content) or _PLACEHOLDER.fullmatch(content):
        return False
    return len(set(content)) > 1


def _plausible_bare(value: str, *, env_line: bool) -> bool:
    """Whether an unquoted value is a literal (``hunter2``) rather than code (``get_token()``)."""
    if not value or value[0] in ("$" if env_line else _REFERENCE_STARTS) or _is_template(value):
        return False
    if any(c in value for c in _CODE_CHARS):
        return False
    if _SHORT_NUMBER.fullmatch(value):
        return False
    if _PATHLIKE.match(value) or _URL_WITHOUT_CREDENTIALS.fullmatch(value):
        return False
    if env_line:
        # NAME=value on a line of its own (.env, shell, Dockerfile): the value is always a
        # literal, even when it is a plain word.
        return True
    if _WORDISH.fullmatch(value):
        # Identifiers, attribute paths, type names, prose words: ``password: str``,
        # ``api_key = settings.API_KEY``, ``secret: required``.
        return False
    return len(value) >= 4


# --- generic assignments ----------------------------------------------------------------------

_KEYWORD: Final = (
    r"(?P<kw>pass(?:word|wd|phrase)|pwd|client[_-]?secret|secret(?:[_-]?key)?|token"
    r"|(?:access|auth|api|private|account|signing|encryption|master)[_-]?key)"
)
_ASSIGNMENT_OPERATOR: Final = (
    r"(?P<op>[ \t]*"
    r"(?::[ \t]*[A-Za-z_][A-Za-z0-9_.\[\], |]{0,60}?[ \t]*=(?![=>~])"  # password: str = "..."
    r"|:=|=>|\?=|=(?![=~])|:(?![:=]))"
    r"[ \t]*)"
)
_STRING_PREFIX: Final = r"(?:[rRbBuUfF]{1,2})?"
_ASSIGNED_VALUE: Final = (
    r"(?P<secret>"
    rf"{_STRING_PREFIX}\"(?P<dq>(?:[^\"\\\n]|\\.)*)\""
    rf"|{_STRING_PREFIX}'(?P<sq>(?:[^'\\\n]|\\.)*)'"
    r"|(?P<bare>[^\s\"'`,;)\]}]+))"
)
_ASSIGNMENT_RE: Final = re.compile(
    rf"(?i:{_KEYWORD})(?:[\"']\]?)?{_ASSIGNMENT_OPERATOR}{_ASSIGNED_VALUE}"
)
_CLI_FLAG_RE: Final = re.compile(
    r"(?<![A-Za-z0-9_-])--(?i:(?P<kw>password|passwd|passphrase|token|secret|api-key|apikey"
    r"|client-secret|access-key|secret-key))[ \t]+"
    rf"(?P<secret>{_STRING_PREFIX}\"(?P<dq>(?:[^\"\\\n]|\\.)*)\""
    rf"|{_STRING_PREFIX}'(?P<sq>(?:[^'\\\n]|\\.)*)'"
    r"|(?P<bare>[^\s\"'`,;)\]}-][^\s\"'`,;)\]}]*))"
)
_NAME_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_ENV_LINE_PREFIXES: Final = frozenset({"", "export", "ENV", "set", "setenv"})


def _assignment_kind(keyword: str) -> str:
    word = keyword.lower().replace("_", "").replace("-", "")
    if word in {"password", "passwd", "pwd", "passphrase"}:
        return "password"
    if word == "clientsecret":
        return "client-secret"
    if word.endswith("key") and len(word) > 3:
        return f"{word[:-3]}-key"
    return word  # "secret", "token"


def _name_start(m: re.Match[str], text: str, extra: str = "") -> int:
    start = m.start("kw")
    while start > 0 and (text[start - 1] in _NAME_CHARS or text[start - 1] in extra):
        start -= 1
    return start


def _is_env_line(m: re.Match[str], text: str) -> bool:
    """``NAME=value`` alone on its line, as in ``.env`` files, shell and Dockerfiles."""
    if m.group("op") != "=" or m.group("bare") is None:
        return False
    name_start = _name_start(m, text)
    line_start = text.rfind("\n", 0, name_start) + 1
    if text[line_start:name_start].strip() not in _ENV_LINE_PREFIXES:
        return False
    line_end = text.find("\n", m.end())
    rest = text[m.end() : len(text) if line_end == -1 else line_end].strip()
    return not rest or rest.startswith("#")


def _classify_assignment(m: re.Match[str], text: str) -> str | None:
    name_start = _name_start(m, text, extra=".-")
    if text.endswith("://", 0, name_start):
        # https://x-access-token:...@host is the user part of a URL, not an assignment; the
        # URL rules own it (and know where it ends).
        return None
    kind = _assignment_kind(m.group("kw"))
    quoted = m.group("dq") if m.group("dq") is not None else m.group("sq")
    if quoted is not None:
        return kind if _plausible_quoted(quoted) else None
    value = m.group("bare")
    if kind == "password" and m.group("kw").lower() == "pwd" and value.startswith(("/", "~")):
        return None  # $PWD / OLDPWD in an environment dump is the working directory.
    return kind if _plausible_bare(value, env_line=_is_env_line(m, text)) else None


def _classify_cli_flag(m: re.Match[str], _text: str) -> str | None:
    kind = _assignment_kind(m.group("kw"))
    quoted = m.group("dq") if m.group("dq") is not None else m.group("sq")
    if quoted is not None:
        return kind if _plausible_quoted(quoted) else None
    return kind if _plausible_bare(m.group("bare"), env_line=False) else None


# --- structural secrets: headers, URLs ----------------------------------------------------------

_AUTH_HEADER_RE: Final = re.compile(
    r"(?<![A-Za-z0-9_-])(?i:(?:proxy-)?authorization)[\"'`]?[ \t]*[:=][ \t]*[\"'`]?"
    r"(?:(?P<scheme>(?i:bearer|basic|token))[ \t]+)?"
    r"(?P<secret>[^\s\"'`,;)\]}]+)"
)
_BEARER_RE: Final = re.compile(
    r"(?<![A-Za-z0-9_-])(?i:bearer)[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"
)
_URL_CREDENTIALS_RE: Final = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://"
    r"(?P<secret>(?P<user>[^\s:/?#@\[\]\"'<>]{0,256}):(?P<password>[^\s/\[\]\"'<>]{1,256}))@"
)
_URL_TOKEN_USER_RE: Final = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://(?P<secret>[A-Za-z0-9_.~%-]{20,256})@"
)
_CURL_USER_RE: Final = re.compile(
    r"(?<!\S)(?:-u|--user)[ \t]+[\"']?(?P<secret>[^\s:\"'\[]+:(?P<password>[^\s\"'\[]+))"
)


def _classify_auth_header(m: re.Match[str], _text: str) -> str | None:
    value = m.group("secret")
    scheme = (m.group("scheme") or "").lower()
    if scheme:
        if value[0] in _REFERENCE_STARTS or _is_template(value):
            return None
        return {"bearer": "bearer", "basic": "basic-auth"}.get(scheme, "authorization")
    return "authorization" if _plausible_bare(value, env_line=False) else None


def _classify_url_credentials(m: re.Match[str], _text: str) -> str | None:
    password = m.group("password")
    if password[0] in _REFERENCE_STARTS or _is_template(password):
        return None
    return "url-credentials"


def _classify_curl_user(m: re.Match[str], _text: str) -> str | None:
    password = m.group("password")
    if password[0] in _REFERENCE_STARTS or _is_template(password):
        return None
    return "basic-auth"


# --- the rule table ---------------------------------------------------------------------------

_PEM_LABEL: Final = r"[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"

_RULES: Final[tuple[_Rule, ...]] = (
    _Rule(
        "aws-access-key",
        _PROVIDER,
        re.compile(r"(?<![A-Za-z0-9])(?P<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])"),
    ),
    _Rule(
        "github-token",
        _PROVIDER,
        re.compile(r"(?P<secret>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ),
    _Rule(
        "gitlab-token",
        _PROVIDER,
        re.compile(
            r"(?P<secret>gl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_-]{20,}"
            r"(?:\.[A-Za-z0-9_-]+)*)"
        ),
    ),
    _Rule(
        "slack-token",
        _PROVIDER,
        re.compile(r"(?P<secret>xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})"),
    ),
    _Rule(
        "slack-webhook",
        _PROVIDER,
        re.compile(
            r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{10,})"
        ),
    ),
    _Rule(
        "anthropic-key",
        _PROVIDER,
        re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})"),
        _check_entropy("anthropic-key", need_upper=False),
    ),
    _Rule(
        "openai-key",
        _PROVIDER,
        re.compile(
            r"(?<![A-Za-z0-9_-])(?P<secret>sk-(?!ant-)"
            r"(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,})"
        ),
        _check_entropy("openai-key"),
    ),
    _Rule(
        "google-api-key",
        _PROVIDER,
        re.compile(r"(?<![A-Za-z0-9+/_-])(?P<secret>AIza[0-9A-Za-z_-]{35,})"),
    ),
    _Rule(
        "stripe-key",
        _PROVIDER,
        re.compile(
            r"(?<![A-Za-z0-9])(?P<secret>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
            r"|whsec_[A-Za-z0-9]{24,})"
        ),
    ),
    _Rule(
        "npm-token",
        _PROVIDER,
        re.compile(r"(?<![A-Za-z0-9_])(?P<secret>npm_[A-Za-z0-9]{36,})"),
    ),
    _Rule(
        "sendgrid-key",
        _PROVIDER,
        re.compile(r"(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})"),
    ),
    _Rule(
        "huggingface-token",
        _PROVIDER,
        re.compile(r"(?<![A-Za-z0-9_])(?P<secret>hf_[A-Za-z0-9]{30,})"),
        _check_entropy("huggingface-token", need_upper=False),
    ),
    _Rule(
        "pypi-token",
        _PROVIDER,
        re.compile(r"(?P<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})"),
    ),
    _Rule(
        "digitalocean-token",
        _PROVIDER,
        re.compile(r"(?P<secret>do[opr]_v1_[a-f0-9]{64})"),
    ),
    _Rule(
        "private-key",
        _PRIVATE_KEY,
        # The whole BEGIN...END block. The body cannot contain "-----", so an unterminated
        # block costs one scan up to the next dashes, not a scan to the end of the text.
        re.compile(rf"(?P<secret>-----BEGIN{_PEM_LABEL}(?:[^-]|-(?!----))*-----END{_PEM_LABEL})"),
    ),
    _Rule(
        "private-key",
        _PRIVATE_KEY,
        # A block cut short (a truncated log line, half a diff): remove what is there.
        re.compile(rf"(?P<secret>-----BEGIN{_PEM_LABEL}(?:[A-Za-z0-9+/=\s\\:,.]|-(?!----))*)"),
    ),
    _Rule(
        "jwt",
        _JWT,
        re.compile(
            r"(?<![A-Za-z0-9+/_-])"
            r"(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"
        ),
    ),
    _Rule(
        "aws-secret-key",
        _CONTEXTUAL,
        re.compile(
            r"(?i:secret[_-]?access[_-]?key)[\"']?[ \t]*(?:=>|=|:)[ \t]*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
    ),
    _Rule("authorization", _STRUCTURAL, _AUTH_HEADER_RE, _classify_auth_header),
    _Rule("bearer", _STRUCTURAL, _BEARER_RE, _check_entropy("bearer", need_upper=False)),
    _Rule("url-credentials", _STRUCTURAL, _URL_CREDENTIALS_RE, _classify_url_credentials),
    _Rule("url-credentials", _STRUCTURAL, _URL_TOKEN_USER_RE, _check_entropy("url-credentials")),
    _Rule("basic-auth", _STRUCTURAL, _CURL_USER_RE, _classify_curl_user),
    _Rule("password", _ASSIGNMENT, _ASSIGNMENT_RE, _classify_assignment),
    _Rule("password", _ASSIGNMENT, _CLI_FLAG_RE, _classify_cli_flag),
)


# --- public API -------------------------------------------------------------------------------


def _require_str(text: object, function: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{function}() argument 'text' must be str, not {type(text).__name__}")
    return text


def _candidates(text: str) -> list[tuple[int, int, int, str]]:
    markers = [m.span() for m in _MARKER_RE.finditer(text)]
    marker_starts = [start for start, _ in markers]
    found: list[tuple[int, int, int, str]] = []
    for rule in _RULES:
        for m in rule.pattern.finditer(text):
            kind = rule.kind if rule.classify is None else rule.classify(m, text)
            if kind is None:
                continue
            start, end = m.span("secret")
            # Never take trailing line breaks or spaces along (truncated PEM bodies end so).
            while end > start and text[end - 1].isspace():
                end -= 1
            if end <= start:
                continue
            # Text already redacted stays as it is: that is what makes redact() idempotent.
            i = bisect.bisect_left(marker_starts, end)
            if i > 0 and markers[i - 1][1] > start:
                continue
            found.append((start, end, rule.priority, kind))
    return found


def find_secrets(text: str) -> list[SecretMatch]:
    """Return the secrets in *text*, in order, without overlaps.

    Overlapping findings (a token inside a URL, a key inside a quoted assignment) are merged
    into one match covering all of them, named after the most specific kind involved.
    """
    _require_str(text, "find_secrets")
    candidates = sorted(_candidates(text), key=lambda c: (c[0], -c[1], -c[2]))
    merged: list[SecretMatch] = []
    best = -1
    for start, end, priority, kind in candidates:
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


def redact(text: str) -> str:
    """Return *text* with every secret replaced by ``[REDACTED:<kind>]``.

    Assignments keep their name and operator (``password = [REDACTED:password]``) and URLs keep
    their scheme and host (``https://[REDACTED:url-credentials]@example.com/``), so redacted
    text stays readable. ``redact(redact(x)) == redact(x)``.
    """
    _require_str(text, "redact")
    matches = find_secrets(text)
    if not matches:
        return text
    parts: list[str] = []
    position = 0
    for match in matches:
        parts.append(text[position : match.start])
        parts.append(f"{MARKER_PREFIX}{match.kind}]")
        position = match.end
    parts.append(text[position:])
    return "".join(parts)


def contains_secret(text: str) -> bool:
    """Whether :func:`redact` would change *text*."""
    _require_str(text, "contains_secret")
    return bool(find_secrets(text))
