"""Release packaging: one version everywhere, a wheel and an sdist PyPI would accept, a wheel
that works in a clean virtualenv, and a language server that needs nothing the VSIX leaves out.

The slow tests build the distribution with ``python -m build`` (from PyPI: setuptools in an
isolated build environment) and install it into fresh virtualenvs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from comodor_lsp import SERVER_NAME, __version__

from tests.mcp.conftest import mcp_session
from tests.support.rpc import RawServer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_vsix  # noqa: E402  (scripts/ is not a package)


def test_the_extension_and_the_server_carry_the_same_version() -> None:
    extension = json.loads((ROOT / "client-vscode" / "package.json").read_text())
    assert extension["version"] == __version__ == build_vsix.server_version()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## {__version__}" in changelog, "CHANGELOG.md has no section for this version"


def test_the_cli_says_its_name_and_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "comodor_lsp", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == f"comodor-lsp {__version__}"


def test_the_language_server_reports_comodor_lsp_and_the_version(workspace: Path) -> None:
    server = RawServer(workspace)
    try:
        reply = server.initialize()
    finally:
        server.close()
    assert reply["result"]["serverInfo"] == {"name": SERVER_NAME, "version": __version__}


async def test_the_mcp_server_reports_comodor_lsp_and_the_version(workspace: Path) -> None:
    async with mcp_session(workspace, env={"PYTHONPATH": str(ROOT / "server")}) as session:
        result = session.initialize_result
    assert result is not None
    assert (result.server_info.name, result.server_info.version) == (SERVER_NAME, __version__)


# Refuse, in a real server process, every module the VSIX does not carry, then use the server
# the way an editor does: it must not need them.
WITHOUT_LEFT_OUT = """
import runpy, sys
LEFT_OUT = set(sys.argv[1].split(","))

class LeftOut:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in LEFT_OUT:
            raise ImportError(f"{name} is not in the VSIX")
        return None

sys.meta_path.insert(0, LeftOut())
sys.argv = ["comodor-lsp", "serve"]
runpy.run_module("comodor_lsp", run_name="__main__")
"""


def test_the_language_server_needs_nothing_the_vsix_leaves_out(workspace: Path) -> None:
    left_out = ",".join(sorted(build_vsix.NOT_FOR_THE_LANGUAGE_SERVER))
    assert left_out == "mcp"
    (workspace / "app.py").write_text('NAME = "x"\n')
    server = RawServer(
        workspace,
        command=[sys.executable, "-c", WITHOUT_LEFT_OUT, left_out],
        stderr=subprocess.PIPE,
    )
    try:
        init = server.initialize({"watch": {"enabled": True}})
        assert "result" in init, init
        uri = (workspace / "app.py").as_uri()
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x"}},
        )
        hover = server.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
        )
        assert "error" not in hover, hover
        taught = server.command("comodor.teachRule", {"statement": "Use pathlib for file paths."})
        assert "result" in taught, taught
        rules = server.command("comodor.rules", {})
        assert [r["statement"] for r in rules["result"]["rules"]] == ["Use pathlib for file paths."]
    finally:
        server.close()
    assert server.process.stderr is not None
    assert "is not in the VSIX" not in server.process.stderr.read().decode()


def test_the_bundle_is_split_by_what_differs_between_python_versions() -> None:
    assert build_vsix.wheel_tags("watchdog-7.1.0-py3-none-manylinux_2_17_x86_64.whl") == (
        "py3",
        "none",
        "manylinux_2_17_x86_64",
    )
    assert build_vsix.wheel_tags("numpy-2.3.4-cp312-cp312-macosx_14_0_arm64.whl")[1] == "cp312"
    requirements = build_vsix.language_server_requirements()
    assert not any(r.startswith("mcp") for r in requirements)
    assert any(r.startswith("pygls") for r in requirements)


# ---- the distribution, built and installed ------------------------------------------------


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory: pytest.TempPathFactory, distribution: Path) -> Iterator[Path]:
    """A new virtualenv with nothing but the built wheel (and its dependencies) installed."""
    venv = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    (wheel,) = distribution.glob("*.whl")
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    yield venv


@pytest.mark.slow
def test_build_makes_a_wheel_and_an_sdist_that_twine_accepts(distribution: Path) -> None:
    (wheel,) = distribution.glob("*.whl")
    (sdist,) = distribution.glob("*.tar.gz")
    assert wheel.name == f"comodor_lsp-{__version__}-py3-none-any.whl"
    assert sdist.name == f"comodor_lsp-{__version__}.tar.gz"
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"comodor_lsp-{__version__}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
        scripts = archive.read(f"{info}/entry_points.txt").decode()
    assert {name.split("/")[0] for name in names} == {"comodor_lsp", info}
    assert "comodor_lsp/py.typed" in names and "comodor_lsp/brain/store/file_identity.py" in names
    assert f"Name: comodor-lsp\nVersion: {__version__}\n" in metadata
    # Only our command: a `comodor` script would shadow PyPI's other comodor.
    assert scripts.split() == ["[console_scripts]", "comodor-lsp", "=", "comodor_lsp.cli:main"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    unconditional = {
        re.split(r"[<>=!~ ]", line.removeprefix("Requires-Dist: "))[0]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and ";" not in line
    }
    assert unconditional == {re.split(r"[<>=!~ ]", r)[0] for r in project["dependencies"]}


@pytest.mark.slow
def test_the_wheel_in_a_clean_virtualenv_runs_the_demo(clean_venv: Path, tmp_path: Path) -> None:
    python = clean_venv / "bin" / "python"
    where = subprocess.run(
        [str(python), "-c", "import comodor_lsp; print(comodor_lsp.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(clean_venv), where
    demo = subprocess.run(
        [str(clean_venv / "bin" / "comodor-lsp"), "demo"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "COMODOR_HOME": str(tmp_path)},
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "-> Learned: Use single quotes for strings." in demo.stdout


def _readme_cli_lines() -> list[str]:
    """The command-line examples of README's "Command line" block, comments stripped."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("**Command line.**", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_command_block_is_found() -> None:
    lines = _readme_cli_lines()
    assert len(lines) >= 6 and all(line.startswith("comodor-lsp ") for line in lines)


@pytest.mark.slow
def test_every_command_line_readme_shows_runs_as_written_from_a_clean_install(
    clean_venv: Path, tmp_path: Path
) -> None:
    """Installed from the clone into a fresh virtualenv, on a fresh brain, in README's order."""
    import shlex

    workspace = tmp_path / "project"
    workspace.mkdir()
    env = {
        "PATH": f"{clean_venv / 'bin'}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "COMODOR_HOME": str(tmp_path / "brain"),
        "NO_COLOR": "1",
    }
    for line in _readme_cli_lines():
        done = subprocess.run(
            shlex.split(line),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=workspace,
            env=env,
        )
        assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, line
