"""The ``comodor-lsp`` command: one entry point, subcommands for each door into the brain.

Each subcommand is a thin wrapper: the logic lives in :mod:`comodor.brain` (and
in the server packages), so the CLI, the language server and the MCP server
can never disagree about what a command does.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from .. import SERVER_NAME, __version__


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(keep=args.keep)


@contextlib.contextmanager
def _startup_objects_kept() -> Iterator[None]:
    """Import a server's modules without the garbage collector, then freeze what they made.

    Importing the protocol builds about 700 attrs classes (lsprotocol's and ours), none of
    them garbage, and the collector walks them again and again while they are built: a
    fifth of a server's start. One collection afterwards frees what the imports left; what
    survives it is frozen, out of every later collection of a process that runs for hours.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.collect()  # once, for the cycles the imports left (else frozen for good: ~8 MB)
        gc.enable()
        gc.freeze()


def _serve(args: argparse.Namespace) -> int:
    import logging

    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("pygls").setLevel(logging.WARNING)
    with _startup_objects_kept():
        from ..lsp.allocator import limit_malloc_arenas
        from ..lsp.main import create_server
        from ..lsp.stdio import serve_stdio

    limit_malloc_arenas()  # before create_server starts the brain worker's threads

    return serve_stdio(create_server())


def _workspace(raw: str | None) -> Path:
    from .failure import workspace_folder

    return workspace_folder(raw)


def _mcp(args: argparse.Namespace) -> int:
    import logging

    logging.basicConfig(
        stream=sys.stderr,  # stdout is the MCP wire
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    with _startup_objects_kept():
        from ..mcp_server import run

    return run(_workspace(args.workspace))


def _call(args: argparse.Namespace) -> int:
    """Run one protocol command, exactly as an editor would, and print its JSON result."""
    import json

    from ..commands import COMMANDS
    from .command_names import unknown
    from .failure import Failure, line, opened

    if args.name not in COMMANDS:  # said before the brain is opened: nothing changes
        print(unknown(args.name), file=sys.stderr)
        return 2
    try:
        argument = json.loads(args.argument) if args.argument else {}
    except ValueError as error:
        raise Failure(
            line(f"the argument is not JSON ({error})", "Pass one JSON object, e.g. '{}'"),
            code=2,
        ) from None
    with opened(_workspace(args.workspace)) as app:
        result = app.execute(args.name, argument)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    missed = _missed(args.name, argument, result)
    if missed:
        print(missed, file=sys.stderr)
        return 1
    return 0


_MISSES = {
    "comodor.forget": ("removed", "lesson", "comodor.lessons"),
    "comodor.forgetRule": ("removed", "rule", "comodor.rules"),
    "comodor.pin": ("ok", "lesson", "comodor.lessons"),
    "comodor.setRule": ("ok", "rule", "comodor.rules"),
}
"""Commands whose result says their id matched nothing: field, what the id names, its list."""


def _missed(name: str, argument: object, result: object) -> str:
    """Why a command that names an id did nothing ("" when it did something)."""
    from .memory import missing

    if name not in _MISSES or not isinstance(result, dict):
        return ""
    field, what, listed = _MISSES[name]
    if result.get(field, True):
        return ""
    wanted = argument.get("id") if isinstance(argument, dict) else None
    return missing(what, wanted, f"call {listed}").lines[0]


def _progress(args: argparse.Namespace) -> int:
    """``comodor.progress`` through the app, exactly as an editor gets it, for a terminal.

    ``--svg FILE`` / ``--html FILE`` write the same result drawn as a standalone
    picture instead; a path that cannot be written is refused before anything runs.
    """
    import json

    from .chart_files import problem
    from .failure import opened
    from .progress_text import can_print_unicode, render_progress

    requested = (("svg", args.svg), ("html", args.html))
    targets = [(kind, raw) for kind, raw in requested if raw is not None]
    for kind, raw in targets:
        wrong = problem(raw)
        if wrong:
            print(f"comodor-lsp: --{kind}: {wrong}", file=sys.stderr)
            return 1
    with opened(_workspace(args.workspace)) as app:
        result = app.execute("comodor.progress", {})
    if targets:
        return _write_charts(result, targets)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        ascii_only = args.ascii or not can_print_unicode(sys.stdout)
        print(render_progress(result, ascii_only=ascii_only))
    return 0


def _write_charts(result: dict[str, object], targets: list[tuple[str, str]]) -> int:
    """Draw ``result`` once per requested format and replace each file whole."""
    from ..progress_chart import page_html, progress_svg
    from .chart_files import write

    drawn = {"svg": progress_svg, "html": page_html}
    for kind, raw in targets:
        try:
            path = write(raw, drawn[kind](result))
        except OSError as error:
            reason = error.strerror or str(error)
            print(f"comodor-lsp: --{kind}: cannot write {raw}: {reason}", file=sys.stderr)
            return 1
        print(f"wrote {path}")
    return 0


def _sync(args: argparse.Namespace) -> int:
    from ..sync import sync_app
    from .failure import opened

    with opened(_workspace(args.workspace)) as app:
        for notice in app.read_team_rules().notices:
            print(f"comodor-lsp: {notice}", file=sys.stderr)
        reports = sync_app(app, args.target)
    failed = False
    for report in reports:
        where = report.path or report.target
        if report.error:
            failed = True
            print(f"{report.target}: {report.action}: {report.error}", file=sys.stderr)
        else:
            print(f"{where}: {report.action}" + (f" ({report.why})" if report.why else ""))
    return 1 if failed else 0


def _schemas(args: argparse.Namespace) -> int:
    from ..protocol.schema_export import write

    written = write(Path(args.out))
    print(f"wrote {len(written)} schemas to {args.out}")
    client = Path(args.client)
    if (client / "package.json").is_file():
        from ..protocol import client_copies as clientgen

        for path in clientgen.write(client):
            print(f"wrote {path}")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    """Every check on one aligned line (``--json`` for scripts); exit 1 if any failed."""
    import json

    import attrs

    from .. import config
    from ..doctor import diagnose
    from .doctor_text import render_checks
    from .terminal import wants_colour

    workspace = _workspace(args.workspace)
    loaded = config.for_workspace(workspace)
    settings = loaded.settings
    if args.endpoint or args.model:  # the command line overrides the user's settings
        endpoint = args.endpoint or settings.reflect.endpoint
        model = args.model or settings.reflect.model
        if not endpoint.strip() or not model.strip():
            # The one given alone names the one missing (from the command line and settings).
            given, needed = ("--endpoint", "--model") if endpoint else ("--model", "--endpoint")
            print(
                f"comodor-lsp doctor: {given} needs {needed} too (or reflect."
                f"{needed[2:]} in the settings) to check a model.",
                file=sys.stderr,
            )
            return 2
        reflect = attrs.evolve(
            settings.reflect,
            enabled=True,
            endpoint=endpoint,
            model=model,
            api_key_env=args.api_key_env or settings.reflect.api_key_env,
        )
        loaded = attrs.evolve(loaded, settings=attrs.evolve(settings, reflect=reflect))
    checks = diagnose(workspace, loaded)
    failed = not all(check.ok for check in checks)
    if args.json:
        listed = [attrs.asdict(check) for check in checks]
        print(json.dumps({"ok": not failed, "checks": listed}, indent=2, ensure_ascii=False))
    else:
        print(render_checks(checks, colour=wants_colour(sys.stdout)))
    return 1 if failed else 0


def _team_status(args: argparse.Namespace) -> int:
    """The team database's size, users, last change and connections; exit 1 when unusable."""
    import json

    from .. import config
    from .failure import Failure, line, refusals

    loaded = config.for_workspace(_workspace(args.workspace))
    if loaded.problems:
        raise Failure(*refusals(loaded.problems))
    url = loaded.settings.brain.url.strip()
    if not url:
        raise Failure(
            line(
                "no team brain is configured",
                "Set brain.url (or COMODOR_BRAIN_URL) to the team database's postgresql:// URL",
            )
        )
    from ..teamdb.postgres import is_database_url, redact_url

    if not is_database_url(url):
        raise Failure(
            line(
                f"brain.url must be a postgresql:// URL, got {redact_url(url)[:80]!r}",
                "Set it (or COMODOR_BRAIN_URL) to the team database's postgresql:// URL",
            )
        )
    from ..teamdb.status import read_status, render_status

    status = read_status(url)  # BrainUnavailable: one line from failure.run
    if args.json:
        print(json.dumps(status.as_json(), indent=2, ensure_ascii=False))
    else:
        print(render_status(status))
    return 0


def _team_restore(args: argparse.Namespace) -> int:
    """Archived team lessons back into recall, with their ids; or listed with ``--list``."""
    from .failure import Failure, line, opened

    if not (args.list or args.all or args.ids) or (args.all and args.ids):
        raise Failure(
            line(
                "team restore needs lesson ids, --all or --list (not both ids and --all)",
                "Run comodor-lsp team restore --list to see the archived lessons",
            ),
            code=2,
        )
    with opened(_workspace(args.workspace)) as app:
        from ..teamdb.team_store import TeamStore

        store = app.engine.store
        scopes = app.engine.shared.scopes
        if not isinstance(store, TeamStore):
            raise Failure(
                line(
                    "no team brain is configured (only a team database archives lessons)",
                    "Set brain.url (or COMODOR_BRAIN_URL) to the team database's URL",
                )
            )
        if args.list:
            for lesson_id, text in store.archived_lessons(scopes):
                print(f"{lesson_id}  {text}")
            return 0
        back = store.restore_archived(None if args.all else list(args.ids), scopes)
        missing = sorted(set(args.ids) - set(back))
        plural = "lesson" if len(back) == 1 else "lessons"
        print(f"restored {len(back)} {plural}" + (f": {', '.join(map(str, back))}" if back else ""))
        if missing:
            print(f"not archived in this project: {', '.join(map(str, missing))}", file=sys.stderr)
            return 1
    return 0


class _CallHelp(argparse.Action):
    """``call --help`` lists the protocol's commands, read from the table only when asked.

    Importing the table at every start would slow ``serve`` before ``initialize``.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from .command_names import listing

        parser.epilog = f"The protocol's commands:\n{listing()}"
        parser.print_help()
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="comodor-lsp",
        description="Comodor: a learning memory for AI coding assistants.",
    )
    parser.add_argument("--version", action="version", version=f"{SERVER_NAME} {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show a traceback when a command fails"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser("serve", help="run the language server over stdio")
    serve.add_argument(
        "--stdio", action="store_true", help="accepted and ignored (stdio is the default)"
    )
    serve.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"]
    )
    serve.set_defaults(handler=_serve)
    mcp = commands.add_parser("mcp", help="run the MCP server over stdio")
    mcp.add_argument("--workspace", help="the project folder (default: the current folder)")
    mcp.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"]
    )
    mcp.set_defaults(handler=_mcp)
    sync = commands.add_parser(
        "sync", help="write the house rules into instruction files (AGENTS.md, CLAUDE.md…)"
    )
    sync.add_argument("--workspace", help="the project folder (default: the current folder)")
    sync.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="FILE",
        help="workspace-relative file to keep a block in (repeatable; default AGENTS.md)",
    )
    sync.set_defaults(handler=_sync)
    call = commands.add_parser(
        "call",
        help='run one protocol command, e.g. call comodor.teach \'{"text": "…"}\'',
        add_help=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    call.add_argument(
        "-h", "--help", action=_CallHelp, help="show this help and the protocol's commands"
    )
    call.add_argument("name", help="the command, e.g. comodor.rules")
    call.add_argument("argument", nargs="?", help="its argument, one JSON object")
    call.add_argument("--workspace", help="the project folder (default: here)")
    call.set_defaults(handler=_call)
    progress = commands.add_parser(
        "progress", help="whether the assistant is getting better, with the evidence"
    )
    progress.add_argument("--workspace", help="the project folder (default: here)")
    progress.add_argument(
        "--ascii",
        action="store_true",
        help="plain ASCII (the default when the terminal is not UTF-8)",
    )
    progress.add_argument("--json", action="store_true", help="the protocol result as JSON")
    progress.add_argument(
        "--svg", metavar="FILE", help="write the charts as one standalone SVG picture"
    )
    progress.add_argument(
        "--html", metavar="FILE", help="write a self-contained HTML page with the charts"
    )
    progress.set_defaults(handler=_progress)
    schemas = commands.add_parser(
        "schemas", help="write the protocol's JSON Schemas and the VS Code client's copies"
    )
    schemas.add_argument("--out", default="schemas", help="folder to write into")
    schemas.add_argument(
        "--client",
        default="client-vscode",
        help="the VS Code extension's folder (skipped when it has no package.json)",
    )
    schemas.set_defaults(handler=_schemas)
    doctor = commands.add_parser(
        "doctor", help="check the settings, the brain, the team database, the watcher and the model"
    )
    doctor.add_argument("--workspace", default=".", help="the project folder (default: here)")
    doctor.add_argument("--endpoint", help="OpenAI-compatible base URL ending in /v1")
    doctor.add_argument("--model", help="the model name to reflect with")
    doctor.add_argument("--api-key-env", help="the NAME of the variable holding the API key")
    doctor.add_argument("--json", action="store_true", help="the checks as JSON, for scripts")
    doctor.set_defaults(handler=_doctor)
    team = commands.add_parser("team", help="the team database: its status")
    team_commands = team.add_subparsers(dest="team_command", metavar="COMMAND", required=True)
    status = team_commands.add_parser(
        "status", help="size per scope, users, last change, schema, connections, lag"
    )
    status.add_argument("--workspace", help="the project folder (default: here)")
    status.add_argument("--json", action="store_true", help="the status as JSON, for scripts")
    status.set_defaults(handler=_team_status)
    restore = team_commands.add_parser(
        "restore", help="bring archived lessons (learning.archiveAfterDays) back into recall"
    )
    restore.add_argument("ids", nargs="*", type=int, help="the archived lessons' ids")
    restore.add_argument("--all", action="store_true", help="every archived lesson of the project")
    restore.add_argument(
        "--list", action="store_true", help="list the archived lessons, change nothing"
    )
    restore.add_argument("--workspace", help="the project folder (default: here)")
    restore.set_defaults(handler=_team_restore)
    demo = commands.add_parser("demo", help="watch the brain learn on a temporary workspace")
    demo.add_argument("--keep", action="store_true", help="keep the temporary workspace")
    demo.set_defaults(handler=_demo)
    from .memory import add_commands

    add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    from .failure import run

    # A server's stderr is its log: there a crash keeps its traceback for the bug report.
    return run(handler, args, debug=args.debug or args.command in ("serve", "mcp"))
