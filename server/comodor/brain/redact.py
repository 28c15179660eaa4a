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
* Replacements look like ``[REDACTED:<kind>]``. Markers are never matched again, and the
  redacted text is re-scanned until nothing new turns up, so :func:`redact` is idempotent:
  text that went through it once can go through it again unchanged.

Speed and safety on hostile input (a pasted log can be megabytes): every pattern starts with a
literal, so the regex engine skips ahead with a substring search; word-boundary checks are done
in Python after a match rather than with a leading look-behind (which would disable that
search); case-insensitive rules run on a position-preserving lowercase copy of the text; and
repetitions are possessive or over character classes that the next token cannot match, so no
pattern backtracks more than linearly. Context checks look a bounded distance around a match.
A 10 MB input takes well under a second.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from functools import partial
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
    kind: str  # what to report, unless the classifier names a more precise kind
    priority: int
    # Every pattern starts with a literal and names the part to replace ``secret``.
    pattern: re.Pattern[str]
    classify: _Classifier | None = None
    # Characters that may not come right before a match. A post-check rather than a
    # look-behind: a leading look-behind would disable the engine's fast literal search.
    not_after: str = ""
    # Match against the ASCII-lowercased text (for case-insensitive names and headers).
    on_lowercase: bool = False


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
    def classify(m: re.Match[str], text: str) -> str | None:
        value = text[m.start("secret") : m.end("secret")]
        return kind if _has_entropy(value, need_upper=need_upper) else None

    return classify


# --- values: literal or code? ------------------------------------------------------------------

_WORDISH: Final = re.compile(r"[A-Za-z_-]+(?:\.[A-Za-z_-]+)*")
# Counts and sizes (max_tokens: 4096) and floats (timestamps) are not secrets.
_NUMBER: Final = re.compile(r"[0-9]{1,7}|[0-9]*\.[0-9]+")
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LETTERS: Final = re.compile(r"[A-Za-z_.-]+")
_TYPE_NAME: Final = re.compile(
    r"(?i:str|string|bytes|int|integer|number|bool|boolean|any|object|null|none|undefined)\??"
)
_FIELD_WORDS: Final = ("pass", "pwd", "secret", "token", "key")
# Placeholders and values that are never credentials: <your-key>, %s, ..., colours, ARNs.
_PLACEHOLDER: Final = re.compile(r"<[^<>]*>|%[a-z]|\.\.\.|…|#[0-9A-Fa-f]{3,8}|arn:[^\s]*")
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


def _plausible_quoted(content: str, kind: str = "") -> bool:
    """Whether the inside of a string literal assigned to a secret-ish name is a real value."""
    if not content or MARKER_PREFIX in content:
        return False
    # "Password: ", x  -- the quote we took for an opening one was the end of a string.
    if content[0].isspace() or content[0] in ",;)+":
        return False
    if _is_template(content) or _PLACEHOLDER.fullmatch(content) or _TYPE_NAME.fullmatch(content):
        return False
    if _LETTERS.fullmatch(content):
        # A word naming another field or variable: "input_token": "nextToken",
        # SECRET_KEY = 'AWS_SECRET_ACCESS_KEY'.
        lowered = content.lower()
        if any(word in lowered for word in _FIELD_WORDS):
            return False
        # Tokens are machine-made: letters alone are a mode or a name ("bearer",
        # "DistributionList.NextMarker") unless there are enough of them to be random.
        if kind == "token" and (len(content) < 24 or not content.isalpha()):
            return False
    return len(set(content)) > 1


def _never() -> bool:
    return False


def _plausible_bare(value: str, *, env_line: Callable[[], bool] = _never) -> bool:
    """Whether an unquoted value is a literal (``hunter2``) rather than code (``get_token()``).

    *env_line* tells whether the value stands alone on a ``NAME=value`` line; it is only asked
    when the answer matters, as it is the expensive part.
    """
    if not value or _is_template(value):
        return False
    if value[0] in _REFERENCE_STARTS and (value[0] == "$" or not env_line()):
        return False
    if any(c in value for c in _CODE_CHARS):
        return False
    if _NUMBER.fullmatch(value):
        return False
    if _PATHLIKE.match(value) or _URL_WITHOUT_CREDENTIALS.fullmatch(value):
        return False
    value = value.rstrip(".:!?")  # "The secret: required." is prose, not a value
    if not value:
        return False
    if env_line():
        # NAME=value on a line of its own (.env, shell, Dockerfile): the value is always a
        # literal, even when it is a plain word.
        return True
    if "." in value and _IDENTIFIER.fullmatch(value):
        return False  # an attribute path: rust_openssl.hpke.X25519PrivateKey
    if _WORDISH.fullmatch(value):
        # Identifiers, attribute paths, type names, prose words: ``password: str``,
        # ``api_key = settings.API_KEY``, ``secret: required``.
        return False
    return len(value) >= 4


# --- generic assignments ----------------------------------------------------------------------
#
# These rules run on a lowercased copy of the text (see _lowercase), so that every pattern can
# start with a plain literal: the regex engine then skips ahead with a fast substring search
# instead of attempting a case-insensitive match at every position. Classifiers read the values
# back from the original text by position.

_ASSIGNMENT_OPERATOR: Final = (
    r"(?P<op>[ \t]*"
    r"(?::[ \t]*[a-z_][a-z0-9_.\[\], |]{0,60}?[ \t]*=(?![=>~])"  # password: str = "..."
    r"|:=|=>|\?=|=(?![=~])|:(?![:=]))"
    r"[ \t]*)"
)
_STRING_PREFIX: Final = r"(?:[rbuf]{1,2})?"
_VALUE: Final = (
    rf"{_STRING_PREFIX}\"(?P<dq>(?:[^\"\\\n]++|\\.)*+)\""
    rf"|{_STRING_PREFIX}'(?P<sq>(?:[^'\\\n]++|\\.)*+)'"
)
_ASSIGNED_VALUE: Final = rf"(?P<secret>{_VALUE}|(?P<bare>[^\s\"'`,;)\]}}]+))"
_FLAG_VALUE: Final = rf"(?P<secret>{_VALUE}|(?P<bare>[^\s\"'`,;)\]}}-][^\s\"'`,;)\]}}]*))"


def _assignment_pattern(keyword: str) -> re.Pattern[str]:
    # The keyword, an optional closing quote (and bracket: environ["TOKEN"] = ...), an operator
    # and a value: quoted (with escapes) or bare.
    return re.compile(rf"(?P<kw>{keyword})(?:[\"']\]?)?{_ASSIGNMENT_OPERATOR}{_ASSIGNED_VALUE}")


_CLI_FLAG_RE: Final = re.compile(
    r"--(?P<kw>password|passwd|passphrase|token|secret|api-key|apikey|client-secret"
    rf"|access-key|secret-key)[ \t]+{_FLAG_VALUE}"
)
_MAX_NAME: Final = 128
_NAME_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_ENV_LINE_PREFIXES: Final = frozenset({"", "export", "ENV", "set", "setenv"})
_KEY_NAME: Final = re.compile(
    r"(?:access|auth|api|private|account|signing|encryption|master|secret)[_-]?key"
)


def _group(m: re.Match[str], text: str, name: str) -> str | None:
    """Group *name* of *m*, read from *text* (the match may come from the lowercased copy)."""
    start, end = m.span(name)
    return None if start < 0 else text[start:end]


def _name_start(m: re.Match[str], text: str, extra: str = "") -> int:
    start = m.start("kw")
    limit = max(0, start - _MAX_NAME)
    while start > limit and (text[start - 1] in _NAME_CHARS or text[start - 1] in extra):
        start -= 1
    return start


def _assignment_kind(m: re.Match[str], text: str) -> str | None:
    """Name the kind of secret an assignment holds; None when the name is not secret-ish."""
    keyword = m.group("kw").replace("-", "").replace("_", "")
    if keyword in {"password", "passwd", "pwd", "passphrase"}:
        return "password"
    name = text[_name_start(m, text, extra="-") : m.end("kw")].lower()
    if keyword == "key":
        found = _KEY_NAME.search(name, max(0, len(name) - 20))
        if found is None or found.end() != len(name):
            return None  # key: value is everywhere (YAML maps, k8s secretKeyRef); not a secret.
        return f"{found.group().replace('_', '').replace('-', '')[:-3]}-key"
    if keyword == "secret" and name.replace("_", "").replace("-", "").endswith("clientsecret"):
        return "client-secret"
    return keyword  # "secret" or "token"


def _is_env_line(m: re.Match[str], text: str) -> bool:
    """``NAME=value`` alone on its line, as in ``.env`` files, shell and Dockerfiles."""
    if m.group("op") != "=" or m.start("bare") < 0:
        return False
    # Look only a bounded distance either way: scanning to the line ends for every match
    # would be quadratic on a huge single-line input.
    name_start = _name_start(m, text)
    before = text[max(0, name_start - 16) : name_start]
    newline = before.rfind("\n")
    if newline < 0 and name_start > len(before):
        return False  # more than a short prefix before the name on this line
    if before[newline + 1 :].strip() not in _ENV_LINE_PREFIXES:
        return False
    rest = text[m.end() : m.end() + 256].partition("\n")[0].strip()
    return not rest or rest.startswith("#")


def _plausible_value(
    m: re.Match[str], text: str, kind: str, *, env_line: Callable[[], bool]
) -> bool:
    quoted = _group(m, text, "dq")
    if quoted is None:
        quoted = _group(m, text, "sq")
    if quoted is not None:
        return _plausible_quoted(quoted, kind)
    bare = _group(m, text, "bare") or ""
    operator = m.group("op") if "op" in m.re.groupindex else ""
    if operator.strip() == ":" and _IDENTIFIER.fullmatch(bare):
        # private_key: PKCS7PrivateKey,  /  { token: tokenV2 }  -- an annotation or a variable.
        following = text[m.end() : m.end() + 8].lstrip()[:1]
        if following and following in ",)|=]}":
            return False
    return _plausible_bare(bare, env_line=env_line)


def _classify_assignment(m: re.Match[str], text: str) -> str | None:
    name_start = _name_start(m, text, extra=".-")
    if name_start > 0 and text[name_start - 1] in ":/":
        # A path segment: https://x-access-token:...@host (the URL rules own that one),
        # arn:aws:secretsmanager:...:secret:name, AWS::IAM::AccessKey.
        return None
    kind = _assignment_kind(m, text)
    if kind is None:
        return None
    bare = _group(m, text, "bare")
    if m.group("kw") == "pwd" and bare is not None and bare.startswith(("/", "~")):
        return None  # $PWD / OLDPWD in an environment dump is the working directory.
    env_line = partial(_is_env_line, m, text)
    return kind if _plausible_value(m, text, kind, env_line=env_line) else None


def _classify_cli_flag(m: re.Match[str], text: str) -> str | None:
    word = m.group("kw").replace("-", "")
    if word in {"password", "passwd", "passphrase"}:
        kind = "password"
    elif word.endswith("key"):
        kind = f"{word[:-3]}-key"
    else:
        kind = {"clientsecret": "client-secret"}.get(word, word)
    return kind if _plausible_value(m, text, kind, env_line=_never) else None


# --- structural secrets: headers, URLs ----------------------------------------------------------

_AUTH_HEADER_RE: Final = re.compile(
    r"authorization[\"'`]?[ \t]*[:=][ \t]*[\"'`]?"
    r"(?:(?P<scheme>bearer|basic|token)[ \t]+)?"
    r"(?P<secret>[^\s\"'`,;)\]}]+)"
)
_BEARER_RE: Final = re.compile(r"bearer[ \t]+(?P<secret>[a-z0-9._~+/-]{16,}=*)")
# URLs are found by their "://": scanning for a scheme would mean trying every letter.
_URL_CREDENTIALS_RE: Final = re.compile(
    r"://(?P<secret>[^\s:/?#@\[\]\"'<>]{0,256}:(?P<password>[^\s/\[\]\"'<>]{1,256}))@"
)
_URL_TOKEN_USER_RE: Final = re.compile(r"://(?P<secret>[A-Za-z0-9_.~%-]{20,256})@")
_CURL_USER_RE: Final = re.compile(
    r"(?:-u|--user)[ \t]+[\"']?(?P<secret>[^\s:\"'\[]+:(?P<password>[^\s\"'\[]+))"
)


def _is_reference(value: str) -> bool:
    """Whether a header or URL password is a variable, template or placeholder, not a value."""
    if not value or value[0] in _REFERENCE_STARTS or _is_template(value):
        return True
    return bool(_PLACEHOLDER.fullmatch(value)) or len(set(value)) == 1


def _classify_auth_header(m: re.Match[str], text: str) -> str | None:
    value = _group(m, text, "secret") or ""
    scheme = m.group("scheme")
    if scheme:
        if _is_reference(value):
            return None
        return {"bearer": "bearer", "basic": "basic-auth"}.get(scheme, "authorization")
    return "authorization" if _plausible_bare(value) else None


def _classify_bearer(m: re.Match[str], text: str) -> str | None:
    return "bearer" if _has_entropy(_group(m, text, "secret") or "", need_upper=False) else None


def _after_scheme(m: re.Match[str], text: str) -> bool:
    return m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "+.-")


def _classify_url_credentials(m: re.Match[str], text: str) -> str | None:
    if not _after_scheme(m, text) or _is_reference(m.group("password")):
        return None
    return "url-credentials"


def _classify_url_token_user(m: re.Match[str], text: str) -> str | None:
    if not _after_scheme(m, text) or not _has_entropy(m.group("secret")):
        return None
    return "url-credentials"


def _classify_curl_user(m: re.Match[str], text: str) -> str | None:
    if m.start() > 0 and not text[m.start() - 1].isspace():
        return None
    return None if _is_reference(m.group("password")) else "basic-auth"


_KEY_MATERIAL: Final = re.compile(r"[A-Za-z0-9+/=]{20}")


def _classify_private_key(m: re.Match[str], _text: str) -> str | None:
    # Documentation mentions the BEGIN/END lines with no key in between; leave it readable.
    return "private-key" if _KEY_MATERIAL.search(m.group("body")) else None


# --- the rule table ---------------------------------------------------------------------------

_PEM_LABEL: Final = r"[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_ALNUM: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_WORD: Final = _ALNUM + "_"
_TOKEN_CHARS: Final = _WORD + "-"
_BASE64_CHARS: Final = _TOKEN_CHARS + "+/"


def _provider(
    kind: str, pattern: str, not_after: str, classify: _Classifier | None = None
) -> _Rule:
    return _Rule(kind, _PROVIDER, re.compile(pattern), classify, not_after)


def _assignment(keyword: str) -> _Rule:
    return _Rule(
        "password",
        _ASSIGNMENT,
        _assignment_pattern(keyword),
        _classify_assignment,
        on_lowercase=True,
    )


_RULES: Final[tuple[_Rule, ...]] = (
    _provider("aws-access-key", r"(?P<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])", _ALNUM),
    _provider("github-token", r"(?P<secret>gh[pousr]_[A-Za-z0-9]{36,})", ""),
    _provider("github-token", r"(?P<secret>github_pat_[A-Za-z0-9_]{22,})", ""),
    _provider(
        "gitlab-token",
        r"(?P<secret>gl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*)",
        "",
    ),
    _provider("slack-token", r"(?P<secret>xox[abeoprs]-[A-Za-z0-9-]{10,})", ""),
    _provider("slack-token", r"(?P<secret>xapp-[0-9]-[A-Za-z0-9-]{10,})", ""),
    _provider(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{10,})",
        "",
    ),
    _provider(
        "anthropic-key",
        r"(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})",
        _TOKEN_CHARS,
        _check_entropy("anthropic-key", need_upper=False),
    ),
    _provider(
        "openai-key",
        r"(?P<secret>sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,})",
        _TOKEN_CHARS,
        _check_entropy("openai-key"),
    ),
    _provider("google-api-key", r"(?P<secret>AIza[0-9A-Za-z_-]{35,})", _BASE64_CHARS),
    _provider("stripe-key", r"(?P<secret>sk_(?:live|test)_[A-Za-z0-9]{16,})", _ALNUM),
    _provider("stripe-key", r"(?P<secret>rk_(?:live|test)_[A-Za-z0-9]{16,})", _ALNUM),
    _provider("stripe-key", r"(?P<secret>whsec_[A-Za-z0-9]{24,})", _ALNUM),
    _provider("npm-token", r"(?P<secret>npm_[A-Za-z0-9]{36,})", _WORD),
    _provider(
        "sendgrid-key", r"(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})", _TOKEN_CHARS
    ),
    _provider(
        "huggingface-token",
        r"(?P<secret>hf_[A-Za-z0-9]{30,})",
        _WORD,
        _check_entropy("huggingface-token", need_upper=False),
    ),
    _provider("pypi-token", r"(?P<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})", ""),
    _provider("digitalocean-token", r"(?P<secret>do[opr]_v1_[a-f0-9]{64})", _WORD),
    _Rule(
        "private-key",
        _PRIVATE_KEY,
        # The whole BEGIN...END block. The body cannot contain "-----", so an unterminated
        # block costs one scan up to the next dashes, not a scan to the end of the text.
        re.compile(
            rf"(?P<secret>-----BEGIN{_PEM_LABEL}(?P<body>(?:[^-]++|-(?!----))*+)"
            rf"-----END{_PEM_LABEL})"
        ),
        _classify_private_key,
    ),
    _Rule(
        "private-key",
        _PRIVATE_KEY,
        # A block cut short (a truncated log line, half a diff): remove what is there.
        re.compile(
            rf"(?P<secret>-----BEGIN{_PEM_LABEL}(?P<body>(?:[A-Za-z0-9+/=\s\\:,.]++|-(?!----))*+))"
        ),
        _classify_private_key,
    ),
    _Rule(
        "jwt",
        _JWT,
        re.compile(r"(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"),
        not_after=_BASE64_CHARS,
    ),
    _Rule(
        "aws-secret-key",
        _CONTEXTUAL,
        re.compile(
            r"secret[_-]?access[_-]?key[\"']?[ \t]*(?:=>|=|:)[ \t]*[\"']?"
            r"(?P<secret>[a-z0-9/+]{40})(?![a-z0-9/+])"
        ),
        on_lowercase=True,
    ),
    _Rule(
        "authorization",
        _STRUCTURAL,
        _AUTH_HEADER_RE,
        _classify_auth_header,
        _WORD,
        on_lowercase=True,
    ),
    _Rule("bearer", _STRUCTURAL, _BEARER_RE, _classify_bearer, _TOKEN_CHARS, on_lowercase=True),
    _Rule("url-credentials", _STRUCTURAL, _URL_CREDENTIALS_RE, _classify_url_credentials),
    _Rule("url-credentials", _STRUCTURAL, _URL_TOKEN_USER_RE, _classify_url_token_user),
    _Rule("basic-auth", _STRUCTURAL, _CURL_USER_RE, _classify_curl_user),
    _assignment(r"pass(?:word|wd|phrase)"),
    _assignment("pwd"),
    _assignment("secret"),
    _assignment("token"),
    _assignment("key"),
    _Rule(
        "password",
        _ASSIGNMENT,
        _CLI_FLAG_RE,
        _classify_cli_flag,
        _TOKEN_CHARS,
        on_lowercase=True,
    ),
)


# --- public API -------------------------------------------------------------------------------


def _require_str(text: object, function: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{function}() argument 'text' must be str, not {type(text).__name__}")
    return text


_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _lowercase(text: str) -> str:
    """Lowercase *text* without moving any character (so match positions stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered  # no character expanded, so every one stayed in place
    return text.translate(_ASCII_LOWER)


def _candidates(text: str) -> list[tuple[int, int, int, str]]:
    lowered = _lowercase(text)
    markers = [m.span() for m in _MARKER_RE.finditer(text)]
    marker_starts = [start for start, _ in markers]
    found: list[tuple[int, int, int, str]] = []
    for rule in _RULES:
        subject = lowered if rule.on_lowercase else text
        for m in rule.pattern.finditer(subject):
            if rule.not_after and m.start() > 0 and subject[m.start() - 1] in rule.not_after:
                continue
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


def _merge(candidates: list[tuple[int, int, int, str]]) -> list[SecretMatch]:
    """Merge overlapping candidates, naming each merged match after its most specific rule."""
    merged: list[SecretMatch] = []
    best = -1
    for start, end, priority, kind in sorted(candidates, key=lambda c: (c[0], -c[1], -c[2])):
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


def _replace(text: str, matches: list[SecretMatch]) -> str:
    parts: list[str] = []
    position = 0
    for match in matches:
        parts.append(text[position : match.start])
        parts.append(f"{MARKER_PREFIX}{match.kind}]")
        position = match.end
    parts.append(text[position:])
    return "".join(parts)


def _to_original(found: list[SecretMatch], applied: list[SecretMatch]) -> list[SecretMatch]:
    """Map matches found in the redacted text back to positions in the original text.

    *found* never overlaps a marker, so each match sits between two of *applied*'s markers and
    moves by the length difference accumulated up to there.
    """
    marker_ends: list[int] = []
    shifts: list[int] = []
    shift = 0
    for match in applied:
        marker_length = len(MARKER_PREFIX) + len(match.kind) + 1
        marker_ends.append(match.start + shift + marker_length)
        shift += marker_length - (match.end - match.start)
        shifts.append(shift)
    mapped: list[SecretMatch] = []
    for match in found:
        i = bisect.bisect_right(marker_ends, match.start)
        offset = shifts[i - 1] if i else 0
        mapped.append(SecretMatch(match.kind, match.start - offset, match.end - offset))
    return mapped


def _scan(text: str) -> tuple[list[SecretMatch], str]:
    """Find the secrets in *text* and redact them, until redacting again would change nothing.

    Redacting one secret can expose another: a key glued to the end of another token fails
    its word-boundary check until its neighbour has become a marker. So the redacted text is
    scanned again and whatever turns up is mapped back and added. This is what guarantees
    ``redact(redact(x)) == redact(x)``; for the usual text it costs one extra scan when a
    secret was found and nothing when none was.
    """
    matches = _merge(_candidates(text))
    redacted = _replace(text, matches) if matches else text
    while matches:
        more = _merge(_candidates(redacted))
        if not more:
            break
        matches = sorted([*matches, *_to_original(more, matches)], key=lambda m: m.start)
        redacted = _replace(text, matches)
    return matches, redacted


def find_secrets(text: str) -> list[SecretMatch]:
    """Return the secrets in *text*, in order, without overlaps.

    Overlapping findings (a token inside a URL, a key inside a quoted assignment) are merged
    into one match covering all of them, named after the most specific kind involved.
    Replacing exactly these spans is what :func:`redact` does.
    """
    _require_str(text, "find_secrets")
    return _scan(text)[0]


def redact(text: str) -> str:
    """Return *text* with every secret replaced by ``[REDACTED:<kind>]``.

    Assignments keep their name and operator (``password = [REDACTED:password]``) and URLs keep
    their scheme and host (``https://[REDACTED:url-credentials]@example.com/``), so redacted
    text stays readable. ``redact(redact(x)) == redact(x)``.
    """
    _require_str(text, "redact")
    return _scan(text)[1]


def contains_secret(text: str) -> bool:
    """Whether :func:`redact` would change *text*."""
    _require_str(text, "contains_secret")
    return bool(_merge(_candidates(text)))
