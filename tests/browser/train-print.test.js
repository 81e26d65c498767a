// The training lab on paper, in Debian's Chromium under the site's CSP. After a finished run (the
// default settings at 200 steps, in the dark theme; the Warmup claim's three runs and the Depth
// claim's five, some stopped once trained, each with its verdict; the Late layers claim's
// thirteen, the most of any claim; every architecture at once) an A4 printout (and a Letter one of
// the Warmup claim) is at most two pages (the Late layers claim's three: its maps on the third,
// nothing else), in order: the title and the introduction, the
// settings as text with their link, the readout, the line charts (the loss and gradient norm at
// the page's width, then in one row the learning rate and, with transformer blocks, the largest
// attention logit and, with Hyper-Connections or mHC, the composite gain), the claim,
// its verdict and caption, the heatmaps. Under print media no control is visible, no text lies over
// another, every line chart and heatmap is drawn at its printed size inside the page's width,
// and the charts' step axes reach the last step; the paper is light. After the print the
// screen's theme and sizes are back. Ctrl+P (beforeprint and afterprint, no print media
// emulated) prints the same. The PDFs and a PNG of each page are left in test-results/print-lab-*.
// Run: node scripts/browser-tests.js tests/browser/train-print.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { SITE_CSP, labDrawn, layoutSettled, openPage, overlaps, served, useBrowser } from './harness.js';
import { darkShare, pageCount, pageTexts, printToPdf, squash } from './pdf.js';
import { ARCHS } from '../../web/src/shared/archs.js';
import { fieldApplies } from '../../web/src/shared/fields.js';
import { TRAIN_KEYS, TRAIN_TABLE } from '../../web/src/shared/train-fields.js';
import { trainFromHash } from '../../web/src/train/link.js';
import { CLAIM_BY_ID } from '../../web/src/claims/lab/index.js';
import { labPrintSizes } from '../../web/src/train/print.js';

const it = useBrowser();

const EVERY_ARCH = ARCHS.map((a) => a.key).join(',');
const CASES = [
  { name: 'default', hash: 'steps=200', dark: true },
  { name: 'warmup', hash: 'preset=warmup' },
  { name: 'warmup-letter', hash: 'preset=warmup', format: 'Letter' },
  { name: 'depth', hash: 'preset=depth' },
  // thirteen runs: the readout, the verdict's ten checks and two rows of maps for each metric; the
  // third page holds the maps alone, each metric's whole
  { name: 'late', hash: 'preset=late', pages: 3 },
  { name: 'every-arch', hash: `arch=${EVERY_ARCH}&depth=4&width=16&steps=40&log_every=5` },
];

/** What the screen shows and a printout must not: controls, hints, explanations, exports. */
const CHROME =
  /\b(Start|Pause|Reset|Embed|Paper claims|Export|CSV|Save|Load|All settings|More settings|Show numbers|What is trained|After training: lesions|Point at the map|Skip to|Dark theme|Training lab)\b/;

/**
 * Whether page `n` is light paper: a page in the dark theme's colours is dark nearly all over; a
 * light one is dark only where it is inked, the heatmaps' dark cells most of all (about a seventh
 * of the page with every architecture's maps).
 */
const lightPaper = (pdf, n) => darkShare(pdf, n) < 0.3;

/**
 * Whitespace and hyphens left out: a line the PDF breaks elsewhere than the page reads the same, and
 * pdftotext joins a word broken after a line's last hyphen ("Post-" then "LN" reads "PostLN").
 */
const flat = (s) => s.replace(/[\s-]+/g, '');

/** What the printed settings must say for `config` and `preset`: each label and value, as the form shows them. */
function expectedSettings(config, preset) {
  const p = CLAIM_BY_ID[preset];
  const text = (c, v) => {
    if (c.kind === 'choice_list') return v.map((k) => ARCHS.find((a) => a.key === k).label).join(', ');
    if (c.names) return c.names[v];
    if (c.kind === 'real') {
      const t = v.toFixed(c.digits ?? 2);
      return Number(t) === v ? t : String(v);
    }
    return String(v);
  };
  return [
    ...(p ? [`Paper claim ${p.title} (${p.cite})`, `Runs ${p.runs.map((r) => r.label).join('; ')}`] : []),
    ...TRAIN_KEYS.filter((k) => fieldApplies(TRAIN_TABLE[k], config)).map(
      (k) => `${TRAIN_TABLE[k].label} ${text(TRAIN_TABLE[k], config[k])}`,
    ),
  ];
}

/** Start, then every run done (with its verdict, for a claim) and drawn. */
async function trainToEnd(page, preset) {
  await page.click('#train-start');
  await page.waitForFunction(
    (p) => window.__resnormTrain?.state === 'done' && (p === 'none' || window.__resnormTrain.verdict),
    preset,
    { timeout: 20 * 60000 },
  );
  await labDrawn(page);
}

/** The screen's look: its theme and the loss chart's width. */
const screenLook = (page) =>
  page.evaluate(() => ({
    theme: document.documentElement.dataset.theme,
    width: document.querySelector('#train-chart-loss canvas').getBoundingClientRect().width,
  }));

/** Waits until the page looks as `screen` (screenLook) again: its theme, the loss chart's width. */
const screenAgain = (page, screen) =>
  page.waitForFunction(
    (s) =>
      document.documentElement.dataset.theme === s.theme &&
      document.querySelector('#train-chart-loss canvas').getBoundingClientRect().width === s.width,
    screen,
  );

/** Under print media: where every line chart and heatmap is drawn, what is visible, what the charts span. */
const printedLayout = (page) =>
  page.evaluate(() => {
    const rect = (e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
    };
    const inked = (canvas) => {
      const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
      return n / (canvas.width * canvas.height);
    };
    const hook = window.__resnormTrain;
    return {
      theme: document.documentElement.dataset.theme,
      body: getComputedStyle(document.body).backgroundColor,
      left: document.querySelector('main').getBoundingClientRect().left,
      row: ['lr', 'logit', 'gain'].filter((key) => !document.getElementById(`train-figure-${key}`).hidden),
      block: hook.config.block,
      archs: Object.values(hook.runs).map((r) => r.arch),
      charts: ['loss', 'grad', 'lr', 'logit', 'gain']
        .filter((key) => !document.getElementById(`train-figure-${key}`).hidden)
        .map((key) => {
          const box = document.getElementById(`train-chart-${key}`);
          const canvas = box.querySelector('canvas');
          return {
            key,
            box: rect(box),
            canvas: rect(canvas),
            plot: rect(box.querySelector('.u-over')),
            inked: inked(canvas),
            lastStep: hook.plotted[key].x.at(-1),
            xRange: hook.plotted[key].xRange,
          };
        }),
      maps: [...document.querySelectorAll('.heatmap')].map((box) => {
        const canvas = box.querySelector('canvas');
        return { box: rect(box), canvas: rect(canvas), inked: inked(canvas) };
      }),
      controls: [
        ...document.querySelectorAll('button, input, select, textarea, summary, progress, a[href], [role="button"]'),
      ]
        .filter((e) => e.checkVisibility())
        .map((e) => e.outerHTML.slice(0, 120)),
      runs: Object.keys(hook.runs).length,
      steps: hook.config.steps,
      caption: document.getElementById('train-paper-caption')?.textContent ?? '',
      badge: document.querySelector('#train-paper .verdict-badge')?.textContent ?? null,
    };
  });

/** Checks the printed text of a lab printout: its order, its settings, no chrome. */
function checkText(pages, { config, preset, caption, badge, hash }) {
  const text = squash(pages.join(' '));
  assert.ok(
    squash(pages[0]).startsWith('resnorm: the training lab The same stacks as the explorer, now trained'),
    `the title and the introduction first:\n${pages[0].slice(0, 300)}`,
  );
  const p = CLAIM_BY_ID[preset];
  const order = [
    'resnorm: the training lab',
    'The same stacks as the explorer',
    'Settings',
    'Loss',
    'Gradient norm',
    'Learning rate',
    ...(p ? [`${p.title}: ${p.paper}`, 'Claim:'] : []),
    'Gradient norm per layer and step',
    'Update ratio per block and step',
  ];
  // flat: a title the page breaks at a hyphen ("Hyper-" then "Connections") reads the same
  let at = -1;
  for (const part of order) {
    const next = flat(text).indexOf(flat(part), at + 1);
    assert.ok(next > at, `"${part}" after the parts before it`);
    at = next;
  }
  for (const line of expectedSettings(config, preset)) assert.ok(flat(text).includes(flat(line)), `setting: ${line}`);
  assert.ok(flat(text).includes(flat(`train.html#${hash}`)), 'the link to these settings');
  assert.match(text, new RegExp(`Step ${config.steps} \\(the latest\\)`));
  if (p) {
    assert.ok(text.includes(`${badge} ${p.claim.slice(0, 40)}`), `the verdict: ${badge}`);
    assert.ok(caption && flat(text).includes(flat(caption)), `the caption as on screen:\n${caption}`);
  }
  const chrome = CHROME.exec(text);
  assert.equal(chrome, null, `printed: ${chrome?.[0]}`);
}

async function done(page) {
  assert.deepEqual(page.problems, [], page.problems.join('\n'));
  await page.context().close();
}

for (const c of CASES)
  test(`the lab prints on at most ${c.pages ?? 2} ${c.format ?? 'A4'} pages, nothing cut, no control (${c.name})`, () =>
    served({ csp: SITE_CSP }, async (url) => {
      const { config, preset } = trainFromHash(`#${c.hash}`);
      const page = await openPage(it.browser, `${url}train.html#${c.hash}`, c.dark ? { colorScheme: 'dark' } : {});
      // the printed parts are not on screen
      assert.equal(await page.locator('.print-title').isVisible(), false);
      assert.equal(await page.locator('#train-print-settings').isVisible(), false);
      await trainToEnd(page, preset);
      const screen = await screenLook(page);
      assert.equal(screen.theme, c.dark ? 'dark' : 'light');

      await page.emulateMedia({ media: 'print' });
      await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
      await labDrawn(page);
      await layoutSettled(page, '#lab');
      const shown = await printedLayout(page);
      const sizes = labPrintSizes(shown.runs, shown.row);
      // with transformer blocks the largest logit beside the learning rate; the gain with HC or mHC
      assert.deepEqual(shown.row, [
        'lr',
        ...(shown.block === 'transformer' ? ['logit'] : []),
        ...(shown.archs.some((a) => a === 'hyper' || a === 'mhc') ? ['gain'] : []),
      ]);
      const right = shown.left + sizes.width + 0.5;
      assert.equal(shown.theme, 'light');
      assert.equal(shown.body, 'rgb(255, 255, 255)');
      assert.deepEqual(shown.controls, [], 'no control on paper');
      assert.deepEqual(await overlaps(page), [], 'no text over another');
      for (const ch of shown.charts) {
        const want = sizes.charts[ch.key];
        const what = `${ch.key} chart: ${JSON.stringify(ch)}`;
        assert.equal(ch.canvas.width, want.width, `${what}: drawn at the printed width`);
        assert.equal(ch.canvas.height, want.height, `${what}: drawn at the printed height`);
        assert.ok(ch.canvas.left >= shown.left - 0.5 && ch.canvas.right <= right, `${what}: inside the page`);
        assert.ok(ch.canvas.right <= ch.box.right + 0.5 && ch.canvas.bottom <= ch.box.bottom + 0.5, `${what}: not cut`);
        assert.ok(ch.plot.right <= right, `${what}: its plot inside the page`);
        // the step axis runs to the last step, drawn inside the plot, so the last point is on the page
        assert.equal(ch.lastStep, shown.steps, what);
        assert.ok(ch.xRange[0] === 0 && ch.xRange[1] >= ch.lastStep, `${what}: the axis reaches the last step`);
        assert.ok(ch.inked > 0.01, `${what}: drawn`);
      }
      assert.equal(shown.maps.length, 2 * shown.runs, 'a heatmap per run and metric');
      for (const m of shown.maps) {
        const what = `heatmap: ${JSON.stringify(m)}`;
        assert.equal(m.canvas.width, sizes.heat.width, `${what}: drawn at the printed width`);
        assert.equal(m.canvas.height, sizes.heat.height, `${what}: drawn at the printed height`);
        assert.ok(m.canvas.right <= m.box.right + 0.5 && m.canvas.bottom <= m.box.bottom + 0.5, `${what}: not cut`);
        assert.ok(m.canvas.left >= shown.left - 0.5 && m.canvas.right <= right, `${what}: inside the page`);
        assert.ok(m.inked > 0.2, `${what}: drawn`);
      }

      const pdf = await printToPdf(page, `lab-${c.name}`, c.format ?? 'A4');
      const pages = pageTexts(pdf);
      assert.ok(pages.length <= (c.pages ?? 2), `${c.name}: ${pages.length} pages`);
      // a page past the second holds maps only: it starts at a metric's title, the verdict and charts before it
      for (const more of pages.slice(2))
        assert.match(
          squash(more),
          /^(Gradient norm per layer and step|Update ratio per block and step) /,
          'a third page of maps',
        );
      checkText(pages, { config, preset, caption: shown.caption, badge: shown.badge, hash: c.hash });
      for (let n = 1; n <= pages.length; n++) assert.ok(lightPaper(pdf, n), `page ${n}: ${darkShare(pdf, n)}`);

      // after the print: the screen's theme and sizes again
      await page.emulateMedia({ media: 'screen' });
      await screenAgain(page, screen);
      await done(page);
    }));

// page.pdf() alone, as Ctrl+P: the page hears beforeprint and afterprint, no print media emulated.
test('the lab in the dark theme printed as Ctrl+P does: the Warmup claim on at most two light pages, then dark again', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = 'preset=warmup';
    const { config, preset } = trainFromHash(`#${hash}`);
    const page = await openPage(it.browser, `${url}train.html#${hash}`, { colorScheme: 'dark' });
    await trainToEnd(page, preset);
    const screen = await screenLook(page);
    const verdict = await page.evaluate(() => ({
      caption: document.getElementById('train-paper-caption').textContent,
      badge: document.querySelector('#train-paper .verdict-badge').textContent,
    }));
    const pdf = await printToPdf(page, 'lab-ctrl-p-dark', 'A4');
    assert.ok(pageCount(pdf) <= 2, `${pageCount(pdf)} pages`);
    checkText(pageTexts(pdf), { config, preset, ...verdict, hash });
    for (let n = 1; n <= pageCount(pdf); n++) assert.ok(lightPaper(pdf, n), `page ${n}: ${darkShare(pdf, n)}`);
    await screenAgain(page, screen);
    await done(page);
  }));
