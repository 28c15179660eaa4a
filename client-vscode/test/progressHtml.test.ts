import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeText, contentSecurityPolicy, escapeHtml, renderProgressError, renderProgressHtml, renderSeriesSvg } from '../src/progressHtml';
import type { ProgressResult, Series } from '../src/protocol';

const CSP_SOURCE = 'https://x.vscode-cdn.net';

function series(over: Partial<Series> = {}): Series {
  return { key: 'steps', label: 'Steps per task', values: [9, 7, 6, 4], change: -55.5, improving: true, sparkline: '█▆▅▃', ...over };
}

function progress(over: Partial<ProgressResult> = {}): ProgressResult {
  return {
    episodes: 8, headline: 'Tasks take 40% fewer steps than at the start.', enoughData: true, successRate: 0.875,
    earlySuccessRate: 0.5, lessons: 5, rulesActive: 2, series: [series(), series({ key: 'success', label: 'Success', improving: null })], ...over,
  };
}

test('strict CSP: nothing but our inline styles and data: images; no scripts, no remote resources', () => {
  const html = renderProgressHtml(progress(), { cspSource: CSP_SOURCE });
  assert.ok(html.includes(`content="default-src &#39;none&#39;; style-src ${CSP_SOURCE} &#39;unsafe-inline&#39;; img-src ${CSP_SOURCE} data:;`));
  assert.equal(contentSecurityPolicy('S').startsWith("default-src 'none'; style-src S 'unsafe-inline'; img-src S data:;"), true);
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html.replace(CSP_SOURCE, ''), /(src|href)=["']?https?:/i);
});

test('headline, early vs recent success and one SVG per series', () => {
  const html = renderProgressHtml(progress(), { cspSource: CSP_SOURCE });
  assert.ok(html.includes('Tasks take 40% fewer steps than at the start.'));
  assert.ok(html.includes('50% → 88%'));
  assert.equal(html.match(/<svg /g)?.length, 2);
  assert.ok(html.includes('var(--vscode-charts-green)'));
  assert.ok(html.includes('var(--vscode-foreground)'));
});

test('text from the brain is escaped (a rule or label can hold anything)', () => {
  const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
  const html = renderProgressHtml(progress({ headline: evil, series: [series({ label: evil })] }), { cspSource: CSP_SOURCE });
  assert.doesNotMatch(html, /<script>alert/);
  assert.doesNotMatch(html, /<img src=x/);
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.equal(escapeHtml(`"'&`), '&quot;&#39;&amp;');
  assert.doesNotMatch(renderProgressError(evil, { cspSource: CSP_SOURCE }), /<script>alert/);
});

test('honest empty state: the server headline, dashes for unknown rates, no fake charts', () => {
  const html = renderProgressHtml(
    progress({
      episodes: 3, enoughData: false, successRate: null, earlySuccessRate: null,
      headline: '3 tasks recorded — 3 more before a trend means anything', series: [],
    }),
    { cspSource: CSP_SOURCE },
  );
  assert.ok(html.includes('3 tasks recorded — 3 more before a trend means anything'));
  assert.ok(html.includes('— → —'));
  assert.doesNotMatch(html, /<svg /);
  assert.ok(html.includes('No trends to show yet.'));
});

test('series charts handle empty, single and flat series', () => {
  assert.match(renderSeriesSvg(series({ values: [] })), /No data for Steps per task yet/);
  assert.match(renderSeriesSvg(series({ values: [3] })), /<circle cx="194" cy="48"/);
  const flat = renderSeriesSvg(series({ values: [2, 2, 2] }));
  assert.match(flat, /points="36,48 194,48 352,48"/);
  const svg = renderSeriesSvg(series({ values: [0, 10] }));
  assert.match(svg, /points="36,88 352,8"/); // higher value drawn higher
  assert.match(renderSeriesSvg(series({ values: [1, NaN, 2] })), /aria-label="Steps per task: 1, 2"/);
});

test('change text says the direction in words', () => {
  assert.equal(changeText({ change: -55.5, improving: true }), '−55.5% early → recent · improving');
  assert.equal(changeText({ change: 12, improving: false }), '+12% early → recent · getting worse');
  assert.equal(changeText({ change: null, improving: null }), 'not enough evidence yet');
});

test('no tasks yet: the real server sends 0 for both rates, which must not read as 0% success', () => {
  const html = renderProgressHtml(
    progress({ episodes: 0, enoughData: false, successRate: 0, earlySuccessRate: 0, series: [] }),
    { cspSource: CSP_SOURCE },
  );
  assert.ok(html.includes('— → —'));
  assert.doesNotMatch(html, /0% → 0%/);
});
