"""schemas/ is exactly what the protocol classes generate, and covers the whole spec."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from comodor_lsp.protocol import client_copies as clientgen
from comodor_lsp.protocol.schema_export import generate, render

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT.parent / "shared" / "spec" / "protocol.md"


def test_schema_files_match_the_protocol_classes() -> None:
    generated = generate()
    on_disk = {
        str(path.relative_to(ROOT / "schemas")): path.read_text()
        for path in (ROOT / "schemas").rglob("*.json")
    }
    assert set(on_disk) == set(generated), "run `comodor-lsp schemas` and commit schemas/"
    for relative, schema in generated.items():
        assert on_disk[relative] == render(schema), (
            f"{relative} is stale: run `comodor-lsp schemas`"
        )


def test_every_command_of_the_spec_has_params_and_result_schemas() -> None:
    names = set(re.findall(r"`(comodor\.[A-Za-z]+)`", SPEC.read_text())) if SPEC.exists() else set()
    names |= {"comodor.teach", "comodor.endTask", "comodor.stats"}
    for name in names:
        for part in ("params", "result"):
            path = ROOT / "schemas" / "commands" / f"{name}.{part}.json"
            assert json.loads(path.read_text())["title"] == f"{name} {part}"
    assert (ROOT / "schemas" / "notifications" / "comodor-memory.json").exists()
    assert (ROOT / "schemas" / "notifications" / "comodor-draft.json").exists()
    assert (ROOT / "schemas" / "notifications" / "comodor-assistantEdit.json").exists()


TS_TYPES = {
    "Lesson": ("commands/comodor.teach.result.json", "lesson"),
    "Rule": ("commands/comodor.teachRule.result.json", "rule"),
    "Series": ("commands/comodor.progress.result.json", "series[]"),
    "ProgressResult": ("commands/comodor.progress.result.json", ""),
    "Holdout": ("commands/comodor.progress.result.json", "holdout"),
    "Comparison": ("commands/comodor.progress.result.json", "holdout.comparisons[]"),
    "PlaybookResult": ("commands/comodor.playbook.result.json", ""),
    "BeginTaskResult": ("commands/comodor.beginTask.result.json", ""),
    "StatsResult": ("commands/comodor.stats.result.json", ""),
}


def _ts_fields(source: str, name: str) -> set[str]:
    body = re.search(rf"export interface {name} \{{(.*?)\n\}}", source, re.S)
    assert body is not None, f"interface {name} not found in protocol.ts"
    return set(re.findall(r"^\s+(\w+)\??:", body.group(1), re.M))


def _object(schema: dict[str, Any]) -> dict[str, Any]:
    """The object schema itself, also when it is nullable (``anyOf: [object, null]``)."""
    return next((s for s in schema.get("anyOf", []) if "properties" in s), schema)


def test_the_typescript_client_types_follow_the_schemas() -> None:
    source = (ROOT / "client-vscode" / "src" / "protocol.ts").read_text()
    for name, (relative, path) in TS_TYPES.items():
        schema = json.loads((ROOT / "schemas" / relative).read_text())
        for step in filter(None, path.split(".")):
            schema = _object(schema)["properties"][step.rstrip("[]")]
            if step.endswith("[]"):
                schema = schema["items"]
        schema = _object(schema)
        assert _ts_fields(source, name) == set(schema["properties"]), name


def test_the_client_copies_are_generated_and_current() -> None:
    """protocol.ts, the settings table and the agent tool manifest come from the server."""
    client = ROOT / "client-vscode"
    assert (client / "src" / "protocol.ts").read_text() == clientgen.protocol_ts()
    assert (client / "src" / "generated" / "settings.ts").read_text() == clientgen.settings_ts()
    manifest = json.loads((client / "package.json").read_text())
    assert manifest["contributes"]["languageModelTools"] == clientgen.language_model_tools(), (
        "run `comodor-lsp schemas` and commit client-vscode/"
    )
