"""One rule for errors at every command-line door: one line, a non-zero exit, nothing changed.

Every bad input or unusable resource (a settings file that is not JSON, a setting
of the wrong type, a home that cannot be written, a team URL without its driver,
an id that matches nothing) ends a command the same way: ``comodor-lsp: <problem>.
<what to do>`` on stderr, exit 1 (2 for a usage error), and no traceback unless
``--debug`` asked for one. The brain is opened here for every command that needs it,
always without the temporary brain an editor falls back to (a command that reports
success for a write thrown away would lie), and only after the settings were read
cleanly, so a refused command has changed nothing.
"""

from __future__ import annotations

import sys
from argparse import Namespace
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..app import ComodorApp

PROG = "comodor-lsp"

_CANNOT_CREATE = "cannot create the brain folder"


class Failure(Exception):
    """A command ends with these lines on stderr and ``code`` as its exit status."""

    def __init__(self, *lines: str, code: int = 1) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
        self.code = code


def workspace_folder(raw: str | None) -> Path:
    """The project folder a command works on (``--workspace``, else here), or a failure."""
    folder = Path(raw) if raw else Path.cwd()
    if not folder.is_dir():
        raise Failure(line(f"{folder} is not a folder", "Pass a project folder with --workspace"))
    return folder.resolve()


def sentence(text: str) -> str:
    """``text`` on one line, ending with its full stop."""
    text = " ".join(text.split()).rstrip(" ;,")
    return text if text.endswith((".", "!", "?")) else f"{text}."


def line(problem: str, todo: str = "") -> str:
    """``comodor-lsp: <problem>. <what to do>``, always one line."""
    return " ".join(
        part for part in (f"{PROG}: {sentence(problem)}", todo and sentence(todo)) if part
    )


def advice(message: str) -> str:
    """What to do about a brain error whose own message does not say it."""
    if _CANNOT_CREATE in message:
        return (
            "Set COMODOR_HOME (or brainPath in the settings) to a folder you can write; "
            "nothing was changed"
        )
    return ""


def refusals(problems: Sequence[str]) -> list[str]:
    """Each settings problem as the line a command-line door refuses with."""
    return [
        line(problem, "Fix or remove it, then run the command again; nothing was changed")
        for problem in problems
    ]


@contextmanager
def opened(workspace: Path | None) -> Iterator[ComodorApp]:
    """The app for ``workspace``, opened as a command line must, or a :class:`Failure`.

    Settings problems refuse before the brain is opened (not even a brain file is
    created); a brain that cannot be used raises :class:`BrainError` with nothing
    left behind (no temporary brain is ever made).
    """
    from .. import config
    from ..app import ComodorApp

    loaded = config.for_workspace(workspace)
    if loaded.problems:
        raise Failure(*refusals(loaded.problems))
    app = ComodorApp(workspace, loaded.settings, temporary_fallback=False)
    try:
        yield app
    finally:
        app.close()


def run(handler: Callable[[Namespace], int], args: Namespace, *, debug: bool) -> int:
    """Run one subcommand's handler; turn every failure into its one line."""
    from ..brain.errors import BrainError, InvalidInput

    try:
        return handler(args)
    except Failure as failure:
        for text in failure.lines:
            print(text, file=sys.stderr)
        return failure.code
    except InvalidInput as error:
        if debug:
            raise
        print(
            line(f"invalid {error.field}: {error.problem}", "Nothing was changed"),
            file=sys.stderr,
        )
        return 2
    except BrainError as error:
        if debug:
            raise
        print(line(str(error), advice(str(error))), file=sys.stderr)
        return 1
    except BrokenPipeError:  # `comodor-lsp lessons | head`: the reader has all it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(line("interrupted"), file=sys.stderr)
        return 130
    except Exception as error:  # a bug: still one line, and the way to see more
        if debug:
            raise
        print(
            line(
                f"unexpected error: {type(error).__name__}: {error}",
                "Run it again with --debug to see where, and report it",
            ),
            file=sys.stderr,
        )
        return 1
