"""Fixtures for driving the Comodor extension in a real VS Code: code-server 4.100.3 (VS Code
1.100.3) in a throw-away profile, headless Debian Chromium, Python Playwright.

`vscode_factory(settings=..., files=...)` gives a `VSCodeUI` on a fresh workspace with the
extension installed from the per-platform .vsix that `scripts/build_vsix.py` builds (the one a
user installs, with this checkout's server inside). Each launch has its own HOME, XDG dirs,
user-data dir, extensions dir and COMODOR_HOME, and code-server runs in its own session
(setsid) so the whole process group (file watcher, extension hosts, the language server) is
killed at the end.

Which server runs:
- `server="bundled"` (the default): as a user gets it. `comodor.server.path` is unset, no
  PYTHONPATH, and the only Python on PATH ahead of the system's is a fresh virtualenv with
  nothing installed (`bare_python`); each launch checks that `import comodor_lsp` fails there.
- `server="checkout"`: `comodor.server.path` is this interpreter (`python -m comodor_lsp serve`)
  with `<checkout>/server` first on PYTHONPATH, checked to resolve to this checkout.
- a test's own `comodor.server.path` in `settings` overrides both.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support import builds

if TYPE_CHECKING:
    from .vscode_ui import VSCodeUI

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "client-vscode"
ARTIFACTS = REPO / "test-artifacts" / "vscode"
CHROMIUM = os.environ.get("COMODOR_E2E_CHROMIUM", "/usr/bin/chromium")

# Keep the workbench quiet and the editor literal: no welcome page, no trust prompt, no
# auto-closing quotes or auto-indent turning what the test types into something else.
BASE_USER_SETTINGS: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "update.mode": "none",
    "editor.autoClosingBrackets": "never",
    "editor.autoClosingQuotes": "never",
    "editor.autoIndent": "none",
    "editor.formatOnType": False,
    "editor.quickSuggestions": {"other": "off", "comments": "off", "strings": "off"},
    "editor.suggestOnTriggerCharacters": False,
    "editor.acceptSuggestionOnEnter": "off",
    "editor.hover.delay": 300,
    "files.autoSave": "off",
    "git.enabled": False,
    "comodor.trace.server": "messages",
}


def _log(msg: str) -> None:
    print(f"[e2e-vscode] {msg}", file=sys.stderr, flush=True)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item so fixtures can tell whether the test failed."""
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep


@pytest.fixture(scope="session")
def code_server_bin() -> Path:
    """Install (or find) code-server + chromium + playwright with the project's script."""
    start = time.monotonic()
    proc = subprocess.run(
        ["sh", str(REPO / "scripts" / "install-vscode-e2e.sh")],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(
            f"scripts/install-vscode-e2e.sh failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
        )
    binary = Path(proc.stdout.strip().splitlines()[-1])
    _log(f"install-vscode-e2e.sh: {time.monotonic() - start:.1f}s -> {binary}")
    assert binary.exists(), binary
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} missing"
    return binary


@pytest.fixture(scope="session")
def extension_vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The .vsix built the way a release does (scripts/build_vsix.py, for this platform).

    One build per run, shared with tests/test_vsix.py (tests/support/builds.py).
    """
    start = time.monotonic()
    vsix, _ = builds.built_vsix(tmp_path_factory)
    _log(f"build_vsix.py: {time.monotonic() - start:.1f}s -> {vsix.name}")
    return vsix


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh virtualenv with nothing installed: a user's plain Python."""
    venv = tmp_path_factory.mktemp("bare-python") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    return venv / "bin"


@pytest.fixture(scope="session")
def other_comodor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `comodor` command of PyPI's other comodor (a coding agent), in its own virtualenv."""
    venv = tmp_path_factory.mktemp("other-comodor") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "comodor==2.0.1"],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return venv / "bin" / "comodor"


@pytest.fixture
def playwright_instance() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(
    port: int, proc: subprocess.Popen[bytes], log: Path, timeout_s: float = 30
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"code-server exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
            )
        url = f"http://127.0.0.1:{port}/healthz"
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=1) as r:
            if r.status == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"code-server not healthy after {timeout_s}s:\n{log.read_text()[-3000:]}")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole session (its pgid is its pid), then SIGKILL what is left."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
    # Children (file watcher, extension host, language server) may outlive the parent.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _assert_no_comodor_installed(env: dict[str, str]) -> None:
    """The bundled server must not lean on an installed one: `python3` on this PATH has none."""
    found = subprocess.run(
        ["python3", "-c", "import comodor_lsp"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if found.returncode == 0 or "No module named 'comodor_lsp'" not in found.stderr:
        pytest.fail(f"python3 in code-server's environment can import comodor_lsp: {found}")


def _assert_server_from_checkout(env: dict[str, str]) -> None:
    """The extension will run `<sys.executable> -m comodor_lsp serve` in code-server's environment;
    make sure that imports this checkout's server, not a pip-installed one."""
    found = subprocess.run(
        [sys.executable, "-c", "import comodor_lsp; print(comodor_lsp.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    where = found.stdout.strip()
    if found.returncode != 0 or not Path(where).is_relative_to(REPO / "server"):
        pytest.fail(f"code-server's environment imports comodor_lsp from {where!r}: {found.stderr}")


@dataclass
class VSCodeSession:
    ui: VSCodeUI
    workspace: Path
    comodor_home: Path
    root: Path
    timings: dict[str, float] = field(default_factory=dict)

    def comodor_output(self) -> str:
        """The extension's "Comodor" output channel as VS Code logged it to disk."""
        logs = sorted((self.root / "ud" / "logs").glob("**/*Comodor*.log"))
        return "\n".join(p.read_text(errors="replace") for p in logs)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


@pytest.fixture
def vscode_factory(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    code_server_bin: Path,
    extension_vsix: Path,
    bare_python: Path,
    playwright_instance: Any,
) -> Iterator[Callable[..., VSCodeSession]]:
    from .vscode_ui import VSCodeUI

    cleanups: list[Callable[[], None]] = []
    sessions: list[VSCodeSession] = []

    def launch(
        settings: dict[str, Any] | None = None,
        machine_settings: dict[str, Any] | None = None,
        files: dict[str, str] | None = None,
        env: dict[str, str] | None = None,
        before_start: Callable[[Path, dict[str, str]], None] | None = None,
        server: str = "bundled",
        extensions: Sequence[Path] = (),
        code_server_args: Sequence[str] = (),
        code_server: Path | None = None,
        after_install: Callable[[Path], None] | None = None,
    ) -> VSCodeSession:
        """Start code-server + chromium on a new workspace. `before_start(workspace, env)` runs
        after the workspace and COMODOR_HOME exist and before VS Code starts (to seed a brain).
        `extensions` are more .vsix files to install next to Comodor's; `code_server_args` go
        on code-server's command line (e.g. `--enable-proposed-api <id>`). `code_server` is
        another code-server binary than the default one (its `node` must be first on PATH in
        `env`); `after_install(extensions_dir)` runs once the extensions are installed."""
        binary = code_server or code_server_bin
        t0 = time.monotonic()
        root = tmp_path / f"vscode{len(sessions)}"
        dirs = {
            name: root / name
            for name in (
                "home",
                "xdg-config",
                "xdg-data",
                "xdg-cache",
                "ud",
                "ext",
                "ws",
                "comodor-home",
            )
        }
        for d in dirs.values():
            d.mkdir(parents=True)
        workspace = dirs["ws"]
        for rel, text in (files or {}).items():
            (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
            (workspace / rel).write_text(text)
        user_settings = {
            **BASE_USER_SETTINGS,
            **({"comodor.server.path": sys.executable} if server == "checkout" else {}),
            **(settings or {}),
        }
        _write_json(dirs["ud"] / "User" / "settings.json", user_settings)
        if machine_settings:
            _write_json(dirs["ud"] / "Machine" / "settings.json", machine_settings)

        cs_env = {
            **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
            "HOME": str(dirs["home"]),
            "XDG_CONFIG_HOME": str(dirs["xdg-config"]),
            "XDG_DATA_HOME": str(dirs["xdg-data"]),
            "XDG_CACHE_HOME": str(dirs["xdg-cache"]),
            "COMODOR_HOME": str(dirs["comodor-home"]),
        }
        if server == "checkout":
            # The server under test is this checkout's, whatever is pip-installed.
            cs_env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH", "")) if p
            )
        else:
            # A user's machine: a plain Python first on PATH, not the test run's virtualenv.
            ours = Path(sys.executable).parent
            path = [p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != ours]
            cs_env["PATH"] = os.pathsep.join([str(bare_python), *path])
        cs_env.update(env or {})
        if user_settings.get("comodor.server.path") == sys.executable:
            _assert_server_from_checkout(cs_env)
        elif "comodor.server.path" not in user_settings:
            _assert_no_comodor_installed(cs_env)
        if before_start is not None:
            before_start(workspace, cs_env)
        subprocess.run(
            [
                str(binary),
                "--user-data-dir",
                str(dirs["ud"]),
                "--extensions-dir",
                str(dirs["ext"]),
                *(
                    arg
                    for vsix in (extension_vsix, *extensions)
                    for arg in ("--install-extension", str(vsix))
                ),
            ],
            env=cs_env,
            check=True,
            capture_output=True,
            timeout=120,
        )
        if after_install is not None:
            after_install(dirs["ext"])
        t_installed = time.monotonic()

        port = _free_port()
        log = root / "code-server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [
                    str(binary),
                    "--bind-addr",
                    f"127.0.0.1:{port}",
                    "--auth",
                    "none",
                    "--user-data-dir",
                    str(dirs["ud"]),
                    "--extensions-dir",
                    str(dirs["ext"]),
                    "--disable-telemetry",
                    "--disable-update-check",
                    "--disable-workspace-trust",
                    "--disable-getting-started-override",
                    *code_server_args,
                    str(workspace),
                ],
                env=cs_env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # setsid: its own process group, killed as a whole
            )
        cleanups.append(lambda: _kill_group(proc))
        _wait_healthy(port, proc, log)

        browser = playwright_instance.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
            env={
                **os.environ,
                "HOME": str(dirs["home"]),
                "XDG_CONFIG_HOME": str(dirs["xdg-config"]),
            },
        )
        cleanups.append(browser.close)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(30_000)
        page.goto(f"http://127.0.0.1:{port}/?folder={workspace}")
        ui = VSCodeUI(page, ARTIFACTS / request.node.name)
        ui.wait_for_workbench()
        session = VSCodeSession(
            ui=ui, workspace=workspace, comodor_home=dirs["comodor-home"], root=root
        )
        session.timings = {
            "install_extension_s": t_installed - t0,
            "workbench_s": time.monotonic() - t0,
        }
        sessions.append(session)
        return session

    if ARTIFACTS.joinpath(request.node.name).exists():
        shutil.rmtree(ARTIFACTS / request.node.name)
    yield launch

    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for s in sessions:
        if failed:
            with contextlib.suppress(Exception):
                s.ui.screenshot("FAILED")
        output = s.comodor_output()
        if output:
            (ARTIFACTS / request.node.name).mkdir(parents=True, exist_ok=True)
            (ARTIFACTS / request.node.name / "comodor-output.log").write_text(output)
    for cleanup in reversed(cleanups):
        with contextlib.suppress(Exception):
            cleanup()
