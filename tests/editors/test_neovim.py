"""A real Neovim attaches to ``comodor-lsp serve``, teaches rules, sees them in hover and
``vim.diagnostic``, and is offered the quick fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("nvim_teach_and_hover.lua")

pytestmark = [pytest.mark.slow, pytest.mark.editor]


@pytest.fixture
def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        pytest.fail("Neovim is not installed; scripts/test installs it (apt-get install neovim)")
    return found


def test_neovim_user_teaches_rules_reads_them_in_hover_and_sees_diagnostics(
    nvim: str, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "demo.py").write_text('import os\nprint(os.getcwd(), "here")\n')
    home = tmp_path / "home"
    out = tmp_path / "result.json"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "COMODOR_HOME": str(tmp_path / "brain"),
        "COMODOR_PYTHON": sys.executable,
        "COMODOR_NVIM_OUT": str(out),
    }
    completed = subprocess.run(
        [nvim, "--headless", "--clean", "demo.py", "-c", f"luafile {SCRIPT}"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    result = json.loads(out.read_text()) if out.exists() else {}
    assert completed.returncode == 0, (completed.stdout, completed.stderr, result)
    assert "comodor.teachRule" in result["commands"]
    assert result["taught"]["rule"]["statement"] == "Prefer pathlib over os.path."
    assert result["hover"].startswith("**House rules**")
    assert "Prefer pathlib over os.path." in result["hover"]
    assert "taught by you" in result["hover"]
    assert "command:" not in result["hover"]  # Neovim does not render command links
    assert result["float"] is not None and "Prefer pathlib over os.path." in result["float"]
    assert (tmp_path / "brain" / "brain.db").exists()
    (diagnostic,) = result["diagnostics"]
    assert (diagnostic["lnum"], diagnostic["col"], diagnostic["end_col"]) == (1, 19, 25)
    assert diagnostic["source"] == "comodor" and diagnostic["code"] == "quotes.style"
    assert diagnostic["message"].startswith("Use single quotes for strings.")
    assert diagnostic["severity"] == 3  # vim.diagnostic.severity.INFO
    assert "Use single quotes" in result["actions"]
    assert "Forget this house rule" in result["actions"]
