"""Fixtures for driving the Comodor extension in a real VS Code: code-server 4.100.3 (VS Code
1.100.3) in a throw-away profile, headless Debian Chromium, Python Playwright.

`vscode_factory(settings=..., files=...)` gives a `VSCodeUI` on a fresh workspace with the
extension installed from the .vsix that `npm run package` builds. Each launch has its own HOME,
XDG dirs, user-data dir, extensions dir and COMODOR_HOME, and code-server runs in its own
session (setsid) so the whole process group (file watcher, extension hosts, the language
server) is killed at the end.

The language server is this checkout's, whatever is pip-installed: `comodor.server.path` is
this interpreter (`sys.executable`, so the extension runs `python -m comodor_lsp serve`) and
code-server's environment puts `<checkout>/server` first on PYTHONPATH. Each launch checks
that `import comodor_lsp` in that environment really resolves to this checkout.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

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
def extension_vsix() -> Path:
    """Build the .vsix the way a release does (npm run package)."""
    start = time.monotonic()
    if not (CLIENT / "node_modules" / "vscode-languageclient").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT,
            check=True,
            capture_output=True,
            timeout=600,
        )
    proc = subprocess.run(
        ["npm", "run", "package"],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(f"npm run package failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    vsix = CLIENT / "comodor.vsix"
    assert vsix.exists()
    _log(f"npm run package: {time.monotonic() - start:.1f}s")
    return vsix


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
    ) -> VSCodeSession:
        """Start code-server + chromium on a new workspace. `before_start(workspace, env)` runs
        after the workspace and COMODOR_HOME exist and before VS Code starts (to seed a brain)."""
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
            "comodor.server.path": sys.executable,
            **(settings or {}),
        }
        _write_json(dirs["ud"] / "User" / "settings.json", user_settings)
        if machine_settings:
            _write_json(dirs["ud"] / "Machine" / "settings.json", machine_settings)

        pythonpath = os.pathsep.join(
            p for p in (str(REPO / "server"), os.environ.get("PYTHONPATH", "")) if p
        )
        cs_env = {
            **os.environ,
            "HOME": str(dirs["home"]),
            "XDG_CONFIG_HOME": str(dirs["xdg-config"]),
            "XDG_DATA_HOME": str(dirs["xdg-data"]),
            "XDG_CACHE_HOME": str(dirs["xdg-cache"]),
            "COMODOR_HOME": str(dirs["comodor-home"]),
            # The server under test is this checkout's, whatever is pip-installed.
            "PYTHONPATH": pythonpath,
            **(env or {}),
        }
        if user_settings["comodor.server.path"] == sys.executable:
            _assert_server_from_checkout(cs_env)
        if before_start is not None:
            before_start(workspace, cs_env)
        subprocess.run(
            [
                str(code_server_bin),
                "--user-data-dir",
                str(dirs["ud"]),
                "--extensions-dir",
                str(dirs["ext"]),
                "--install-extension",
                str(extension_vsix),
            ],
            env=cs_env,
            check=True,
            capture_output=True,
            timeout=120,
        )
        t_installed = time.monotonic()

        port = _free_port()
        log = root / "code-server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [
                    str(code_server_bin),
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
