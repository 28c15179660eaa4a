"""Builds from this checkout that a test run makes once, however many xdist workers it has.

Under pytest-xdist every worker is a session of its own, so a session fixture runs once per
worker. Two builds write into the checkout itself: ``scripts/build_vsix.py`` fills
``client-vscode/bundled/`` and ``client-vscode/build/`` and writes the ``.vsix`` there, and
setuptools (``python -m build``, ``pip wheel``) writes ``build/`` and ``*.egg-info`` beside
the sources. Two of them at once would mix each other's files, so each holds one lock on a
file in the run's shared temporary folder (the parent of the workers' ``--basetemp``
folders). The VSIX is built once per run: the first worker copies it and its log there and
the others, and later modules, take that copy.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder every worker of this run shares (the run's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def checkout_build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Hold the run's lock on building from the checkout; yields the shared folder."""
    folder = run_folder(tmp_path_factory)
    with (folder / "checkout-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def built_vsix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The VSIX ``scripts/build_vsix.py`` builds for this machine, and the build's log.

    Built by the first caller of the run, as a release does; a failed build fails that
    caller with the build's output (and the next caller tries again).
    """
    with checkout_build(tmp_path_factory) as folder:
        record = folder / "vsix.json"
        if record.is_file():
            kept = json.loads(record.read_text())
            return Path(kept["vsix"]), str(kept["log"])
        done = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "build_vsix.py")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"build_vsix.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        built = Path(done.stdout.strip().splitlines()[-1])
        assert built.is_file() and built.suffix == ".vsix", built
        (folder / "vsix").mkdir(exist_ok=True)
        vsix = Path(shutil.copy2(built, folder / "vsix" / built.name))
        record.write_text(json.dumps({"vsix": str(vsix), "log": done.stderr}))
        return vsix, done.stderr


def built_distribution(out: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout built by ``python -m build`` into ``out`` (the wheel and the sdist)."""
    with checkout_build(tmp_path_factory):
        subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
            check=True,
            capture_output=True,
            timeout=600,
        )
    return out
