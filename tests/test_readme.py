"""The READMEs tell a new user only what works: Comodor is on neither PyPI nor the
Marketplace, so every install they show starts from the clone, and every script they name
exists. (The extension README's tool names are held to the manifest by
``client-vscode/test/manifest.test.ts``.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READMES = [ROOT / "README.md", ROOT / "client-vscode" / "README.md"]

# An install of a package name (from an index) rather than of a path in the clone.
FROM_AN_INDEX = re.compile(r"\bpipx? install\s+(?:-\S+\s+)*['\"]?comodor(?:-lsp)?\b")


@pytest.mark.parametrize("readme", READMES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_readme_installs_only_from_the_clone(readme: Path) -> None:
    text = readme.read_text()
    assert FROM_AN_INDEX.findall(text) == []
    assert "VSIX for your platform" not in text  # none is published
    for script in sorted(set(re.findall(r"\./scripts/[\w./-]+", text))):
        assert (ROOT / script).is_file(), f"{readme.name} names {script}, which does not exist"


def test_the_install_check_catches_an_install_from_pypi() -> None:
    assert FROM_AN_INDEX.findall("pip install comodor-lsp, pipx install 'comodor-lsp[team]'")
    assert not FROM_AN_INDEX.findall("pipx install . and pipx install --force '.[team]'")


def test_the_readme_keeps_its_first_two_commands() -> None:
    block = ROOT.joinpath("README.md").read_text().split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[0] for line in block.splitlines()] == ["./scripts/demo", "./scripts/test"]
