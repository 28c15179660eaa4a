"""The brain's :class:`~comodor.brain.progress.evidence.Progress` as ``ProgressResult``.

Part of the edge (see :mod:`comodor.protocol.convert`): the one conversion of
progress into wire objects.

Every door (the language server, MCP, ``comodor-lsp call`` and ``comodor-lsp progress``)
answers ``comodor.progress`` with this one conversion, so the VS Code view and
the terminal show the same verdicts, in the same words.
"""

from __future__ import annotations

from ..brain.progress.evidence import Progress, Series
from ..brain.progress.holdout import Holdout
from . import results as p


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _p(value: float | None) -> float | None:
    """Three significant digits: a p-value of 2e-7 must not read as 0."""
    return None if value is None else float(f"{value:.3g}")


def series_object(series: Series) -> p.SeriesObject:
    contrast = series.contrast
    early, late = series.means()
    return p.SeriesObject(
        key=series.key,
        label=series.label,
        values=list(series.values),
        change=round(series.change, 2),
        improving=series.improving,
        sparkline=series.sparkline(),
        direction=series.direction,
        significant=series.significant,
        p_value=_p(contrast.p_value),
        effect=_round(contrast.effect, 2) if series.window else None,
        unit=contrast.unit,
        rate=series.rate,
        lower_is_better=series.lower_is_better,
        window=series.window,
        early=round(early, 4),
        late=round(late, 4),
        verdict=series.verdict(),
    )


def holdout_object(holdout: Holdout) -> p.HoldoutObject:
    return p.HoldoutObject(
        with_memory=holdout.with_memory,
        without_memory=holdout.without_memory,
        enough_data=holdout.enough_data,
        helps=holdout.helps,
        verdict=holdout.verdict(),
        comparisons=[
            p.ComparisonObject(
                key=comparison.key,
                label=comparison.label,
                with_memory=round(comparison.contrast.after_mean, 4),
                without_memory=round(comparison.contrast.before_mean, 4),
                effect=_round(comparison.contrast.effect, 2),
                unit=comparison.contrast.unit,
                rate=comparison.contrast.rate,
                lower_is_better=comparison.contrast.lower_is_better,
                significant=comparison.contrast.significant,
                direction=comparison.contrast.direction,
                p_value=_p(comparison.contrast.p_value),
                verdict=comparison.verdict(),
            )
            for comparison in holdout.comparisons
        ],
    )


def progress_result(progress: Progress) -> p.ProgressResult:
    return p.ProgressResult(
        episodes=progress.episodes,
        headline=progress.headline(),
        enough_data=progress.enough_data,
        success_rate=round(progress.success_rate, 4),
        early_success_rate=round(progress.early_success_rate, 4),
        lessons=progress.lessons,
        rules_active=progress.rules_active,
        series=[series_object(series) for series in progress.series],
        holdout=holdout_object(progress.holdout) if progress.holdout is not None else None,
        method=progress.method(),
    )
