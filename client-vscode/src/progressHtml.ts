// The progress dashboard as a self-contained HTML string: headline, early-vs-recent success
// rate and one inline SVG line chart per series. Colours come from VS Code's theme variables so
// it follows light/dark/high-contrast themes; no scripts and no remote resources, which lets
// the CSP forbid everything but inline styles. Pure: no `vscode`, unit-tested.
import type { ProgressResult, Series } from './protocol';
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
const H = 96;
const PAD = 8;
/** Room left of the plot for the min/max labels, so they never sit on the first point. */
const LEFT = 36;

function fmt(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}

function seriesColor(improving: boolean | null): string {
  if (improving === true) {
    return 'var(--vscode-charts-green)';
  }
  if (improving === false) {
    return 'var(--vscode-charts-red)';
  }
  return 'var(--vscode-charts-blue)';
}

export function changeText(s: Pick<Series, 'change' | 'improving'>): string {
  const trend =
    s.improving === true ? 'improving' : s.improving === false ? 'getting worse' : 'not enough evidence yet';
  if (s.change === null || s.change === undefined || !Number.isFinite(s.change)) {
    return trend;
  }
  const sign = s.change > 0 ? '+' : s.change < 0 ? '−' : '±';
  return `${sign}${fmt(Math.abs(s.change))}% early → recent · ${trend}`;
}

/** One line chart; values are scaled to the box (a flat series sits in the middle). */
export function renderSeriesSvg(s: Series): string {
  const values = (s.values ?? []).filter((v) => typeof v === 'number' && Number.isFinite(v));
  const label = escapeHtml(s.label);
  if (values.length === 0) {
    return `<p class="empty">No data for ${label} yet.</p>`;
  }
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min;
  const x = (i: number) =>
    values.length === 1 ? (LEFT + W - PAD) / 2 : LEFT + (i * (W - LEFT - PAD)) / (values.length - 1);
  const y = (v: number) => (span === 0 ? H / 2 : PAD + ((max - v) * (H - 2 * PAD)) / span);
  const pts = values.map((v, i) => `${fmt(x(i))},${fmt(y(v))}`).join(' ');
  const color = seriesColor(s.improving);
  const desc = escapeHtml(`${s.label}: ${values.map(fmt).join(', ')}`);
  const area =
    values.length > 1
      ? `<polygon class="area" points="${fmt(x(0))},${H - PAD} ${pts} ${fmt(x(values.length - 1))},${H - PAD}" fill="${color}"/>`
      : '';
  const dots = values
    .map((v, i) => `<circle cx="${fmt(x(i))}" cy="${fmt(y(v))}" r="2.5" fill="${color}"/>`)
    .join('');
  return (
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${desc}">` +
    `<title>${desc}</title>` +
    `<line class="axis" x1="${LEFT}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}"/>` +
    area +
    (values.length > 1 ? `<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="2"/>` : '') +
    dots +
    `<text x="${LEFT - 6}" y="${PAD + 4}" text-anchor="end" class="tick">${escapeHtml(fmt(max))}</text>` +
    `<text x="${LEFT - 6}" y="${H - PAD}" text-anchor="end" class="tick">${escapeHtml(fmt(min))}</text>` +
    `</svg>`
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
.stat .name, .muted, .tick, .change { color: var(--vscode-descriptionForeground); }
.series { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 16px; }
.card { border: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent));
  border-radius: 4px; padding: 10px 12px; }
.card h2 { font-size: 1em; font-weight: 600; margin: 0 0 2px; }
.change { margin: 0 0 6px; }
.chart { width: 100%; max-width: 640px; height: auto; display: block; }
.chart .axis { stroke: var(--vscode-editorWidget-border, var(--vscode-descriptionForeground)); stroke-width: 1; }
.chart .area { opacity: 0.12; }
.chart .tick { font-size: 10px; fill: var(--vscode-descriptionForeground); }
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
    ? `<p class="muted">One dot per task, oldest on the left.</p><section class="series">${series
        .map(
          (s) =>
            `<div class="card"><h2>${escapeHtml(s.label)}</h2>` +
            `<p class="change">${escapeHtml(changeText(s))}</p>${renderSeriesSvg(s)}</div>`,
        )
        .join('')}</section>`
    : `<p class="empty">No trends to show yet.</p>`;
  const note = p.enoughData ? '' : `<p class="muted">Trends firm up as more tasks are recorded.</p>`;
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
