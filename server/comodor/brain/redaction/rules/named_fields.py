"""Secrets recognised by what they are called: assignments, config lines, flags and headers.

A value is a secret when its *name* says so -- ``password = ...``, ``DB_PASS=...``,
``"client_secret": ...``, ``--password ...``, ``mysql -pX``, ``Authorization: <any scheme>
...``, ``Cookie: ...`` -- whatever the value looks like. The name and operator are kept, so
stored text stays readable: ``password = [REDACTED:password]``.

Only *literals* are replaced. ``password = os.environ["PASSWORD"]``, ``token = get_token()`` or
``password: str`` are ordinary code (see :mod:`~comodor.brain.redaction.values`).

These rules run on a lowercased copy of the text, so that every pattern can start with a plain
literal: the regex engine then skips ahead with a fast substring search instead of attempting
a case-insensitive match at every position. Classifiers read the values back from the
original text by position.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from typing import Final

from ..base import (
    ASSIGNMENT,
    MARKER_PREFIX,
    STRUCTURAL,
    TOKEN_CHARS,
    WORD,
    Rule,
    group,
    has_entropy,
    shannon_entropy,
)
from ..values import (
    IDENTIFIER,
    chosen,
    is_reference,
    looks_random,
    never,
    plausible_bare,
    plausible_quoted,
    wordy,
)
from .command_lines import literal_credential

_ASSIGNMENT_OPERATOR: Final = (
    r"(?P<op>[ \t]*"
    r"(?::[ \t]*[a-z_][a-z0-9_.\[\], |]{0,60}?[ \t]*=(?![=>~])"  # password: str = "..."
    r"|:=|=>|\?=|=(?![=~])|:(?![:=])|<<?-(?!-))"  # R: password <- "..."
    r"[ \t]*)"
)
# Python's r/b/u/f, SQL's N'national' and E'escaped', C#'s @"verbatim" and $"interpolated".
_STRING_PREFIX: Final = r"(?:[rbufne]{1,2}|[@$]{1,2})?"
_VALUE: Final = (
    rf"{_STRING_PREFIX}\"(?P<dq>(?:[^\"\\\n]++|\\.)*+)\""
    rf"|{_STRING_PREFIX}'(?P<sq>(?:[^'\\\n]++|\\.)*+)'"
)
_ASSIGNED_VALUE: Final = rf"(?P<secret>{_VALUE}|(?P<bare>[^\s\"'`,;)\]}}]+))"
_FLAG_VALUE: Final = rf"(?P<secret>{_VALUE}|(?P<bare>[^\s\"'`,;)\]}}-][^\s\"'`,;)\]}}]*))"

_PASSWORD_WORDS: Final = frozenset({"password", "passwd", "pwd", "passphrase", "pass"})
# Words that end in "pass" and are no password: bypass = True, compass: north.
_NOT_PASS: Final = ("by", "com", "sur", "tres", "over", "under", "encom", "im")
_MAX_NAME: Final = 128
_NAME_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_ENV_LINE_PREFIXES: Final = frozenset({"", "export", "ENV", "ARG", "set", "setenv", "-"})
# What may come right before a shell assignment that prefixes a command or a container.
_SHELL_BEFORE: Final = ("&&", ";", "|", "env", "sudo", "-e", "--env", "--build-arg", "export")
_KEY_NAME: Final = re.compile(
    r"(?:access|auth|api|private|account|signing|encryption|encrypt|master|secret|license"
    r"|client|consumer|subscription|deploy|shared|hmac|webhook|ssh|gpg|pgp|wallet|signer"
    r"|session|cookie|jwt|app|admin|service|storage|sas|crypt)[_-]?key"
)


# Short words that name a secret only as a whole word of a name; a seed is weak (random.seed).
_COMPONENT_WORDS: Final = {
    "pat": ("token", False),  # longopt_pat = r'[a-z]+' is a pattern
    "psk": ("password", True),
    "authtok": ("password", True),
    "seed": ("seed", False),
}


def assignment_pattern(keyword: str) -> re.Pattern[str]:
    """A name ending in *keyword*, an operator and a value, quoted (with escapes) or bare."""
    # The keyword, an optional closing quote (and bracket: environ["TOKEN"] = ...).
    return re.compile(rf"(?P<kw>{keyword})(?:[\"']\]?)?{_ASSIGNMENT_OPERATOR}{_ASSIGNED_VALUE}")


def _name_start(m: re.Match[str], text: str, extra: str = "") -> int:
    start = m.start("kw")
    limit = max(0, start - _MAX_NAME)
    while start > limit and (text[start - 1] in _NAME_CHARS or text[start - 1] in extra):
        start -= 1
    return start


def _compact(name: str) -> str:
    return name.replace("-", "").replace("_", "").replace(".", "").lower()


_SUFFIXED: Final = re.compile(
    r"(?P<stem>key|secret|token|password|passwd)(?:base|value|data|b64|base64|hex|raw|plain)"
)
_USER_NEARBY: Final = re.compile(r"[\"']?(?:username|user_name|user|login)[\"']?[ \t]*[:=]")


def _assignment_kind(m: re.Match[str], text: str) -> tuple[str, bool] | None:
    """The kind of secret an assignment holds and whether its name is a strong sign of one.

    ``None`` when the name is not secret-ish after all (``bypass``, a bare ``key:``).
    A weak name (``CACHE_KEY``, ``session``) only counts with a random-looking value.
    """
    keyword = m.group("kw").replace("-", "").replace("_", "")
    start = m.start("kw")
    name = text[_name_start(m, text, extra="-.") : m.end("kw")]
    suffixed = _SUFFIXED.fullmatch(keyword)
    if suffixed is not None:
        # secret_key_base, TOKEN_VALUE: the secret word and a suffix saying "its form".
        keyword = suffixed.group("stem")
        stem_length = len(re.split(r"[_-]", m.group("kw"))[0])
        name = name[: len(name) - len(m.group("kw")) + stem_length]
    if keyword == "pass":
        before = text[max(0, start - 6) : start]
        if before and before[-1].islower() and before.lower().endswith(_NOT_PASS):
            return None
    if keyword in _PASSWORD_WORDS:
        return "password", True
    compact = _compact(name)
    if keyword == "key":
        found = _KEY_NAME.search(compact, max(0, len(compact) - 24))
        if found is not None and found.end() == len(compact):
            prefix = found.group()[:-3].rstrip("_-")
            return f"{prefix}-key", True
        # key: value is everywhere (YAML maps, k8s secretKeyRef); only a random value counts
        # -- and a bare "key" only next to a user name ({"username": "u", "key": "..."}).
        if len(compact) > 3 or _USER_NEARBY.search(text, max(0, start - 160), start + 160):
            return "key", False
        return None
    if keyword == "secret" and compact.endswith("clientsecret"):
        return "client-secret", True
    if keyword.replace(" ", "") == "secretid":
        # Secret ID = <uuid> (Consul, Nomad, Vault AppRole): the half of a pair that is the
        # token. Weak, as SecretId='prod/db' names a secret in AWS and GCP code.
        return "secret", False
    if keyword == "macaroon":
        return "macaroon", True  # a bearer credential with caveats (LND, snapd, Juju)
    if keyword in {"session", "sessionid", "cookie"}:
        return keyword.removesuffix("id"), False
    if keyword.startswith("credential"):
        return "credentials", True
    if keyword == "private":
        # MJ_APIKEY_PRIVATE: the private half of a named key; "private = True" is not one.
        return ("private-key", True) if re.search("key|secret|token", compact[:-7]) else None
    if keyword == "mnemonic":
        return "seed-phrase", True
    if keyword in _COMPONENT_WORDS:
        # AZURE_DEVOPS_EXT_PAT, wpa_psk, STELLAR_SEED: a word of the name, not the end of one
        # ("compat", "rapsk", "linseed").
        if len(name) > len(keyword) and name[-len(keyword) - 1] not in "_-.":
            return None
        return _COMPONENT_WORDS[keyword]
    return keyword, True  # "secret", "token", "auth"


def _line_before(text: str, start: int, reach: int = 32) -> str | None:
    """The text between the line start and *start*, if it is short; ``None`` if it is not."""
    before = text[max(0, start - reach) : start]
    newline = before.rfind("\n")
    if newline < 0 and start > len(before):
        return None  # more than a short prefix before the name on this line
    return before[newline + 1 :]


def _is_env_line(m: re.Match[str], text: str) -> bool:
    """``NAME=value`` alone on its line (``.env``, Dockerfile), or a shell assignment.

    ``PGPASSWORD=postgres psql ...``, ``docker run -e POSTGRES_PASSWORD=example`` and
    ``DB_PASSWORD=example`` are all literals, whatever the value looks like.
    """
    if m.group("op") != "=" or m.start("bare") < 0:
        return False
    # Look only a bounded distance either way: scanning to the line ends for every match
    # would be quadratic on a huge single-line input.
    name_start = _name_start(m, text)
    before = _line_before(text, name_start, 64)
    name = text[name_start : m.end("kw")]
    if before is not None and before.strip() in _ENV_LINE_PREFIXES:
        rest = text[m.end() : m.end() + 256].partition("\n")[0].strip()
        if not rest or rest.startswith("#") or name.isupper():
            return True
    if not name.isupper():
        return False
    stripped = text[max(0, name_start - 16) : name_start].rstrip(" \t")
    return stripped.endswith(_SHELL_BEFORE) and not stripped.endswith(("--", "=="))


_INI_SECTION: Final = re.compile(r"(?:^|\n)\[[A-Za-z0-9 _.:\"'/-]{1,64}\][ \t]*\r?\n")


def _is_ini_line(m: re.Match[str], text: str) -> bool:
    """``name = value`` alone on its line under an INI ``[section]`` (rclone, .s3cfg, .pypirc).

    There a bare value is a string, even one that reads like an attribute path
    (``pass = Copper27wj.z5C``); Python at module level has no ``[section]`` line above it.
    """
    if m.start("bare") < 0 or m.group("op").strip() != "=":
        return False
    name_start = _name_start(m, text, extra="-.")
    before = _line_before(text, name_start, 64)
    if before is None or before.strip():
        return False
    rest = text[m.end() : m.end() + 128].partition("\n")[0].strip()
    if rest and not rest.startswith(("#", ";")):
        return False
    return _INI_SECTION.search(text, max(0, name_start - 2048), name_start) is not None


def _is_connection_string_field(m: re.Match[str], text: str) -> bool:
    """``...;Password=Copper75j.lcVvo;...``: a field of an ADO/ODBC connection string."""
    if m.start("bare") < 0 or m.group("op").strip() != "=":
        return False
    name_start = _name_start(m, text)
    before = text[max(0, name_start - 2) : name_start].rstrip()
    after = text[m.end() : m.end() + 1]
    value = m.group("bare")
    return before.endswith(";") and after in {";", '"', "'", ""} and any(c.isdigit() for c in value)


def _is_config_line(m: re.Match[str], text: str) -> bool:
    """``name: value`` as the whole of a YAML or properties line: a bare word is a string."""
    if m.start("bare") < 0 or m.group("op").strip() != ":":
        return False  # (``name = word`` at a line start is Python as often as it is INI)
    before = _line_before(text, _name_start(m, text, extra="-."))
    if before is None or before.strip() not in {"", "-"}:
        return False
    rest = text[m.end() : m.end() + 128].partition("\n")[0].strip()
    return not rest or rest.startswith("#")


def _machine_made(value: str) -> bool:
    """A long run of letters and digits (hex included): a key beside a user name is one."""
    value = value.strip("\"'")
    return len(value) >= 24 and value.isalnum() and has_entropy(value, need_upper=False)


# A secret ID or session ID drawn as a UUID: hex, so its entropy can fall short of a token's.
_UUID_VALUE: Final = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE
)
_VERSION_LIKE: Final = re.compile(r"[0-9][0-9.:/-]*")


def _builds_a_string(m: re.Match[str], text: str, quoted: str) -> bool:
    """``auth = "Basic " + encode(...)``: the start of an expression, not a stored value."""
    following = text[m.end() : m.end() + 4].lstrip()[:1]
    return bool(following) and following in "+%" and (not quoted or quoted[-1] in " :=/")


def _plausible_value(
    m: re.Match[str],
    text: str,
    kind: str,
    *,
    env_line: Callable[[], bool],
    config_line: bool = False,
) -> bool:
    quoted = group(m, text, "dq")
    if quoted is None:
        quoted = group(m, text, "sq")
    if quoted is not None:
        if _builds_a_string(m, text, quoted):
            return False
        if kind != "password" and _VERSION_LIKE.fullmatch(quoted):
            return False  # SERVER_AUTH = '1.3.6.1.5.5.7.3.1', an OID, a version, an address
        return plausible_quoted(quoted, kind)
    bare = group(m, text, "bare") or ""
    operator = m.group("op") if "op" in m.re.groupindex else ""
    if operator.strip() == ":" and IDENTIFIER.fullmatch(bare):
        # private_key: PKCS7PrivateKey,  /  { token: tokenV2 }  -- an annotation or a variable.
        # What follows on the same line: a bracket on the next line belongs to other text.
        following = text[m.end() : m.end() + 8].partition("\n")[0].lstrip()[:1]
        if following and following in ",)|=]}":
            return False
    if kind == "password" and _dotted_password(bare) and (config_line or _in_option_list(m, text)):
        return True
    return plausible_bare(bare, env_line=env_line, config_line=config_line)


def _dotted_password(value: str) -> bool:
    """``Orbit12er.jp``, ``Orbit97.EUd.Y``: a chosen password that reads like an attribute path.

    Only asked where no code stands (a YAML line, an option list): there a first part mixing
    letters and digits is a password, not a module (modules are words: ``settings.DB_PW``).
    """
    head = value.split(".", 1)[0]
    return (
        "." in value
        and chosen(value)
        and any(c.isdigit() for c in head)
        and any(c.isalpha() for c in head)
    )


def _in_option_list(m: re.Match[str], text: str) -> bool:
    """``[password=X]``, ``[a=b,password=X]``: a bracketed option list, not code.

    (Kafka's SCRAM config, mount options: ``name=value`` with no blank around ``=`` inside
    brackets is no Python or JavaScript.)
    """
    name_start = _name_start(m, text, extra="-.")
    before = text[name_start - 1 : name_start] if name_start else ""
    after = text[m.end() : m.end() + 1]
    operator = m.group("op") if "op" in m.re.groupindex else ""
    return operator == "=" and before in {"[", ","} and after in {"]", ","}


_NAMESPACE: Final = re.compile(r"[ \t]*(?:-[ \t]+)?[A-Za-z0-9_.-]+(?:::?[A-Za-z0-9_.-]+)*::?")


def _namespaced(text: str, name_start: int) -> bool:
    """A config key scoped by a namespace at the start of its line, not a path or ARN segment.

    ``app:dbPassword:`` (Pulumi), ``profile::db::root_password:`` (Hiera) are keys;
    ``arn:aws:...:secret:`` and ``https://x-access-token:`` are not.
    """
    before = _line_before(text, name_start, 96)
    if before is None or not _NAMESPACE.fullmatch(before):
        return False
    return not before.lstrip(" \t-").lower().startswith(("arn:", "urn:"))


def _classify_assignment(m: re.Match[str], text: str) -> str | None:
    name_start = _name_start(m, text, extra=".-")
    if (
        name_start > 0
        and text[name_start - 1] in ":/"
        and not (text[name_start - 2 : name_start] == "/:" and text[name_start] == "_")
        and not (
            text[name_start - 1] == ":" and text[max(0, name_start - 2) : name_start - 1] in "\n"
        )
        and not _namespaced(text, name_start)
    ):
        # A path segment: https://x-access-token:...@host (the URL rules own that one),
        # arn:aws:secretsmanager:...:secret:name, AWS::IAM::AccessKey. (But .npmrc's
        # //registry.example.com/:_password=... is a name scoped to a registry, and a YAML
        # line starting with ":rubygems_api_key:" is a Ruby symbol key, and a key that starts
        # its line after a namespace is one: Pulumi's "app:dbPassword", Hiera's "a::b::pw".)
        return None
    found = _assignment_kind(m, text)
    if found is None:
        return None
    kind, strong = found
    bare = group(m, text, "bare")
    if bare is not None and _is_scheme(m, text):
        return None  # "FlyV1" of "FlyV1 fm2_...": the scheme rule takes the token
    if m.group("kw") == "pwd" and bare is not None and bare.startswith(("/", "~")):
        return None  # $PWD / OLDPWD in an environment dump is the working directory.

    def env_line() -> bool:
        return (
            _is_env_line(m, text) or _is_ini_line(m, text) or _is_connection_string_field(m, text)
        )

    config_line = _is_config_line(m, text)
    if not _plausible_value(m, text, kind, env_line=env_line, config_line=config_line):
        return None
    if m.group("kw") == "pass" and " " in text[m.start("secret") : m.end("secret")].strip():
        return None  # 'pass': 'The "pass" statement' -- prose about the keyword
    value = text[m.start("secret") : m.end("secret")]
    if not strong and not (
        looks_random(value)
        or (kind == "key" and _machine_made(value))
        or (kind in {"secret", "session"} and _UUID_VALUE.fullmatch(value.strip("\"'")))
    ):
        return None
    if m.group("kw") == "pat" and any(c in value for c in "[](){}*+?^$|\\"):
        return None  # longopt_pat = r'[a-zA-Z](?:[a-zA-Z0-9-]*)': a pattern, not a PAT
    return kind


# access_token: FlyV1 fm2_..., "auth": "Token 7a28...": a scheme word, a blank, the token.
_SCHEMED_RE: Final = re.compile(
    rf"(?P<kw>token|auth|authorization|_key|-key|apikey|secret|credentials?|password)(?:[\"']\]?)?"
    rf"{_ASSIGNMENT_OPERATOR}[\"']?(?P<scheme>[a-z][a-z0-9_-]{{1,24}})[ \t]+"
    r"(?P<secret>[a-z0-9._~+/=-]{16,4096})(?![a-z0-9._~+/=-])"
)


_SCHEME_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,24}")


# Words that start an expression, not a scheme: token = await options.credential.getToken
_CODE_SCHEMES: Final = frozenset(
    {"new", "await", "return", "typeof", "yield", "async", "const", "let", "var", "void"}
    | {"function", "throw", "delete", "in", "of", "instanceof", "not", "and", "or", "lambda"}
)


def _schemed_token(m: re.Match[str], text: str) -> bool:
    token = group(m, text, "secret") or ""
    if m.group("scheme") in _CODE_SCHEMES or ("." in token and IDENTIFIER.fullmatch(token)):
        return False  # new util_1.CancellationToken(): code, and a dotted name
    if "=" in token.rstrip("="):
        return False  # "db_password=Harbor57f_x app_version=2.4.1": the next pair, no token
    return (
        has_entropy(token, need_upper=False)
        and shannon_entropy(token) >= 3.5
        and not is_reference(token)
        and not wordy(token)
    )


def _is_scheme(m: re.Match[str], text: str) -> bool:
    """Whether an assignment's bare value is the scheme before a token (or its marker)."""
    end = m.end("bare")
    following = text[end : end + 4200].partition("\n")[0]
    if not following[:1].isspace():
        return False
    if following.lstrip(" \t").startswith(MARKER_PREFIX):
        return bool(_SCHEME_WORD.fullmatch(m.group("bare")))
    start = m.start("kw")
    schemed = _SCHEMED_RE.match(text[start : end + len(following)].lower())
    return (
        schemed is not None
        and schemed.start("scheme") == m.start("bare") - start
        and _schemed_token(schemed, text[start:])
    )


def _classify_schemed(m: re.Match[str], text: str) -> str | None:
    """A value that is a scheme and a token, like a header's: the token is the secret."""
    found = _assignment_kind(m, text)
    return found[0] if found is not None and _schemed_token(m, text) else None


def _assignment(keyword: str) -> Rule:
    return Rule(
        "password",
        ASSIGNMENT,
        assignment_pattern(keyword),
        _classify_assignment,
        on_lowercase=True,
    )


_PAIR_KEYWORD: Final = (
    r"(?P<kw>pass(?:[_-]?(?:word|phrase)|wd)?|pwd|secret|token|key|auth|credentials?)"
)
_NEVER_BARE: Final = r"(?P<bare>(?!))"


def _named_pair() -> Rule:
    """A call's name-value pair: ``define('AUTH_KEY', '...')``, ``setdefault("TOKEN", "...")``.

    The name is a string saying secret, the value a literal that looks random or chosen.
    """
    return Rule(
        "password",
        ASSIGNMENT,
        re.compile(rf"{_PAIR_KEYWORD}[\"'](?P<op>[ \t]*,[ \t]*)(?P<secret>{_VALUE}|{_NEVER_BARE})"),
        _classify_named_pair,
        on_lowercase=True,
    )


def _classify_named_pair(m: re.Match[str], text: str) -> str | None:
    value = group(m, text, "dq") or group(m, text, "sq") or ""
    if not (looks_random(value) or chosen(value)):
        return None  # __all__ = ["getpass", "getuser"]: a list of names, not a pair
    kind = _classify_assignment(m, text)
    if kind is not None:
        return kind
    # define('AUTH_KEY', ')Nfl...'): right after the comma the quote surely opens a string,
    # so a random value starting with ")" or "," is one too.
    found = _assignment_kind(m, text)
    return found[0] if found and found[1] and len(value) >= 32 else None


def _classify_named_call(m: re.Match[str], text: str) -> str | None:
    kind = _classify_assignment(m, text)
    if kind is None:
        return None
    value = group(m, text, "dq") or group(m, text, "sq") or ""
    return kind if looks_random(value) or chosen(value) else None


def _named_call() -> Rule:
    """A call named for a secret given one literal: ``.secret_key("...")``, ``setPassword(..)``.

    The literal must look random or chosen: ``getpass("Password: ")`` is a prompt.
    """
    return Rule(
        "password",
        ASSIGNMENT,
        re.compile(
            rf"{_PAIR_KEYWORD}(?P<op>[ \t]*\([ \t]*)(?P<secret>{_VALUE}|{_NEVER_BARE})[ \t]*\)"
        ),
        _classify_named_call,
        on_lowercase=True,
    )


# --- command lines ------------------------------------------------------------------------------

_CLI_FLAG_RE: Final = re.compile(
    r"--(?:[a-z0-9]+-)*(?P<kw>password|passwd|passphrase|pass|pwd|token|secret|api-?key"
    r"|client-secret|access-key|secret-key|private-key|auth-token|credentials?)"
    rf"(?:[ \t]+|=){_FLAG_VALUE}"
)
# Password flags of tools that take them glued or short: mysql -pX, sshpass -p X,
# docker login -p X, redis-cli -a X, ldapsearch -w X, mongosh -p X, smbclient -U user%X.
_TOOL_FLAG_RES: Final = tuple(
    re.compile(pattern.replace("VALUE", r"[\"']?(?P<secret>[^\s\"'`-][^\s\"'`]*)"))
    for pattern in (
        r"(?:mysql|mariadb)[a-z]*\b[^\n;|&]{0,160}?[ \t]-pVALUE",
        r"sshpass[ \t]+-p[ \t]*VALUE",
        r"docker[ \t]+login\b[^\n;|&]{0,160}?[ \t]-p[ \t]+VALUE",
        r"redis-cli\b[^\n;|&]{0,160}?[ \t]-a[ \t]+VALUE",
        r"ldap[a-z]+\b[^\n;|&]{0,160}?[ \t]-w[ \t]+VALUE",
        r"mongo(?:sh)?\b[^\n;|&]{0,160}?[ \t]-p[ \t]+VALUE",
        r"smbclient\b[^\n;|&]{0,160}?[ \t]-u[ \t]+[^\s%]+%VALUE",
        # .netrc: "machine host login user password secret", on one line or several.
        r"machine[ \t]+[^\s]+\s+login[ \t]+[^\s]+\s+password[ \t]+VALUE",
    )
)


def _cli_kind(word: str) -> str:
    word = word.replace("-", "")
    if word in {"password", "passwd", "passphrase", "pass", "pwd"}:
        return "password"
    if word.endswith("key"):
        return f"{word[:-3]}-key"
    return {"clientsecret": "client-secret", "authtoken": "token", "credential": "credentials"}.get(
        word, word
    )


def _classify_cli_flag(m: re.Match[str], text: str) -> str | None:
    kind = _cli_kind(m.group("kw"))
    if _plausible_value(m, text, kind, env_line=never):
        return kind
    # --cluster-password Summer41Mpj.sE: on a command line a dotted word with a digit and
    # both cases is a chosen password, not an attribute path.
    bare = group(m, text, "bare")
    if not bare or "." not in bare or bare.endswith(".") or is_reference(bare):
        return None
    if kind == "password" and chosen(bare):
        return kind
    # --token u1zcv8.xfmr34oxznmtoj6j: digits in two parts and no part a plain word is a
    # token (kubeadm's id.secret), not an attribute path.
    parts = bare.split(".")
    if sum(any(c.isdigit() for c in p) for p in parts) >= 2 and not any(p.isalpha() for p in parts):
        return kind
    return None


def _classify_tool_flag(m: re.Match[str], text: str) -> str | None:
    value = group(m, text, "secret") or ""
    return None if is_reference(value.strip("'\"")) else "password"


# --- headers, URLs, cookies ---------------------------------------------------------------------

_AUTH_HEADER_RE: Final = re.compile(
    r"authorization(?P<close>[\"'`]?)[ \t]*[:=][ \t]*(?P<open>[\"'`]?)"
    r"(?:(?P<scheme>[a-z][a-z0-9_-]*(?:-hmac-[a-z0-9]+)?)[ \t]+)?"
    r"(?P<secret>[^\s\"'`,;)\]}][^\n\"'`]*)"
)
# A token split by a shell's backslash-newline inside its quotes goes on at the next line's start.
_BEARER_RE: Final = re.compile(
    r"bearer[ \t]+(?P<secret>[a-z0-9._~+/-]{16,}=*(?:\\\r?\n[a-z0-9._~+/-]{4,}=*)?)"
)
# URLs are found by their "://": scanning for a scheme would mean trying every letter.
_URL_CREDENTIALS_RE: Final = re.compile(
    r"://(?P<secret>[^\s:/?#@\[\]\"'<>]{0,256}:(?P<password>[^\s/\[\]\"'<>]{1,256}))@"
)
_URL_TOKEN_USER_RE: Final = re.compile(r"://(?P<secret>[A-Za-z0-9_.~%-]{20,256})@")
# A quoted ``user:password`` ends at its quote, blanks and all (a WordPress application
# password is six groups of four with blanks between: ``-u "editor:uZnk WvPJ IC6J ..."``).
_CURL_USER_RE: Final = re.compile(
    r"(?:-u|--user)[ \t]+(?P<q>[\"'])?"
    r"(?P<secret>[^\s:\"'\[]+:(?P<password>(?(q)[^\"'\[\n]+|[^\s\"'\[]+)))"
)
_QUERY_SECRET_RE: Final = re.compile(
    r"[?&;](?P<kw>sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature"
    r"|x-goog-credential|code|client_secret|refresh_token|id_token|apikey|api_key|key)"
    r"=(?P<secret>[^&\s#\"'<>]{8,})"
)
_COOKIE_RE: Final = re.compile(
    r"cookie(?P<close>[\"'`]?)[ \t]*:[ \t]*(?P<secret>[^\s\"'`][^\n\"'`]*)"
)
_COOKIE_ATTRIBUTES: Final = frozenset(
    {"path", "domain", "expires", "max-age", "samesite", "priority", "partitioned", "version"}
)
_TOKEN_LIKE: Final = re.compile(r"[^\s,]{6,}")


def _header_end(m: re.Match[str], text: str, start: int) -> int:
    """Where a header value ends: at its closing quote, else at the end of the line."""
    quote = m.group("open") if "open" in m.re.groupindex and m.group("open") else ""
    if not quote and m.start() > 0 and text[m.start() - 1] in "\"'`":
        quote = text[m.start() - 1]  # -H "Authorization: Bearer x"
    line_end = text.find("\n", start, start + 4096)
    end = line_end if line_end >= 0 else min(len(text), start + 4096)
    if quote:
        closing = text.find(quote, start, end)
        if closing >= 0:
            end = closing
    # In a logged bytes repr the header ends at an escaped line break (b'...\r\nAccept: ...').
    escaped = text.find("\\r\\n", start, end)
    if escaped >= 0:
        end = escaped
    while end > start and text[end - 1] in " \t\r,;":
        end -= 1
    return end


def _auth_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    start = m.start("secret")
    return [(start, _header_end(m, text, start))]


def _has_token(value: str) -> bool:
    """Whether a header value holds something credential-like, not prose."""
    return any(
        has_entropy(run.group(), need_upper=False) or run.group().endswith("=")
        for run in _TOKEN_LIKE.finditer(value)
    )


def _classify_auth_header(m: re.Match[str], text: str) -> str | None:
    start = m.start("secret")
    value = text[start : _header_end(m, text, start)]
    scheme = m.group("scheme")
    if not value or is_reference(value.split()[0]) or not _has_token(value):
        return None
    if scheme is None:
        return "authorization" if plausible_bare(value.split()[0]) else None
    return {"bearer": "bearer", "basic": "basic-auth"}.get(scheme, "authorization")


def _classify_bearer(m: re.Match[str], text: str) -> str | None:
    return "bearer" if has_entropy(group(m, text, "secret") or "", need_upper=False) else None


def _after_scheme(m: re.Match[str], text: str) -> bool:
    return m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "+.-")


def _classify_url_credentials(m: re.Match[str], text: str) -> str | None:
    # Even user:pass@ is taken: a URL's user-info is where real passwords are pasted.
    if not _after_scheme(m, text) or is_reference(m.group("password")):
        return None
    return "url-credentials"


def _classify_url_token_user(m: re.Match[str], text: str) -> str | None:
    if not _after_scheme(m, text) or not has_entropy(m.group("secret"), need_upper=False):
        return None
    return "url-credentials"


# A user:password pair as a setting's value: curlrc's user = "u:X", proxy-user, userpwd.
_USER_PAIR_RE: Final = re.compile(
    r"(?P<kw>user|userpwd|userpass|proxy[-_]user|basic[-_]?auth)[\"']?"
    r"(?:[ \t]*[:=][ \t]*|[ \t]+)[\"']?[^\s:\"'@/=]{1,64}:(?P<secret>[^\s\"'@]{1,256})"
)


def _classify_user_pair(m: re.Match[str], text: str) -> str | None:
    value = group(m, text, "secret") or ""
    if is_reference(value) or "\\" in value:
        return None  # a variable, or an escape in a test of URI parsing ('us\xA0er:pa\uD7FF')
    return "basic-auth" if literal_credential(value) or chosen(value) else None


def _classify_curl_user(m: re.Match[str], text: str) -> str | None:
    if m.start() > 0 and not text[m.start() - 1].isspace():
        return None
    return None if is_reference(m.group("password")) else "basic-auth"


def _classify_query_secret(m: re.Match[str], text: str) -> str | None:
    value = urllib.parse.unquote(group(m, text, "secret") or "")
    if is_reference(value) or not looks_random(value):
        return None
    return "url-signature" if "sig" in m.group("kw") else "token"


_COOKIE_PAIR_RE: Final = re.compile(r"(?P<name>[^=;\s,]+)=(?P<value>\"[^\"\n]*\"|[^;\s,\\\"]*)")


def _cookie_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The value of each ``name=value`` pair of a cookie header; names and attributes stay."""
    start = m.start("secret")
    end = _header_end(m, text, start)
    spans: list[tuple[int, int]] = []
    for pair in _COOKIE_PAIR_RE.finditer(text, start, end):
        value = pair.group("value").strip('"')
        if pair.group("name").lower() in _COOKIE_ATTRIBUTES or is_reference(value):
            continue
        # Session cookies are long random values; "theme=dark" or "fig=newton" are not.
        if len(value) < 8 or not (any(c.isdigit() for c in value) or len(value) >= 20):
            continue
        spans.append(pair.span("value"))
    return spans


CONTEXT_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "authorization",
        STRUCTURAL,
        _AUTH_HEADER_RE,
        _classify_auth_header,
        WORD,
        on_lowercase=True,
        spans=_auth_spans,
    ),
    Rule("bearer", STRUCTURAL, _BEARER_RE, _classify_bearer, TOKEN_CHARS, on_lowercase=True),
    Rule(
        "cookie",
        STRUCTURAL,
        _COOKIE_RE,
        not_after=WORD + ".",
        on_lowercase=True,
        spans=_cookie_spans,
    ),
    Rule("url-credentials", STRUCTURAL, _URL_CREDENTIALS_RE, _classify_url_credentials),
    Rule("url-credentials", STRUCTURAL, _URL_TOKEN_USER_RE, _classify_url_token_user),
    Rule("basic-auth", STRUCTURAL, _CURL_USER_RE, _classify_curl_user),
    Rule("basic-auth", STRUCTURAL, _USER_PAIR_RE, _classify_user_pair, WORD, on_lowercase=True),
    Rule("token", STRUCTURAL, _QUERY_SECRET_RE, _classify_query_secret, on_lowercase=True),
    _assignment(r"pass(?:[_-]?(?:word|phrase)|wd)?"),
    _assignment("pwd"),
    _assignment("secret"),
    _assignment("token"),
    _assignment("key"),
    _assignment("auth"),
    _assignment("credentials?"),
    _assignment("cookie"),
    _assignment(r"secret[ _-]?id"),
    _assignment("macaroon"),
    _assignment(r"session(?:[_-]?id)?"),
    _assignment("mnemonic"),
    _assignment("pat"),
    _assignment("psk"),
    _assignment("authtok"),
    _assignment("seed"),
    _assignment("private"),
    _assignment(
        r"(?:key|secret|token|password|passwd)[_-](?:base|value|data|b64|base64|hex|raw|plain)"
    ),
    Rule("token", ASSIGNMENT, _SCHEMED_RE, _classify_schemed, on_lowercase=True),
    _named_pair(),
    _named_call(),
    Rule(
        "password",
        ASSIGNMENT,
        _CLI_FLAG_RE,
        _classify_cli_flag,
        TOKEN_CHARS,
        on_lowercase=True,
    ),
    *(
        Rule("password", ASSIGNMENT, pattern, _classify_tool_flag, WORD, on_lowercase=True)
        for pattern in _TOOL_FLAG_RES
    ),
)
