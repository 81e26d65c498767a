#!/usr/bin/env node
// Measures the embeds' parts in Debian's Chromium at every column width the
// Embed dialogs offer and writes web/src/embed/heights-table.js, the numbers
// web/src/embed/heights.js adds up into an iframe snippet's height. Run it
// after a change to the embeds' layout (tests/browser/embed-heights.test.js
// fails until then), on the build:
//   npm run build:web && node scripts/embed-heights.js
// Each case is an embed.html link; a lab trains to its end first (its tallest
// state), then the viewport takes each width in turn. A part that repeats
// (a readout row, a caption sentence, a heatmap row, a settings row) is its
// largest measured; what the model does not split (titles, paddings, the run
// bar) is the frame, the largest remainder over the cases, so every case fits.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { LAUNCH_OPTIONS } from '../tests/browser/chromium.js';
import { startServer } from './serve.js';
import { ARCHS } from '../web/src/shared/archs.js';
import { CLAIMS } from '../web/src/claims/lab/index.js';
import { COLUMN_WIDTHS } from '../web/src/embed/heights.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}web/src/embed/heights-table.js`;

const ALL_ARCHS = ARCHS.map((a) => a.key).join(',');
const TINY = 'task=copy&seq=2&vocab=4&depth=2&width=16&heads=2&batch=4&steps=12&log_every=2';
export const EXPLORER_CASES = [
  '',
  `#arch=${ALL_ARCHS}&controls=all`,
  '#arch=pre_ln&controls=depth&charts=grad',
  '#arch=plain,post_ln&depth=24&gain=1.2&controls=none&caption=false',
  '#arch=deepnorm,admin,gpt2,post_rms&depth=200&block=transformer&controls=arch,depth,gain,block,heads',
];
export const LAB_CASES = [
  `#mode=train&${TINY}`,
  `#mode=train&${TINY}&arch=pre_ln&controls=none`,
  `#mode=train&${TINY}&arch=plain,residual,post_ln,pre_ln,sandwich&controls=lr,warmup,steps`,
  `#mode=train&${TINY}&arch=dwa,rezero,layerscale,mix_ln&controls=arch,depth,mix_fraction,lr`,
  '#mode=train&preset=warmup',
  ...CLAIMS.map((p) => `#mode=train&preset=${p.id}&controls=warmup,preset`),
];

// ---- in the page

/** The explorer embed's parts, measured. */
export function explorerParts() {
  const host = document.getElementById('embed');
  const root = host.shadowRoot.querySelector('.rn');
  const box = (e) => e.getBoundingClientRect();
  const shown = (e) => e && box(e).height > 0;
  const kids = [...root.children].filter(shown);
  // a part's extent: its top to the next part's top (its margins with it), the last to the embed's bottom
  const ext = (e) => {
    if (!shown(e)) return 0;
    const i = kids.indexOf(e);
    return (i + 1 < kids.length ? box(kids[i + 1]).top : box(host).bottom) - box(e).top;
  };
  const form = root.querySelector('form.controls');
  const arch = form?.querySelector('.arch-field');
  const fields = form ? [...form.children].filter((f) => f !== arch && shown(f)) : [];
  const rowGap = form ? parseFloat(getComputedStyle(form).rowGap) || 0 : 0;
  const caption = root.querySelector('.caption');
  const items = caption ? [...caption.querySelectorAll('li.caption-item')] : [];
  const itemGap = items.length > 1 ? box(items[1]).top - box(items[0]).bottom : 0;
  const lead = caption?.querySelector('.caption-lead');
  const note = caption?.querySelector('.caption-note');
  // the caption's line pitch, from its lead (plain text: a line box per line)
  const range = document.createRange();
  if (lead) range.selectNodeContents(lead);
  const bottoms = lead ? [...new Set([...range.getClientRects()].map((r) => r.bottom))].sort((a, b) => a - b) : [];
  const pitch = bottoms.length > 1 ? (bottoms.at(-1) - bottoms[0]) / (bottoms.length - 1) : 0;
  const lines = (e) => Math.max(1, Math.round(box(e).height / pitch));
  return {
    total: box(host).height,
    form: ext(form),
    archField: shown(arch) ? box(arch).height : 0,
    gap: rowGap,
    archOpen: Boolean(arch?.querySelector('details[open]')),
    fields: fields.map((f) => box(f).height),
    fieldKeys: fields.map((f) => f.dataset.field),
    controlCols: new Set(fields.map((f) => Math.round(box(f).left))).size,
    rows: [...root.querySelectorAll('.readout tbody tr')].map((r) => ({
      arch: r.dataset.arch,
      h: box(r).height,
      note: Boolean(r.querySelector('.same-as')?.textContent),
    })),
    charts: [...root.querySelectorAll('figure.chart-figure')].map(ext),
    caption: ext(caption),
    items: items.map((li) => ({
      arch: li.dataset.arch,
      h: box(li).height + itemGap,
      chars: li.textContent.length,
      lines: lines(li),
    })),
    lead: lead ? box(items[0] ?? lead).top - box(lead).top : 0,
    leadText: lead ? { chars: lead.textContent.length, lines: bottoms.length, h: box(lead).height } : null,
    pitch,
    note: note ? box(caption).bottom - box(note.previousElementSibling).bottom : 0,
  };
}

/** The lab embed's parts, measured. */
export function labParts() {
  const host = document.getElementById('embed');
  const root = host.shadowRoot.querySelector('.rn');
  const box = (e) => e.getBoundingClientRect();
  const shown = (e) => e && !e.hidden && box(e).height > 0;
  const kids = [...root.children].filter(shown);
  const ext = (e) => {
    if (!shown(e)) return 0;
    const i = kids.indexOf(e);
    return (i + 1 < kids.length ? box(kids[i + 1]).top : box(host).bottom) - box(e).top;
  };
  const q = (sel) => root.querySelector(sel);
  const form = q('form.controls');
  const sections = shown(form)
    ? [...form.querySelectorAll('.train-section')].map((s) => ({
        section: s.id.replace(/^train-section-/, ''),
        h: box(s).height,
        left: Math.round(box(s).left),
        rows: (() => {
          const grid = s.querySelector(':scope > .grid2');
          const visible = grid ? [...grid.children].filter(shown) : [];
          return new Set(visible.map((f) => Math.round(box(f).top))).size;
        })(),
        more: shown(s.querySelector(':scope > details.train-more')),
        open: Boolean(s.querySelector('.more[open]:not(.train-more)')),
      }))
    : [];
  // inner: within a part, from the inner element's top to the next visible sibling's (or the part's end)
  const inner = (e) => {
    if (!shown(e)) return 0;
    let next = e.nextElementSibling;
    while (next && !shown(next)) next = next.nextElementSibling;
    return (next ? box(next).top : box(e.parentElement).bottom) - box(e).top;
  };
  // a paragraph's lines (line boxes of its text), characters and line height
  const lines = (e, extent) => {
    const range = document.createRange();
    range.selectNodeContents(e);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return {
      ext: extent,
      h: box(e).height,
      chars: e.textContent.length,
      lines: tops.size,
      line: box(e).height / tops.size,
    };
  };
  const after = q('#train-after');
  const learned = q('#train-learned');
  // the sections with a map drawn (BatchNorm's distances have none without a BatchNorm run)
  const heatFigures = (s) => [...s.querySelectorAll('.heatmap-figure')].filter(shown);
  const heat = [...root.querySelectorAll('.heat-section')]
    .filter((s) => heatFigures(s).length > 0)
    .map((s) => {
      const figs = heatFigures(s);
      const tops = [...new Set(figs.map((f) => Math.round(box(f).top)))];
      return {
        cols: new Set(figs.map((f) => Math.round(box(f).left))).size,
        row:
          tops.length > 1
            ? tops[1] - tops[0]
            : box(figs[0]).height + (parseFloat(getComputedStyle(figs[0].parentElement).rowGap) || 0),
      };
    });
  const comparison = q('#train-comparison');
  const afterRuns = q('#train-after-depth');
  const key = after?.querySelector('.after-key');
  return {
    total: box(host).height,
    form: ext(form),
    sections,
    presets: ext(q('#train-presets')),
    rows: [...q('#train-readout').querySelectorAll('tbody tr')].map(inner),
    paper: ext(q('#train-paper')),
    comparison: shown(comparison) ? lines(comparison, ext(comparison)) : null,
    after: ext(after),
    afterRuns: inner(afterRuns) + inner(key),
    learned: inner(learned),
    dwa: inner(q('#train-learned-dwa')),
    gates: inner(q('#train-learned-gates-box')),
    gateRows: [...root.querySelectorAll('#train-learned-gates tbody tr')].map(inner),
    gateLines: [...root.querySelectorAll('#train-learned-gates-caption li')].map(inner),
    heat,
    // the line charts only some runs have: the largest logit (transformer blocks), the composite gain (HC, mHC)
    logitChart: inner(q('#train-figure-logit')),
    gainChart: inner(q('#train-figure-gain')),
    runs: Object.keys(window.__resnormTrain.runs).length,
    archs: Object.values(window.__resnormTrain.runs).map((r) => r.arch),
    preset: window.__resnormTrain.preset,
  };
}

// ---- the fit

const max = (xs) => (xs.length ? Math.max(...xs) : 0);
const up = (x) => Math.ceil(x);

/** The frame: the largest of each case's height less its measured parts; `spread` says how much it varies. */
function frameOf(ms, parts) {
  const rest = ms.map((m) => m.total - parts(m));
  return { frame: up(max(rest)), spread: Math.round(max(rest) - Math.min(...rest)) };
}

/** Per key (an architecture, a control), the largest of `items` ({arch: key, h}), and `all`: the largest of any. */
function byKey(items) {
  const out = {};
  for (const { arch, h } of items) out[arch] = up(Math.max(out[arch] ?? 0, h));
  out.all = up(max(items.map((i) => i.h)));
  return out;
}

/** The explorer's table for one width from its cases' measures. */
function fitExplorer(ms) {
  const closed = ms.filter((m) => m.archField && !m.archOpen);
  const open = ms.filter((m) => m.archOpen);
  const p = {
    controlCols: max(ms.map((m) => m.controlCols)),
    archField: up(max(closed.map((m) => m.archField))),
    controlRow: up(max(ms.flatMap((m) => m.fields))),
    // each control's own height (a slider with marks is taller than a menu)
    control: byKey(ms.flatMap((m) => m.fields.map((h, i) => ({ arch: m.fieldKeys[i], h })))),
    // a readout row without a note, and with one (its curve coincides with another's)
    readoutRow: byKey(ms.flatMap((m) => m.rows.filter((r) => !r.note))),
    readoutNote: byKey(ms.flatMap((m) => m.rows.filter((r) => r.note))),
    chart: up(max(ms.flatMap((m) => m.charts))),
    captionArch: byKey(ms.flatMap((m) => m.items)),
  };
  p.archMore = up(max(open.map((m) => m.archField)) - p.archField);
  p.controlGap = up(max(ms.map((m) => m.gap)));
  // the form's frame: its height less the grid's items as measured (the architectures' field, then
  // rows of controls, each as tall as its tallest) and the gaps between them
  const gridContent = (m) => {
    const rows = [];
    for (let i = 0; i < m.fields.length; i += p.controlCols) rows.push(max(m.fields.slice(i, i + p.controlCols)));
    const items = (m.archField > 0 ? 1 : 0) + rows.length;
    return m.archField + sum(rows) + p.controlGap * Math.max(0, items - 1);
  };
  p.form = up(max(ms.filter((m) => m.form).map((m) => m.form - gridContent(m))));
  // the caption: its lead, its sentences, the note on exact zeros, and its frame
  p.captionLead = up(max(ms.map((m) => m.lead)));
  // by their text: the line pitch, and the characters a line holds, the most that puts no measured
  // text on fewer lines than it took (n characters on k lines: fewer than n / (k - 1) a line)
  const leads = ms.filter((m) => m.leadText);
  const texts = ms.flatMap((m) => m.items);
  p.line = up(max(ms.map((m) => m.pitch)));
  const perLine = (samples) =>
    Math.ceil(Math.min(...samples.filter((x) => x.lines > 1).map((x) => x.chars / (x.lines - 1)))) - 1;

  p.leadFrame = up(max(leads.map((m) => m.lead - p.line * m.leadText.lines)));
  p.itemChars = perLine(texts);
  // the lead has no sentence's hanging indent (2.3rem, some four characters more a line); its few
  // texts measured bound it loosely, so no more than that
  p.leadChars = Math.min(perLine(leads.map((m) => m.leadText)), p.itemChars + 4);
  p.itemFrame = up(max(texts.map((i) => i.h - p.line * i.lines)));
  p.captionNote = up(max(ms.map((m) => m.note)));
  p.caption = up(
    max(ms.filter((m) => m.caption).map((m) => m.caption - m.lead - sum(m.items.map((i) => i.h)) - m.note)),
  );
  Object.assign(
    p,
    frameOf(ms, (m) => m.form + sum(m.rows.map((r) => r.h)) + sum(m.charts) + m.caption),
  );
  return p;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const denseOf = (m) => m.archs.filter((a) => a === 'dwa').length;
const gatedOf = (m) => m.archs.filter((a) => a === 'rezero' || a === 'layerscale').length;
const heatRows = (m) => sum(m.heat.map((h) => h.row * Math.ceil(m.runs / h.cols)));
/** What a lab's runs add: readout rows, the verdict or comparison, sentences, learned weights and gates, heatmap rows. */
const runsPart = (m) =>
  sum(m.rows) + m.paper + (m.comparison?.ext ?? 0) + m.afterRuns + m.learned + heatRows(m) + m.logitChart + m.gainChart;

/** The lab's table for one width from its cases' measures. */
function fitLab(ms) {
  const sections = ms.flatMap((m) => m.sections);
  const plain = sections.filter((s) => s.section !== 'arch');
  // a section: its legend and padding, a row of two fields, "More settings"
  const row = max(
    plain.flatMap((a) =>
      plain.filter((b) => b.more === a.more && b.rows > a.rows).map((b) => (b.h - a.h) / (b.rows - a.rows)),
    ),
  );
  const more = max(
    plain.flatMap((a) => plain.filter((b) => !a.more && b.more && b.rows === a.rows).map((b) => b.h - a.h)),
  );
  const p = {
    row: up(row),
    more: up(more),
    archSection: up(max(sections.filter((s) => s.section === 'arch' && !s.open).map((s) => s.h))),
    sectionCols: max(ms.map((m) => new Set(m.sections.map((s) => s.left)).size)),
  };
  p.archMore = up(max(sections.filter((s) => s.section === 'arch' && s.open).map((s) => s.h)) - p.archSection);
  p.section = up(max(plain.map((s) => s.h - p.row * s.rows - p.more * s.more)));
  // the form's frame: its height less its sections as measured, in rows of sectionCols
  const layout = (m) => {
    let total = 0;
    for (let i = 0; i < m.sections.length; i += p.sectionCols)
      total += max(m.sections.slice(i, i + p.sectionCols).map((x) => x.h));
    return total;
  };
  p.form = up(max(ms.filter((m) => m.form).map((m) => m.form - layout(m))));
  p.claimsLive = up(max(ms.filter((m) => m.claimMode === 'live').map((m) => m.presets)));
  p.claimsFixed = up(max(ms.filter((m) => m.claimMode === 'fixed' && m.preset !== 'none').map((m) => m.presets)));
  // the reader's own runs: each run's part
  const own = ms.filter((m) => m.preset === 'none');
  p.readoutRow = byKey(own.flatMap((m) => m.rows.map((h, i) => ({ arch: m.archs[i], h }))));
  const comparisons = own.map((m) => m.comparison).filter(Boolean);
  p.line = up(max(comparisons.map((c) => c.line)));
  // the characters a line holds: the most measured (a last line is short, so this errs on the safe side)
  p.lineChars = Math.floor(max(comparisons.map((c) => c.chars / c.lines)));
  p.comparisonFrame = up(max(comparisons.map((c) => c.ext - c.h)));
  p.afterRun = up(max(own.map((m) => m.afterRuns / m.runs)));
  p.dwa = up(max(own.filter(denseOf).map((m) => m.dwa / denseOf(m))));
  p.gateLine = up(max(own.flatMap((m) => m.gateLines)));
  p.gateRow = up(max(own.flatMap((m) => m.gateRows)));
  p.gates = up(max(own.filter(gatedOf).map((m) => m.gates - sum(m.gateLines) - sum(m.gateRows))));
  p.learned = up(max(own.filter((m) => m.learned).map((m) => m.learned - m.dwa - m.gates)));
  p.heatCols = max(own.flatMap((m) => m.heat.map((h) => h.cols)));
  p.heatRow = up(max(own.flatMap((m) => m.heat.map((h) => h.row))));
  // the charts only some runs have, from any case that shows them (a claim's: no own run mixes streams)
  p.logitChart = up(max(ms.map((m) => m.logitChart)));
  p.gainChart = up(max(ms.map((m) => m.gainChart)));
  // the frame, from the reader's own runs: a claim's runs may add to it (a note over the loss
  // chart for a run that diverged), and count with its runs
  Object.assign(
    p,
    frameOf(own, (m) => m.form + m.presets + runsPart(m)),
  );
  // a claim's runs as a whole: everything of its embed but the frame, the settings and the buttons
  p.claimRuns = Object.fromEntries(
    CLAIMS.map((pr) => [
      pr.id,
      up(max(ms.filter((m) => m.preset === pr.id).map((m) => m.total - p.frame - m.form - m.presets))),
    ]),
  );
  return p;
}

// ---- the run

/**
 * Waits until embed.html's embed (in a page or a frame) keeps its viewport, height and canvases over
 * three frames running, with nothing left to draw: the resize observers have run and what they
 * redrew is laid out. tests/browser/embed-heights.test.js waits the same way.
 */
export const settled = (page) =>
  page.evaluate(async () => {
    const host = document.getElementById('embed');
    const next = () => new Promise((r) => requestAnimationFrame(() => r()));
    const drawing = () => Boolean(host.shadowRoot.querySelector('[data-drawing]'));
    const shape = () =>
      JSON.stringify([
        innerWidth,
        innerHeight,
        host.getBoundingClientRect().height,
        ...[...host.shadowRoot.querySelectorAll('canvas')].map((c) => [c.width, c.height]),
        drawing(),
      ]);
    let last = shape();
    for (let same = 0; same < 3;) {
      await next();
      const now = shape();
      same = now === last && !drawing() ? same + 1 : 0;
      last = now;
    }
  });

async function measure(browser, url, hash, { lab }) {
  const context = await browser.newContext({ viewport: { width: COLUMN_WIDTHS.at(-1), height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`${hash}: ${e.message}`));
  await page.goto(`${url}embed.html${hash}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  if (lab) {
    await page.evaluate(() => document.getElementById('embed').shadowRoot.querySelector('#train-start').click());
    await page.waitForFunction(() => window.__resnormTrain?.state === 'done', null, { timeout: 0 });
  }
  const out = {};
  for (const width of COLUMN_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await settled(page);
    out[width] = await page.evaluate(lab ? labParts : explorerParts);
  }
  await context.close();
  return out;
}

/** The table as a module's text. */
function tableText(explorer, lab) {
  const table = (fit, ms) => Object.fromEntries(COLUMN_WIDTHS.map((w) => [w, fit(ms[w])]));
  return (
    '// The embeds\u2019 parts in px at each column width, measured in Chromium by\n' +
    '// scripts/embed-heights.js (do not edit: run it again after a change to the\n' +
    '// layout); web/src/embed/heights.js adds them up.\n' +
    `export const EXPLORER_PARTS = ${JSON.stringify(table(fitExplorer, explorer), null, 2)};\n\n` +
    `export const LAB_PARTS = ${JSON.stringify(table(fitLab, lab), null, 2)};\n`
  );
}

async function main() {
  // MEASURES=file keeps what was measured; --from file fits it again without measuring
  const from = process.argv.indexOf('--from');
  if (from > 0) {
    const { explorer, lab } = JSON.parse(readFileSync(process.argv[from + 1], 'utf8'));
    writeFileSync(OUT, tableText(explorer, lab));
    console.error(`wrote ${OUT}`);
    return;
  }
  const server = await startServer({ port: 0, root: `${ROOT}dist`, base: '/' });
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch(LAUNCH_OPTIONS);
  const { trainEmbedFromHash, claimsMode } = await import('../web/src/embed/train-view.js');
  const explorer = {};
  const lab = {};
  for (const w of COLUMN_WIDTHS) {
    explorer[w] = [];
    lab[w] = [];
  }
  for (const hash of EXPLORER_CASES) {
    const m = await measure(browser, url, hash, { lab: false });
    for (const w of COLUMN_WIDTHS) explorer[w].push(m[w]);
    console.error(`explorer ${hash || '(defaults)'}: ${COLUMN_WIDTHS.map((w) => Math.round(m[w].total)).join(' ')}`);
  }
  // --explorer: measure the explorer again, the lab's measures from MEASURES
  const labFrom = process.argv.includes('--explorer')
    ? JSON.parse(readFileSync(process.env.MEASURES, 'utf8')).lab
    : null;
  if (labFrom) Object.assign(lab, labFrom);
  for (const hash of labFrom ? [] : LAB_CASES) {
    const t0 = Date.now();
    const claimMode = claimsMode(trainEmbedFromHash(hash).view);
    const m = await measure(browser, url, hash, { lab: true });
    for (const w of COLUMN_WIDTHS) lab[w].push({ ...m[w], claimMode });
    console.error(
      `lab ${hash}: ${COLUMN_WIDTHS.map((w) => Math.round(m[w].total)).join(' ')} (${Math.round((Date.now() - t0) / 1000)} s)`,
    );
  }
  await browser.close();
  server.close();
  const text = tableText(explorer, lab);
  writeFileSync(OUT, text);
  if (process.env.MEASURES) writeFileSync(process.env.MEASURES, JSON.stringify({ explorer, lab }));
  console.error(`wrote ${OUT}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
