"""Honest progress through a real server: regressions named, rates in points, a holdout measured.

Histories are fed exactly as an agent would feed them, with ``comodor.beginTask``
and ``comodor.endTask``; every answer is checked against ``schemas/``.
"""

from __future__ import annotations

from typing import Any

from comodor_lsp.brain.progress.holdout import withhold_memory
from lsprotocol import types

from tests.lsp.session import Session


async def run_tasks(session: Session, outcomes: list[tuple[int, bool]]) -> list[dict[str, Any]]:
    """One task per (steps, success), in order; returns what each beginTask answered."""
    begun = []
    for number, (steps, success) in enumerate(outcomes):
        task = await session.command(
            "comodor.beginTask", {"goal": f"fix the parser, part {number}"}
        )
        await session.command(
            "comodor.endTask", {"taskId": task["taskId"], "success": success, "steps": steps}
        )
        begun.append(task)
    return begun


def series(progress: dict[str, Any], key: str) -> dict[str, Any]:
    return next(item for item in progress["series"] if item["key"] == key)


async def test_a_worsening_history_names_the_regression(session: Session) -> None:
    quick = [(4, True), (5, True), (4, True), (6, True), (5, True), (4, True), (5, True)]
    slow = [(12, False), (14, True), (13, False), (15, False), (12, False), (16, False), (14, True)]
    await run_tasks(session, quick + slow)
    progress = await session.command("comodor.progress")
    steps = series(progress, "steps")
    assert (steps["direction"], steps["significant"], steps["improving"]) == ("worse", True, False)
    assert steps["pValue"] < 0.05 and steps["effect"] > 100 and steps["unit"] == "percent"
    assert steps["window"] == 7 and steps["early"] < steps["late"]
    assert progress["headline"].startswith("Steps per task up ")
    assert "— worse" in progress["headline"]
    assert steps["verdict"].startswith("up ") and "— worse" in steps["verdict"]


async def test_the_editor_gets_the_same_result_drawn_by_the_one_renderer(session: Session) -> None:
    from comodor_lsp.progress_chart import progress_svg, series_svg

    quick = [(4, True), (5, True), (4, True), (6, True), (5, True), (4, True), (5, True)]
    slow = [(12, False), (14, True), (13, False), (15, False), (12, False), (16, False), (14, True)]
    await run_tasks(session, quick + slow)
    progress = await session.command("comodor.progress")
    drawn = await session.command("comodor.progressChart")
    assert drawn["progress"] == progress and drawn["comparisons"] == []  # nothing held out
    assert [chart["key"] for chart in drawn["charts"]] == [s["key"] for s in progress["series"]]
    assert drawn["svg"] == progress_svg(progress)
    assert [chart["svg"] for chart in drawn["charts"]] == [
        series_svg(s) for s in progress["series"]
    ]
    steps = next(chart["svg"] for chart in drawn["charts"] if chart["key"] == "steps")
    assert series(progress, "steps")["verdict"].replace("<", "&lt;") in steps


async def test_success_rising_from_none_to_all_is_the_headline(session: Session) -> None:
    await run_tasks(session, [(5, False)] * 8 + [(5, True)] * 8)
    progress = await session.command("comodor.progress")
    assert progress["headline"].startswith("First-try success 0% → 100%")
    first_try = series(progress, "success")
    assert first_try["significant"] and first_try["direction"] == "better"
    assert first_try["improving"] is True
    assert (first_try["effect"], first_try["unit"]) == (100.0, "points")
    assert series(progress, "steps")["verdict"] == "no change"


async def test_a_flat_history_claims_nothing(session: Session) -> None:
    await run_tasks(session, [(5 + number % 3, number % 4 != 0) for number in range(14)])
    progress = await session.command("comodor.progress")
    assert progress["headline"] == (
        "No measurable change yet. The numbers below are the honest ones."
    )
    for item in progress["series"]:
        assert item["direction"] is None and item["improving"] is None
        assert item["significant"] is False
    assert progress["holdout"] is None and "Holm-corrected" in progress["method"]


async def test_a_holdout_share_runs_tasks_without_memory_and_compares_them(
    session: Session,
) -> None:
    await session.command("comodor.teach", {"text": "the parser: run the grammar tests first"})
    session.client.set_configuration({"learning": {"holdoutRate": 0.5}}, section="comodor")
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await session.settle()
    begun = []
    for number in range(26):
        task = await session.command(
            "comodor.beginTask", {"goal": f"fix the parser, part {number}"}
        )
        held_out = task["holdout"]
        assert held_out == withhold_memory(task["taskId"], 0.5)  # the documented choice
        if held_out:
            assert task["text"] == "" and task["lessons"] == [] and task["rules"] == []
        else:
            assert "run the grammar tests first" in task["text"]
        # Without memory the agent flounders; with it, it is quick and right.
        steps, success = (9 + number % 3, number % 3 == 0) if held_out else (3 + number % 2, True)
        await session.command(
            "comodor.endTask", {"taskId": task["taskId"], "success": success, "steps": steps}
        )
        begun.append(task)
    held = sum(task["holdout"] for task in begun)
    assert 6 <= held <= 20
    progress = await session.command("comodor.progress")
    holdout = progress["holdout"]
    assert (holdout["withMemory"], holdout["withoutMemory"]) == (26 - held, held)
    assert holdout["enoughData"] is True and holdout["helps"] is True
    assert holdout["verdict"].startswith("Memory helps: ")
    steps = next(c for c in holdout["comparisons"] if c["key"] == "steps")
    assert steps["direction"] == "better" and steps["significant"]
    assert steps["withMemory"] < steps["withoutMemory"] and steps["effect"] < 0
    assert {c["key"] for c in holdout["comparisons"]} >= {"steps", "succeeded"}
    # The trend is drawn from the tasks that had memory; the counts say so.
    assert progress["episodes"] == 26 and len(series(progress, "steps")["values"]) == 26 - held
