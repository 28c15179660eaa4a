// The progress dashboard as a self-contained HTML string: headline, early-vs-recent success
// rate, one inline SVG chart per series with the compared windows marked and the server's
// verdict, and the with/without-memory comparison when tasks were held out. Every verdict is
// the server's own words (the terminal prints the same ones). Colours come from VS Code's theme
// variables so it follows light/dark/high-contrast themes; no scripts and no remote resources,
// which lets the CSP forbid everything but inline styles. Pure: no `vscode`, unit-tested.
import type { Comparison, Holdout, ProgressResult, Series } from './protocol';

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

const W = 360;
const H = 120;
const PAD = 8;
/** Room above the plot for the window labels. */
const TOP = 22;
/** Room left of the plot for the min/max labels, so they never sit on the first point. */
const LEFT = 40;

function fmt(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}

/** Green for a significant improvement, red for a significant regression, neutral otherwise. */
function seriesColor(direction: Direction | undefined, improving: boolean | null): string {
  const verdict = direction ?? (improving === true ? 'better' : improving === false ? 'worse' : null);
  if (verdict === 'better') {
    return 'var(--vscode-charts-green)';
  }
  if (verdict === 'worse') {
    return 'var(--vscode-charts-red)';
  }
  return 'var(--vscode-charts-blue)';
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
 * One chart: a line through the values (oldest on the left), the early and late windows the
 * server compared shaded and labelled, and each window's mean as a dashed line, so the reader
 * sees exactly what the verdict compares. Rates are drawn on a fixed 0–100% scale.
 */
export function renderSeriesSvg(s: Series): string {
  const all = s.values ?? [];
  const values = all.filter((v) => typeof v === 'number' && Number.isFinite(v));
  const label = escapeHtml(s.label);
  if (values.length === 0) {
    return `<p class="empty">No data for ${label} yet.</p>`;
  }
  const rate = s.rate === true;
  const min = rate ? 0 : Math.min(...values);
  const max = rate ? 1 : Math.max(...values);
  const span = max - min;
  const bottom = H - PAD;
  const n = values.length;
  const step = n > 1 ? (W - LEFT - PAD) / (n - 1) : 0;
  const x = (i: number) => (n === 1 ? (LEFT + W - PAD) / 2 : LEFT + i * step);
  const y = (v: number) => (span === 0 ? (TOP + bottom) / 2 : TOP + ((max - v) * (bottom - TOP)) / span);
  const pts = values.map((v, i) => `${fmt(x(i))},${fmt(y(v))}`).join(' ');
  const color = seriesColor(s.direction, s.improving);
  // Windows only when every value was usable: indices must match the server's.
  const window = Number.isInteger(s.window) && values.length === all.length ? Math.min(s.window, Math.floor(n / 2)) : 0;
  let windows = '';
  if (window > 0 && n > 1) {
    const band = (from: number, to: number, name: string, text: string, mean: number | undefined) => {
      const x1 = Math.max(LEFT, x(from) - step / 2);
      const x2 = Math.min(W - PAD, x(to) + step / 2);
      const meanLine =
        typeof mean === 'number' && Number.isFinite(mean)
          ? `<line class="mean" x1="${fmt(x1)}" y1="${fmt(y(mean))}" x2="${fmt(x2)}" y2="${fmt(y(mean))}"/>`
          : '';
      return (
        `<rect class="window ${name}" x="${fmt(x1)}" y="${TOP}" width="${fmt(x2 - x1)}" height="${bottom - TOP}"/>` +
        `<text class="window-label" x="${fmt((x1 + x2) / 2)}" y="${TOP - 6}" text-anchor="middle">${escapeHtml(text)}</text>` +
        meanLine
      );
    };
    windows =
      band(0, window - 1, 'early', `first ${window}`, s.early) + band(n - window, n - 1, 'late', `last ${window}`, s.late);
  }
  const verdict = verdictText(s);
  const desc = escapeHtml(`${s.label}: ${values.map(fmt).join(', ')}. ${verdict}`);
  const area =
    n > 1 ? `<polygon class="area" points="${fmt(x(0))},${bottom} ${pts} ${fmt(x(n - 1))},${bottom}" fill="${color}"/>` : '';
  const dots = values.map((v, i) => `<circle cx="${fmt(x(i))}" cy="${fmt(y(v))}" r="2.5" fill="${color}"/>`).join('');
  const tick = (v: number) => (rate ? percent(v) : fmt(v));
  return (
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${desc}">` +
    `<title>${desc}</title>` +
    windows +
    `<line class="axis" x1="${LEFT}" y1="${bottom}" x2="${W - PAD}" y2="${bottom}"/>` +
    area +
    (n > 1 ? `<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="2"/>` : '') +
    dots +
    `<text x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end" class="tick">${escapeHtml(tick(max))}</text>` +
    `<text x="${LEFT - 6}" y="${bottom}" text-anchor="end" class="tick">${escapeHtml(tick(min))}</text>` +
    `</svg>`
  );
}

function measure(value: number, rate: boolean): string {
  return rate ? percent(value) : fmt(value);
}

/** Two bars per measure, with memory and without, on a shared scale. */
export function renderComparisonSvg(c: Comparison): string {
  const top = Math.max(c.withMemory, c.withoutMemory, c.rate ? 1 : 0);
  const length = (v: number) => (top > 0 ? Math.max(1, (v / top) * 220) : 1);
  const color = seriesColor(c.direction, null);
  const row = (yPos: number, name: string, v: number, cls: string) =>
    `<text class="tick" x="0" y="${yPos + 9}">${name}</text>` +
    `<rect class="${cls}" x="90" y="${yPos}" width="${fmt(length(v))}" height="12" fill="${cls === 'with' ? color : 'var(--vscode-descriptionForeground)'}"/>` +
    `<text class="tick" x="${fmt(96 + length(v))}" y="${yPos + 9}">${escapeHtml(measure(v, c.rate))}</text>`;
  const desc = escapeHtml(
    `${c.label}: ${measure(c.withMemory, c.rate)} with memory, ${measure(c.withoutMemory, c.rate)} without. ${c.verdict}`,
  );
  return (
    `<svg class="bars" viewBox="0 0 360 36" width="360" height="36" role="img" aria-label="${desc}"><title>${desc}</title>` +
    row(2, 'with memory', c.withMemory, 'with') +
    row(20, 'without', c.withoutMemory, 'without') +
    `</svg>`
  );
}

export function renderHoldout(h: Holdout | null | undefined): string {
  if (!h) {
    return '';
  }
  const rows = (h.comparisons ?? [])
    .map(
      (c) =>
        `<div class="card"><h2>${escapeHtml(c.label)} ${badge(c.direction, c.significant)}</h2>` +
        `<p class="verdict">${escapeHtml(c.verdict)}</p>${renderComparisonSvg(c)}</div>`,
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
.series { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 16px; }
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
.chart { width: 100%; max-width: 640px; height: auto; display: block; }
.chart .axis { stroke: var(--vscode-editorWidget-border, var(--vscode-descriptionForeground)); stroke-width: 1; }
.chart .area { opacity: 0.12; }
.chart .tick, .bars .tick, .chart .window-label { font-size: 10px; fill: var(--vscode-descriptionForeground); }
.chart .window { fill: var(--vscode-descriptionForeground); opacity: 0.06; }
.chart .window.late { opacity: 0.14; }
.chart .mean { stroke: var(--vscode-foreground); stroke-width: 1; stroke-dasharray: 4 3; opacity: 0.7; }
.bars { width: 100%; max-width: 480px; height: auto; display: block; }
.method { font-size: 0.9em; margin-top: 20px; }
.empty { color: var(--vscode-descriptionForeground); font-style: italic; }
`;

export interface RenderOptions {
  cspSource: string;
}

export function renderProgressHtml(p: ProgressResult, opts: RenderOptions): string {
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
            `<p class="verdict">${escapeHtml(verdictText(s))}</p>${renderSeriesSvg(s)}</div>`,
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
${renderHoldout(p.holdout)}
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
