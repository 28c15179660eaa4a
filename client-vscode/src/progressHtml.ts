// The progress dashboard as a self-contained HTML string: headline, early-vs-recent success
// rate, one chart per series and the with/without-memory comparison when tasks were held out.
// The charts are drawn by the server (`comodor.progressChart`, the same renderer as
// `comodor-lsp progress --svg`): standalone SVGs on white, shown as images. Every verdict is
// the server's own words (the terminal prints the same ones). The page around them follows
// VS Code's theme variables; no scripts and no remote resources, which lets the CSP forbid
// everything but inline styles and data: images. Pure: no `vscode`, unit-tested.
import type { Chart, Holdout, ProgressChartResult, Series } from './protocol';

type Direction = Series['direction'];
import { percent } from './format';

export function escapeHtml(text: unknown): string {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export function contentSecurityPolicy(cspSource: string): string {
  return (
    `default-src 'none'; style-src ${cspSource} 'unsafe-inline'; ` +
    `img-src ${cspSource} data:; font-src ${cspSource};`
  );
}

function fmt(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}

/** Wording for an older server that sends no `verdict` (the server's own words win). */
export function changeText(s: Pick<Series, 'change' | 'improving'>): string {
  const trend =
    s.improving === true ? 'improving' : s.improving === false ? 'getting worse' : 'not enough evidence yet';
  if (s.change === null || s.change === undefined || !Number.isFinite(s.change)) {
    return trend;
  }
  const sign = s.change > 0 ? '+' : s.change < 0 ? '−' : '±';
  return `${sign}${fmt(Math.abs(s.change))}% early → recent · ${trend}`;
}

export function verdictText(s: Pick<Series, 'change' | 'improving'> & Partial<Pick<Series, 'verdict'>>): string {
  return s.verdict ? s.verdict : changeText(s);
}

function badge(direction: Direction | undefined, significant: boolean | undefined): string {
  if (significant && (direction === 'better' || direction === 'worse')) {
    return `<span class="badge ${direction}">${direction}</span>`;
  }
  return `<span class="badge none">no claim</span>`;
}

/**
 * One series' chart: the server's standalone SVG (the renderer `comodor-lsp progress --svg`
 * uses, with its axes, windows and verdict) shown as an image. An SVG in `<img>` can run
 * nothing and load nothing, whatever it holds, and needs only `img-src data:` in the CSP.
 */
export function renderChartImage(s: Pick<Series, 'label' | 'verdict'>, chart: Chart | undefined): string {
  if (!chart || !chart.svg) {
    return `<p class="empty">No chart for ${escapeHtml(s.label)} (the server sent none).</p>`;
  }
  const data = Buffer.from(chart.svg, 'utf8').toString('base64');
  return `<img class="chart" src="data:image/svg+xml;base64,${data}" alt="${escapeHtml(`${s.label}: ${s.verdict ?? ''}`)}">`;
}

/** The verdict in words, unless the server's chart already carries it (and its alt text). */
function verdictUnlessDrawn(verdict: string, chart: Chart | undefined): string {
  return chart?.svg ? '' : `<p class="verdict">${escapeHtml(verdict)}</p>`;
}

/** Two bars per holdout measure, with memory and without, drawn by the server like the series. */
export function renderHoldout(h: Holdout | null | undefined, comparisons: Chart[] = []): string {
  if (!h) {
    return '';
  }
  const drawn = new Map(comparisons.map((c) => [c.key, c]));
  const rows = (h.comparisons ?? [])
    .map(
      (c) =>
        `<div class="card"><h2>${escapeHtml(c.label)} ${badge(c.direction, c.significant)}</h2>` +
        `${verdictUnlessDrawn(c.verdict, drawn.get(c.key))}${renderChartImage(c, drawn.get(c.key))}</div>`,
    )
    .join('');
  return (
    `<section class="holdout"><h2 class="section">With memory vs without</h2>` +
    `<p class="holdout-verdict">${escapeHtml(h.verdict)}</p>` +
    `<p class="muted">${escapeHtml(`${h.withMemory} tasks with memory, ${h.withoutMemory} held out without it (learning.holdoutRate).`)}</p>` +
    (rows ? `<section class="series">${rows}</section>` : '') +
    `</section>`
  );
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size);
  color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 20px 20px; }
h1 { font-size: 1.5em; font-weight: 600; margin: 16px 0 4px; }
.headline { font-size: 1.15em; margin: 4px 0 16px; }
.stats { display: flex; flex-wrap: wrap; gap: 12px; margin-bottom: 20px; }
.stat { border: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent));
  border-radius: 4px; padding: 8px 12px; min-width: 120px;
  background: var(--vscode-editorWidget-background); }
.stat .value { font-size: 1.4em; font-weight: 600; }
.stat .name, .muted, .tick, .verdict, .method { color: var(--vscode-descriptionForeground); }
.series { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 16px; }
.card { border: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent));
  border-radius: 4px; padding: 10px 12px; }
.card h2 { font-size: 1em; font-weight: 600; margin: 0 0 2px; }
.verdict { margin: 0 0 6px; }
.section { font-size: 1.1em; font-weight: 600; margin: 24px 0 4px; }
.holdout-verdict { margin: 4px 0; }
.badge { font-size: 0.8em; font-weight: normal; border-radius: 8px; padding: 1px 6px; margin-left: 6px;
  border: 1px solid currentColor; }
.badge.better { color: var(--vscode-charts-green); }
.badge.worse { color: var(--vscode-charts-red); }
.badge.none { color: var(--vscode-descriptionForeground); }
.chart { width: 100%; max-width: 640px; height: auto; display: block; border-radius: 4px; }
.method { font-size: 0.9em; margin-top: 20px; }
.empty { color: var(--vscode-descriptionForeground); font-style: italic; }
`;

export interface RenderOptions {
  cspSource: string;
}

export function renderProgressHtml(drawn: ProgressChartResult, opts: RenderOptions): string {
  const p = drawn.progress;
  const charts = new Map((drawn.charts ?? []).map((c) => [c.key, c]));
  // With no task recorded a rate is not 0%, it is unknown.
  const none = !p.episodes;
  const early = none ? null : p.earlySuccessRate;
  const recent = none ? null : p.successRate;
  const stats = [
    ['Tasks recorded', String(p.episodes ?? 0)],
    // successRate is over all tasks, earlySuccessRate over the first ones.
    ['Success rate, first tasks → all', `${percent(early)} → ${percent(recent)}`],
    ['Lessons', String(p.lessons ?? 0)],
    ['Active house rules', String(p.rulesActive ?? 0)],
  ]
    .map(
      ([name, value]) =>
        `<div class="stat"><div class="value">${escapeHtml(value)}</div><div class="name">${escapeHtml(name)}</div></div>`,
    )
    .join('');
  const series = p.series ?? [];
  const cards = series.length
    ? `<p class="muted">One dot per task, oldest on the left; the shaded windows are the tasks compared, ` +
      `the dashed lines their means.</p><section class="series">${series
        .map(
          (s) =>
            `<div class="card"><h2>${escapeHtml(s.label)} ${badge(s.direction, s.significant)}</h2>` +
            `${verdictUnlessDrawn(verdictText(s), charts.get(s.key))}${renderChartImage(s, charts.get(s.key))}</div>`,
        )
        .join('')}</section>`
    : `<p class="empty">No trends to show yet.</p>`;
  const note = p.enoughData ? '' : `<p class="muted">Trends firm up as more tasks are recorded.</p>`;
  const method = p.method ? `<p class="method">${escapeHtml(p.method)}</p>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(opts.cspSource))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Comodor Progress</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Comodor Progress</h1>
<p class="headline">${escapeHtml(p.headline ?? '')}</p>
<section class="stats">${stats}</section>
${note}
${cards}
${renderHoldout(p.holdout, drawn.comparisons ?? [])}
${method}
</body>
</html>`;
}

/** Shown in the panel while the server is unreachable, so the panel never lies with zeros. */
export function renderProgressError(message: string, opts: RenderOptions): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(opts.cspSource))}">
<title>Comodor Progress</title><style>${STYLE}</style></head>
<body><h1>Comodor Progress</h1><p class="empty">${escapeHtml(message)}</p></body></html>`;
}
