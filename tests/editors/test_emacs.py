"""A real Emacs (eglot, batch mode) attaches to ``comodor-lsp serve``: hover and flymake."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("emacs_hover_and_diagnostics.el")

pytestmark = [pytest.mark.slow, pytest.mark.editor]


@pytest.fixture
def emacs() -> str:
    found = shutil.which("emacs")
    if found is None:
        pytest.fail("Emacs is not installed; scripts/test installs it (emacs-nox, elpa-eglot)")
    return found


def test_emacs_eglot_user_sees_the_rule_in_hover_and_its_place_in_flymake(
    emacs: str, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # eglot needs a project Emacs recognises: a git repository
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "demo.py").write_text('import os\nprint(os.getcwd(), "here")\n')
    home = tmp_path / "home"
    out = tmp_path / "result.json"
    env = {
        **os.environ,
        "HOME": str(home),
        "COMODOR_HOME": str(tmp_path / "brain"),
        "COMODOR_PYTHON": sys.executable,
        "COMODOR_EMACS_OUT": str(out),
    }
    completed = subprocess.run(
        [emacs, "--batch", "-q", "-l", str(SCRIPT)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    result = json.loads(out.read_text()) if out.exists() else {}
    assert completed.returncode == 0, (completed.stdout, completed.stderr[-3000:], result)
    assert result["taught"]["rule"]["key"] == "quotes.style"
    assert result["hover"].startswith("**House rules**")
    assert "Use single quotes for strings. — *taught by you*" in result["hover"]
    assert "command:" not in result["hover"]
    (diagnostic,) = result["flymake"]
    assert (diagnostic["line"], diagnostic["column"]) == (2, 19)
    # eglot shows "source [code]: message"
    assert diagnostic["text"] == (
        "comodor [quotes.style]: Use single quotes for strings. (taught by you)"
    )
    assert diagnostic["type"] == "eglot-note"  # information severity
    # eglot does not show comodor/memory: the learned rule was also said in words
    assert any(
        "You taught Comodor a house rule: Use single quotes for strings." in m
        for m in result["messages"]
    ), result["messages"]
