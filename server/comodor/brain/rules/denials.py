"""What a denied permission is about: the rule key and the words its statement quotes.

A user who refuses ``cd src && git reset --hard HEAD~1`` refused ``git reset --hard``:
not ``cd``, not every ``git`` command, and not only this exact commit. A user who
refuses one page of a web site refuses the site. A user who refuses an edit of a
file refuses edits of that file. So a subject is keyed by what it is:

* **shell commands** are tokenised like a shell would (``shlex``), split at ``&&``,
  ``||``, ``;``, ``|`` and ``&``; ``cd``/``pushd`` steps, environment assignments
  (``FOO=1``) and wrappers (``sudo``, ``env``, ``nohup``…) are dropped; the first
  remaining command is keyed on its program, its subcommand and its flags, never
  the bare program. The key ignores the order of flags and spellings that mean the
  same (``-f`` is ``--force`` for commands where it is, ``-rf`` is ``-r -f``); the
  statement quotes those same words *in the order typed*.
* **URLs** (a fetch or browse tool, ``curl``/``wget`` in a shell) key on the host:
  every page of one site is one rule.
* **file tools** (write, edit, create, delete a file) key on the path.

Anything else keys on the tool and its subject's words. Subjects arrive redacted.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from urllib.parse import urlsplit

import attrs

SHELL_TOOLS = frozenset(
    {
        "run_shell",
        "shell",
        "bash",
        "sh",
        "zsh",
        "terminal",
        "run_in_terminal",
        "execute_command",
        "run_command",
        "exec",
        "command",
        "powershell",
    }
)
WRAPPERS = frozenset(
    {"sudo", "doas", "env", "time", "nohup", "nice", "command", "exec", "xargs", "timeout"}
)
"""Programs that run the next word as the command; the key is about that command."""
_WRAPPER_VALUE_OPTIONS = frozenset({"-u", "-g", "-n", "-s", "-k", "-C", "-I", "-P"})
_DIRECTORY_STEPS = frozenset({"cd", "pushd", "popd"})
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;", "\n"})
_REDIRECTIONS = re.compile(r"^\d*[<>]+&?$|^&>>?$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WORD = re.compile(r"^[a-z][a-z0-9:_.-]*$")
_SHORT_FLAGS = re.compile(r"^-[A-Za-z]{2,}$")
_CONTAINER_GROUPS = frozenset(
    {"compose", "container", "image", "volume", "network", "system", "builder", "buildx"}
    | {"context", "secret", "service", "stack", "swarm", "node", "config", "manifest"}
)
NESTED_COMMANDS: dict[str, frozenset[str] | None] = {
    "docker": _CONTAINER_GROUPS,
    "podman": _CONTAINER_GROUPS,
    "kubectl": frozenset({"delete", "get", "describe", "scale", "rollout", "create", "edit"}),
    "gh": None,
    "aws": None,
    "gcloud": None,
    "az": None,
    "npm": frozenset({"run", "run-script", "exec"}),
    "pnpm": frozenset({"run", "exec"}),
    "yarn": frozenset({"run", "workspace"}),
    "bun": frozenset({"run"}),
    "git": frozenset({"stash", "remote", "worktree", "submodule", "lfs", "notes", "bisect"}),
    "terraform": frozenset({"workspace", "state"}),
}
"""Programs whose subcommands have subcommands: ``docker compose down`` is not ``up``.
``None``: always; a set: only after these subcommands (``npm run deploy``)."""
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
FORCE_MEANS_F = frozenset({"rm", "cp", "mv", "ln", "git", "docker", "podman", "npm", "pnpm"})
"""Programs for which ``-f`` is ``--force``, so ``git push -f`` is ``git push --force``."""
_F_IS_NOT_FORCE = frozenset({"config", "grep", "log", "blame", "archive"})
"""git subcommands where ``-f`` names a file, not force."""
FETCHERS = frozenset({"curl", "wget", "http", "https", "xh", "aria2c", "open", "xdg-open"})
_WEB_TOOL = re.compile(r"fetch|brows|web|url|http|navigat|open_?page|search_?page")
_DELETE_TOOL = re.compile(r"delete|remove|unlink|trash")
_CHANGE_TOOL = re.compile(r"write|edit|create_?file|replace|insert|save_?file|rename|move_?file")
EDITOR_TOOLS = frozenset({"write", "edit", "multiedit", "str_replace_editor", "create", "delete"})
"""File tools whose names do not say "file" (Claude Code's ``Write``, ``Edit``…)."""
_PATH_FIELDS = ("file_path", "path", "filePath", "target_file", "notebook_path", "filename", "file")
_URL = re.compile(r"https?://[^\s'\"<>`]+", re.IGNORECASE)
MAX_QUOTE = 80


@attrs.frozen
class DenialKey:
    """What a denial is about: the rule key, the words to quote, and the rule's sentence."""

    key: str
    subject: str
    statement: str = ""
    denied: str = ""
    """The whole subject as denied, fit to quote in a rule's detail."""


def _slug(text: str, limit: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit] or "x"


def _quote(text: str) -> str:
    """Words a statement can put between backticks: one line, no backticks, capped."""
    return " ".join(text.replace("`", "'").split())[:MAX_QUOTE]


# -- shell ---------------------------------------------------------------------- #


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command.replace("\r", " "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: split on whitespace instead
        return command.split()


def _commands(command: str) -> list[list[str]]:
    """The simple commands of a compound one, redirections and comments removed."""
    commands: list[list[str]] = [[]]
    skip_next = False
    for line in command.splitlines() or [""]:
        for token in _tokens(line):
            if token in _OPERATORS:
                commands.append([])
            elif skip_next:
                skip_next = False
            elif _REDIRECTIONS.match(token):
                skip_next = True  # ``> file``: the file is not part of the command
            elif token.startswith("#"):
                break  # a comment: the rest of the line
            else:
                commands[-1].append(token)
        commands.append([])
    return [words for words in commands if words]


def _unwrap(words: list[str]) -> list[str]:
    """Drop assignments (``FOO=1``) and wrappers (``sudo -u root``, ``timeout 30``)."""
    index = 0
    while index < len(words):
        word = words[index]
        if _ASSIGNMENT.match(word):
            index += 1
        elif word in WRAPPERS:
            index += 1
            while index < len(words) and words[index].startswith("-"):
                index += 2 if words[index] in _WRAPPER_VALUE_OPTIONS else 1
            if word == "timeout" and index < len(words) and re.match(r"^\d", words[index]):
                index += 1
        else:
            break
    return words[index:]


def _flag_forms(program: str, subcommand: str, flag: str) -> list[str]:
    """The spellings a key compares: ``-rf`` is ``-r -f``; ``-f`` may be ``--force``."""
    flag = flag.split("=", 1)[0]
    parts = [f"-{letter}" for letter in flag[1:]] if _SHORT_FLAGS.match(flag) else [flag]
    forceful = program in FORCE_MEANS_F and not (program == "git" and subcommand in _F_IS_NOT_FORCE)
    return ["--force" if part == "-f" and forceful else part for part in parts]


def _shell_key(command: str) -> DenialKey | None:
    commands = [_unwrap(words) for words in _commands(command)]
    commands = [words for words in commands if words]
    chosen = next((w for w in commands if w[0] not in _DIRECTORY_STEPS), None)
    if chosen is None:
        chosen = commands[0] if commands else None
    if chosen is None:
        return None
    program = chosen[0].rsplit("/", 1)[-1]
    if program in FETCHERS:
        url = next((word for word in chosen[1:] if _URL.match(word)), None)
        if url is not None:
            return _url_key(url)
    positionals: list[int] = []
    flags: list[int] = []
    index = 1
    while index < len(chosen):
        word = chosen[index]
        if word == "--":
            break  # what follows goes to a script or a sub-process, not to this command
        if program == "git" and word in _GIT_VALUE_OPTIONS and not positionals:
            index += 2  # ``git -C path push``: the path is no subcommand
            continue
        if word.startswith("-") and word != "-":
            if len(flags) < 4:
                flags.append(index)
        else:
            positionals.append(index)
        index += 1
    subs: list[int] = []
    if positionals and _WORD.match(chosen[positionals[0]]):
        subs.append(positionals[0])
        nested = NESTED_COMMANDS.get(program, frozenset())
        if (
            len(positionals) > 1
            and (nested is None or chosen[positionals[0]] in nested)
            and _WORD.match(chosen[positionals[1]])
        ):
            subs.append(positionals[1])
    subcommands = [chosen[i] for i in subs]
    typed = [0, *subs, *flags]  # the words the rule is about, quoted in the order typed
    if len(typed) == 1 and len(chosen) > 1:
        typed.append(1)  # never the bare program: ``cd /etc``, ``rm /tmp/x``
    first_sub = subcommands[0] if subcommands else ""
    forms = sorted({form for i in flags for form in _flag_forms(program, first_sub, chosen[i])})
    words = [program, *subcommands, *forms]
    if len(words) == 1 and len(chosen) > 1:
        words.append(chosen[1][:40])
    quoted = _quote(shlex.join(chosen[i] for i in sorted(typed)))
    return DenialKey(
        f"denied.shell.{_slug(' '.join(words))}",
        quoted,
        f"Do not run `{quoted}` without asking first.",
    )


# -- URLs and files ---------------------------------------------------------------- #


def _url_key(url: str) -> DenialKey | None:
    if "://" not in url and "." not in url.split("/", 1)[0]:
        return None  # a search query, not a site
    raw = url if "://" in url else f"https://{url}"
    try:
        host = (urlsplit(raw.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return None
    host = host.removeprefix("www.")
    if not host or not re.fullmatch(r"[a-z0-9.-]+|\[?[0-9a-f:.]+\]?", host):
        return None
    return DenialKey(
        f"denied.web.{_slug(host, 80)}",
        host,
        f"Do not fetch anything from `{host}` without asking first.",
    )


def _path_of(subject: str) -> str:
    text = subject.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for field in _PATH_FIELDS:
                if isinstance(data.get(field), str) and data[field].strip():
                    return str(data[field]).strip()
    words = text.split()
    pathlike = [word for word in words if "/" in word or "." in word.strip(".")]
    chosen = (pathlike or words or [""])[0].strip("'\"")
    while chosen.startswith("./"):
        chosen = chosen[2:]
    return chosen


def _file_key(tool: str, subject: str) -> DenialKey | None:
    name = tool.lower()
    if not ("file" in name or "notebook" in name or name in EDITOR_TOOLS):
        return None
    verb = "delete" if _DELETE_TOOL.search(name) else "change" if _CHANGE_TOOL.search(name) else ""
    path = _path_of(subject) if verb else ""
    if not path:
        return None
    digest = hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    quoted = _quote(path)
    return DenialKey(
        f"denied.file.{verb}.{_slug(path, 50)}.{digest}",
        quoted,
        f"Do not {verb} `{quoted}` without asking first.",
    )


# -- any subject ------------------------------------------------------------------- #


def denial_key(tool: str, subject: str) -> DenialKey:
    """Key a denial on what was refused (see the module docstring)."""
    key = _denial_key(tool, subject)
    return attrs.evolve(key, denied=" ".join(subject.replace("`", "'").split())[:200])


def _denial_key(tool: str, subject: str) -> DenialKey:
    tool_name = tool.strip() or "tool"
    lowered = tool_name.lower()
    key: DenialKey | None = None
    if lowered in SHELL_TOOLS:
        key = _shell_key(subject)
    else:
        key = _file_key(tool_name, subject)
        if key is None:
            url = _URL.search(subject)
            if url is not None:
                key = _url_key(url.group(0))
            elif _WEB_TOOL.search(lowered) and subject.split():
                key = _url_key(subject.split(maxsplit=1)[0])
    if key is not None:
        return key
    words = _quote(subject)
    return DenialKey(
        f"denied.{_slug(tool_name, 30)}.{_slug(words)}",
        words,
        f"Do not call `{_quote(tool_name)}` for `{words}` without asking first."
        if words
        else f"Do not call `{_quote(tool_name)}` without asking first.",
    )
