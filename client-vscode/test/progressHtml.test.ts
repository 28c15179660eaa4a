import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  changeText,
  contentSecurityPolicy,
  escapeHtml,
  renderHoldout,
  renderChartImage,
  renderProgressError,
  renderProgressHtml,
  verdictText,
} from '../src/progressHtml';
import type { Comparison, Holdout, ProgressChartResult, ProgressResult, Series } from '../src/protocol';

const CSP_SOURCE = 'https://x.vscode-cdn.net';

function series(over: Partial<Series> = {}): Series {
  return {
    key: 'steps', label: 'Steps per task', values: [9, 7, 6, 4], change: -55.5, improving: true, sparkline: '█▆▅▃',
    direction: 'better', significant: true, pValue: 0.003, effect: -55.5, unit: 'percent', rate: false,
    lowerIsBetter: true, window: 2, early: 8, late: 5, verdict: 'down 38% — better (p = 0.003)', ...over,
  };
}

function comparison(over: Partial<Comparison> = {}): Comparison {
  return {
    key: 'corrections', label: 'Corrections per task', withMemory: 0.5, withoutMemory: 2, effect: -75, unit: 'percent',
    rate: false, lowerIsBetter: true, significant: true, direction: 'better', pValue: 0.001,
    verdict: '0.5 with memory vs 2 without (p = 0.001)', ...over,
  };
}

function holdout(over: Partial<Holdout> = {}): Holdout {
  return {
    withMemory: 20, withoutMemory: 8, enoughData: true, helps: true,
    verdict: 'Memory helps: corrections per task 0.5 with memory vs 2 without.', comparisons: [comparison()], ...over,
  };
}

/** What `comodor.progressChart` sends: the result, and a stand-in SVG per series. */
function drawn(over: Partial<ProgressResult> = {}): ProgressChartResult {
  const result = progressOnly(over);
  return {
    progress: result,
    svg: '<svg xmlns="http://www.w3.org/2000/svg"/>',
    charts: result.series.map((s) => ({ key: s.key, svg: `<svg xmlns="http://www.w3.org/2000/svg"><title>${s.key}</title></svg>` })),
    comparisons: (result.holdout?.comparisons ?? []).map((c) => ({ key: c.key, svg: `<svg><title>bars ${c.key}</title></svg>` })),
  };
}

function progressOnly(over: Partial<ProgressResult> = {}): ProgressResult {
  return {
    episodes: 8, headline: 'Steps per task down 38% — better (first 2 tasks vs last 2).', enoughData: true, successRate: 0.875,
    earlySuccessRate: 0.5, lessons: 5, rulesActive: 2,
    series: [series(), series({ key: 'success', label: 'Success', improving: null, direction: null, significant: false, verdict: 'no change' })],
    holdout: null, method: 'First 2 tasks vs last 2: Mann–Whitney U test for counts; Holm-corrected across 2 tests at α = 5%.', ...over,
  };
}

test('strict CSP: nothing but our inline styles and data: images; no scripts, no remote resources', () => {
  const html = renderProgressHtml(drawn({ holdout: holdout() }), { cspSource: CSP_SOURCE });
  assert.ok(html.includes(`content="default-src &#39;none&#39;; style-src ${CSP_SOURCE} &#39;unsafe-inline&#39;; img-src ${CSP_SOURCE} data:;`));
  assert.equal(contentSecurityPolicy('S').startsWith("default-src 'none'; style-src S 'unsafe-inline'; img-src S data:;"), true);
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html.replace(CSP_SOURCE, ''), /(src|href)=["']?https?:/i);
  assert.doesNotMatch(html, /\son[a-z]+=/i);
});

test('headline, early vs recent success, one chart per series with the server verdict and method', () => {
  const html = renderProgressHtml(drawn(), { cspSource: CSP_SOURCE });
  assert.ok(html.includes('Steps per task down 38% — better (first 2 tasks vs last 2).'));
  assert.ok(html.includes('50% → 88%'));
  assert.equal(html.match(/<img class="chart" src="data:image\/svg\+xml;base64,/g)?.length, 2);
  // The verdict is written on the server's chart and in its alt text, not repeated beside it.
  assert.ok(html.includes('alt="Steps per task: down 38% — better (p = 0.003)"'));
  assert.doesNotMatch(html, /<p class="verdict">/);
  assert.ok(html.includes('<span class="badge better">better</span>'));
  assert.ok(html.includes('<span class="badge none">no claim</span>'));
  assert.ok(html.includes('Holm-corrected across 2 tests'));
  assert.ok(html.includes('var(--vscode-foreground)'));
});

test("each series shows the server's own SVG for it, as an image that can run nothing", () => {
  const html = renderProgressHtml(drawn(), { cspSource: CSP_SOURCE });
  const images = [...html.matchAll(/<img class="chart" src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)" alt="([^"]*)">/g)];
  const decoded = images.map((m) => Buffer.from(m[1], 'base64').toString('utf8'));
  assert.deepEqual(decoded, [
    '<svg xmlns="http://www.w3.org/2000/svg"><title>steps</title></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><title>success</title></svg>',
  ]);
  assert.equal(images[0][2], 'Steps per task: down 38% — better (p = 0.003)');
  // Non-ASCII survives the round trip (verdicts hold — and →).
  const svg = '<svg><text>5 → 3 — α</text></svg>';
  const image = renderChartImage(series(), { key: 'steps', svg });
  const data = /base64,([^"]+)"/.exec(image)?.[1] ?? '';
  assert.equal(Buffer.from(data, 'base64').toString('utf8'), svg);
  // A series the server drew no chart for says so instead of drawing a wrong one.
  const missing = renderProgressHtml({ ...drawn(), charts: [] }, { cspSource: CSP_SOURCE });
  assert.doesNotMatch(missing, /<img /);
  assert.ok(missing.includes('No chart for Steps per task (the server sent none).'));
  assert.ok(missing.includes('<p class="verdict">down 38% — better (p = 0.003)</p>')); // said in words
});

test('a significant regression is badged worse', () => {
  const worse = series({ direction: 'worse', improving: false, verdict: 'up 190% — worse (p < 0.001)' });
  const html = renderProgressHtml(drawn({ series: [worse] }), { cspSource: CSP_SOURCE });
  assert.ok(html.includes('<span class="badge worse">worse</span>'));
});

test('the holdout shows its verdict and both arms of every measure', () => {
  const html = renderProgressHtml(drawn({ holdout: holdout() }), { cspSource: CSP_SOURCE });
  assert.ok(html.includes('With memory vs without'));
  assert.ok(html.includes('Memory helps: corrections per task 0.5 with memory vs 2 without.'));
  assert.ok(html.includes('20 tasks with memory, 8 held out without it'));
  const images = [...html.matchAll(/<img class="chart" src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)"/g)];
  const decoded = images.map((m) => Buffer.from(m[1], 'base64').toString('utf8'));
  assert.ok(decoded.includes('<svg><title>bars corrections</title></svg>')); // the server's bars
  assert.ok(renderHoldout(holdout()).includes('No chart for Corrections per task (the server sent none).'));
  assert.equal(renderHoldout(null), '');
  assert.doesNotMatch(renderProgressHtml(drawn(), { cspSource: CSP_SOURCE }), /With memory vs without/);
});

test('text from the brain is escaped (a rule or label can hold anything)', () => {
  const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
  const html = renderProgressHtml(
    drawn({
      headline: evil, method: evil, series: [series({ label: evil, verdict: evil })],
      holdout: holdout({ verdict: evil, comparisons: [comparison({ label: evil, verdict: evil })] }),
    }),
    { cspSource: CSP_SOURCE },
  );
  assert.doesNotMatch(html, /<script>alert/);
  assert.doesNotMatch(html, /<img src=x/);
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.equal(escapeHtml(`"'&`), '&quot;&#39;&amp;');
  assert.doesNotMatch(renderProgressError(evil, { cspSource: CSP_SOURCE }), /<script>alert/);
});

test('honest empty state: the server headline, dashes for unknown rates, no fake charts', () => {
  const html = renderProgressHtml(
    drawn({
      episodes: 3, enoughData: false,
      successRate: null as unknown as number, earlySuccessRate: null as unknown as number, // unknown rates
      headline: 'Not enough tasks yet: 3 tasks recorded, 9 more before a trend means anything.', series: [],
    }),
    { cspSource: CSP_SOURCE },
  );
  assert.ok(html.includes('Not enough tasks yet: 3 tasks recorded, 9 more before a trend means anything.'));
  assert.ok(html.includes('— → —'));
  assert.doesNotMatch(html, /<svg |<img /);
  assert.ok(html.includes('No trends to show yet.'));
});

test('the verdict is the server\'s; an older server without one gets the change in words', () => {
  assert.equal(verdictText(series()), 'down 38% — better (p = 0.003)');
  assert.equal(verdictText({ change: -55.5, improving: true }), '−55.5% early → recent · improving');
  assert.equal(changeText({ change: 12, improving: false }), '+12% early → recent · getting worse');
  assert.equal(changeText({ change: null as unknown as number, improving: null }), 'not enough evidence yet');
});

test('no tasks yet: the real server sends 0 for both rates, which must not read as 0% success', () => {
  const html = renderProgressHtml(
    drawn({ episodes: 0, enoughData: false, successRate: 0, earlySuccessRate: 0, series: [] }),
    { cspSource: CSP_SOURCE },
  );
  assert.ok(html.includes('— → —'));
  assert.doesNotMatch(html, /0% → 0%/);
});
