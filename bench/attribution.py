"""How well the VS Code extension tells an assistant's edits from the user's, edit by edit.

The figures come from real sessions in real VS Code (code-server + headless Chromium, driven
by Playwright keystrokes): tests/e2e_vscode/test_attribution_session.py runs them, and each
session writes a record of every action with who made it (the ground truth: the script knows)
and every `comodor/assistantEdit` the extension sent (the observed side: its output channel's
line for each notice, logged as it is sent). This module scores those records:

- an assistant's edit is found when a notice names its document and the version it produced;
  the notice's source must be the right one (`extension`, `inline-completion...`);
- every other notice is a false attribution, charged to the user's action it appeared in;
- precision = right notices / all notices; recall = assistant edits found / assistant edits,
  per condition and per source.

Run: `python -m bench.attribution` runs the sessions (slow tests, ~5 min; the second host,
code-server 4.139.1 with the textDocumentChangeReason proposal, only where
`COMODOR_E2E_NEXT=1 scripts/install-vscode-e2e.sh` installed it) and prints the table;
`python -m bench.attribution --records DIR` scores records written before.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TEST = "tests/e2e_vscode/test_attribution_session.py"

CONDITIONS = {
    "hidden-tab, saved": "a multi-hunk WorkspaceEdit of a file open in a tab not shown, saved",
    "hidden-tab, unsaved": "the same, left unsaved (dirty)",
    "visible editor": "a multi-hunk WorkspaceEdit of the file in the focused, visible editor",
    "inline-completion": "ghost text accepted with Tab",
}


@dataclass
class Row:
    session: str
    who: str  # "user" or the right source
    condition: str
    edits: int
    attributed: int  # notices charged to these actions
    right: int  # of which name the right document version and source

    @property
    def precision(self) -> float | None:
        return self.right / self.attributed if self.attributed else None

    @property
    def recall(self) -> float | None:
        return None if self.who == "user" else (self.right / self.edits if self.edits else None)


def _base(source: str) -> str:
    return source.split(":", 1)[0]


def score(record: dict[str, Any]) -> list[Row]:
    """One row per (actor, kind) of a session: its edits, the notices charged to them, and
    how many of those named the right document version and source."""
    actions = record["actions"]
    observed = list(record["observed"])
    matched: set[int] = set()
    right: dict[int, bool] = {}
    for a in actions:
        if a["actor"] != "assistant" or a["version"] is None:
            continue
        for i, o in enumerate(observed):
            if i in matched or o["uri"] != a["uri"] or o["version"] != a["version"]:
                continue
            matched.add(i)
            right[a["n"]] = _base(o["source"]) == a["source"]
            break
    # A notice no assistant edit explains is charged to the first action after which it was
    # seen (the log lags by the 80 ms burst and the disk write, rarely more than one action).
    charged: dict[int, int] = defaultdict(int)
    for i in range(len(observed)):
        if i in matched:
            continue
        owner = next((a for a in actions if a["seen"] > i), actions[-1] if actions else None)
        if owner is not None:
            charged[owner["n"]] += 1
    rows: dict[tuple[str, str], Row] = {}
    for a in actions:
        who = "user" if a["actor"] == "user" else a["source"]
        row = rows.setdefault((who, a["kind"]), Row(record["name"], who, a["kind"], 0, 0, 0))
        row.edits += 1
        row.attributed += charged.get(a["n"], 0) + (1 if a["n"] in right else 0)
        row.right += 1 if right.get(a["n"]) else 0
    return sorted(rows.values(), key=lambda r: (r.who != "user", r.who, r.condition))


def totals(rows: list[Row], session: str) -> dict[str, Row]:
    """Per source (user, extension, inline-completion) and `all`: the rows summed."""
    out: dict[str, Row] = {}
    for r in rows:
        for key in (r.who, "all"):
            t = out.setdefault(key, Row(session, key, "(all)", 0, 0, 0))
            t.edits += r.edits
            t.attributed += r.attributed
            t.right += r.right
    if "all" in out:
        out["all"].who = "all assistant" if any(r.who != "user" for r in rows) else "user"
    return out


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def table(records: list[dict[str, Any]]) -> str:
    """The measured table, one block per session, a total line per source."""
    head = (
        f"{'session':<28} {'who':<18} {'condition':<20} {'edits':>5} {'called':>6} "
        f"{'right':>5} {'prec':>5} {'recall':>6}"
    )
    lines = [head, "-" * len(head)]
    for rec in records:
        session = f"{rec['name']} ({'proposal' if rec['proposal'] else 'no proposal'})"
        rows = score(rec)
        for r in rows:
            lines.append(
                f"{session:<28} {r.who:<18} {r.condition:<20} {r.edits:>5} {r.attributed:>6} "
                f"{r.right:>5} {_fmt(r.precision):>5} {_fmt(r.recall):>6}"
            )
        for who, t in totals(rows, session).items():
            if who == "all":
                assistant = [r for r in rows if r.who != "user"]
                found = sum(r.right for r in assistant)
                edits = sum(r.edits for r in assistant)
                called = sum(r.attributed for r in rows)
                lines.append(
                    f"{session:<28} {'= total':<18} {'(all)':<20} {t.edits:>5} {called:>6} "
                    f"{found:>5} {_fmt(found / called if called else None):>5} "
                    f"{_fmt(found / edits if edits else None):>6}"
                )
        lines.append("")
    return "\n".join(lines)


def run_sessions(out: Path) -> None:
    """Run the slow e2e sessions; each writes its record (attribution-<name>.json) to `out`."""
    env = {**os.environ, "COMODOR_ATTRIBUTION_OUT": str(out), "PYTHONPATH": str(REPO / "server")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--basetemp={tempfile.mkdtemp(prefix='attribution-bench-')}",
            TEST,
        ],
        cwd=REPO,
        env=env,
        check=False,
    )
    if proc.returncode not in (0, 5) and not list(out.glob("attribution-*.json")):
        raise SystemExit(f"the sessions failed ({proc.returncode}) and wrote no record")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=Path, help="score the records in DIR instead of running")
    args = parser.parse_args(argv)
    folder = args.records
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="attribution-records-"))
        run_sessions(folder)
    files = sorted(folder.glob("attribution-*.json"))
    if not files:
        print(f"no attribution-*.json records in {folder}", file=sys.stderr)
        return 2
    records = [json.loads(p.read_text()) for p in files]
    print(table(records))
    for rec in records:
        print(
            f"{rec['name']}: {rec['host']}; comodor.stats agentWritesBySource = "
            f"{rec['stats'].get('agentWritesBySource')}"
        )
    print("\nconditions:")
    for name, what in CONDITIONS.items():
        print(f"  {name}: {what}")
    print(f"records: {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
