// The papers page's figures are written at build time from the claims' figure
// descriptions (web/src/papers/figures.js, web/build/figures-plugin.js): every
// reproduction on the page gets its figures, each figure has what a reader and a
// screen reader need, and the filled page holds every chart and legend once.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FIGURES, figureHtml } from '../../../web/src/papers/figures.js';
import { claimCount, fillFigures, fillSections } from '../../../web/build/figures-plugin.js';
import { CLAIMS } from '../../../web/src/claims/papers/index.js';
import { ROOT } from '../helpers.js';

// The page with the claims' sections written in, as the build writes them before their figures.
const page = fillSections(readFileSync(`${ROOT}web/papers.html`, 'utf8'));
const panels = [...page.matchAll(/data-panel="([a-z0-9]+)"/g)].map((m) => m[1]);
const slots = [...page.matchAll(/data-figures="([a-z0-9-]+)"/g)].map((m) => m[1]);

test('every reproduction on the page has one figures slot and figures for it, and no others', () => {
  assert.ok(panels.length >= 10);
  assert.deepEqual(slots, panels);
  assert.deepEqual(Object.keys(FIGURES).sort(), [...panels].sort());
});

test('each figure has a title, a subtitle, and a chart with its description or a matrix', () => {
  for (const [id, figures] of Object.entries(FIGURES)) {
    assert.ok(figures.length >= 1, id);
    for (const f of figures) {
      assert.ok(f.title && f.sub, `${id}: a title and a subtitle`);
      assert.ok(Boolean(f.chart) !== Boolean(f.matrix), `${id}: a chart or a matrix`);
      if (f.chart) assert.match(f.aria, /^Chart: .+\.$/, `${id}: the chart's description is a sentence`);
    }
  }
});

test('the filled page holds each chart, legend and matrix once, and no empty slot', () => {
  const html = fillFigures(page);
  assert.doesNotMatch(html, /data-figures=/);
  const keys = (attr) => [...html.matchAll(new RegExp(`${attr}="([a-z0-9-]+)"`, 'g'))].map((m) => m[1]);
  const charts = Object.values(FIGURES).flatMap((fs) => fs.filter((f) => f.chart).map((f) => f.chart));
  assert.deepEqual(keys('data-chart'), charts);
  assert.equal(new Set(charts).size, charts.length);
  const legends = Object.values(FIGURES).flatMap((fs) =>
    fs.filter((f) => f.chart && f.legend !== false).map((f) => f.chart),
  );
  assert.deepEqual(keys('data-legend'), legends);
  assert.deepEqual(keys('data-matrix'), ['dwa']);
  assert.equal((html.match(/<figure /g) || []).length, charts.length + 1);
});

test('a figure is written as the page expects it: caption, legend, chart with its label', () => {
  const html = figureHtml({ chart: 'x', title: 'T', sub: 'S', short: true, aria: 'Chart: a "quoted" <b>.' });
  assert.equal(
    html,
    '<figure class="chart-figure"><figcaption><span class="chart-title">T</span><span class="chart-sub">S</span></figcaption>' +
      '<ul class="legend" data-legend="x"></ul><div class="chart chart-short" data-chart="x" role="img"' +
      ' aria-label="Chart: a &quot;quoted&quot; &lt;b>. The numbers are in the table below."></div></figure>',
  );
  assert.throws(
    () => fillFigures('<div class="paper-figures" data-figures="nope"></div>'),
    /no figures for the claim "nope"/,
  );
});

test('the intro counts the claims of the index in words, so adding a claim needs no edit of the page', () => {
  assert.ok(!page.includes('<!-- papers: count -->'));
  const intro = page.slice(page.indexOf('papers-intro'));
  assert.match(intro, new RegExp(`<p>\\s*${claimCount(CLAIMS.length)}\\s+published results`));
  assert.equal(claimCount(13), 'Thirteen');
  assert.equal(claimCount(21), '21');
});
