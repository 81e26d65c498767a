// Where a host page strips the sizing script, an iframe keeps the height its
// snippet gives it. In Debian's Chromium, each iframe snippet of the explorer
// and of the training lab sits in a column of every width the Embed dialogs
// offer (web/src/embed/heights.js), with the height the dialog writes for
// that width: the whole embed shows (no scrollbar inside, the content no
// taller than the iframe) and at most a modest margin is left empty. The lab is
// measured in its tallest state: every run finished (its final state, waited
// for, never timed), the preset's verdict, the lesion charts. A case that
// fails after a change to the embeds' layout: run scripts/embed-heights.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { labDrawn, served, useBrowser } from './harness.js';
import { parseHash } from '../../web/src/shared/state.js';
import { iframeSnippet, trainIframeSnippet } from '../../web/src/embed/snippets.js';
import { trainEmbedFromHash } from '../../web/src/embed/train-view.js';
import { COLUMN_WIDTHS } from '../../web/src/embed/heights.js';
import { settled } from '../../scripts/embed-heights.js';

const it = useBrowser();

/** The most a snippet's height may leave empty under its embed: 80 px (three lines of text), or 6% of a tall one. */
const slack = (content) => Math.max(80, Math.round(0.06 * content));

/** The height a snippet writes. */
const heightOf = (snippet) => Number(/ height="(\d+)"/.exec(snippet)[1]);

/**
 * A host page (about:blank, no script of ours) with the iframe of `snippet` in a column; returns
 * the page and the embed's frame once it has drawn.
 */
async function hostPage(context, snippet) {
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && page.problems.push(m.text()));
  const iframe = snippet.split('\n')[0].replace(' loading="lazy"', '');
  await page.setContent(`<!doctype html><body style="margin:0"><div id="column">${iframe}</div></body>`);
  const frame = await (await page.$('iframe')).contentFrame();
  await frame.waitForURL(/embed\.html/);
  await frame.waitForFunction(() => document.body.dataset.ready === '1');
  return { page, frame };
}

/** The column `width` px wide and the iframe `height` px tall; then what shows inside. */
async function inColumn(page, frame, width, height) {
  await page.evaluate(
    ([w, h]) => {
      document.getElementById('column').style.width = `${w}px`;
      document.querySelector('iframe').height = String(h);
    },
    [width, height],
  );
  await frame.waitForFunction(([w, h]) => innerWidth === w && innerHeight === h, [width, height]);
  await settled(frame);
  return frame.evaluate(() => ({
    content: Math.ceil(document.getElementById('embed').getBoundingClientRect().height),
    scroll: document.documentElement.scrollHeight,
    client: document.documentElement.clientHeight,
  }));
}

/**
 * Where the readout's and the caption's texts are not known (the papers page's dialog: the panel's
 * setting is not on screen), each row and sentence counts at its largest measured (a note under a
 * readout row, the longest sentence), so the iframe may keep up to two fifths of it empty.
 */
const looseSlack = (content) => Math.max(80, Math.round(0.4 * content));

/** Every width's row of `rows` holds its embed: no scrollbar, the content fits, at most `most(content)` left empty. */
function assertFits(t, name, rows, most = slack) {
  for (const r of rows)
    t.diagnostic(
      `${name} at ${r.width} px: content ${r.content} px, snippet ${r.height} px (${r.height - r.content} px empty)`,
    );
  for (const { width, height, content, scroll, client } of rows) {
    const at = `${name} at ${width} px`;
    assert.equal(client, height, `${at}: the iframe's inside is the snippet's height`);
    assert.ok(scroll <= client, `${at}: a scrollbar at ${height} px (content ${scroll} px)`);
    assert.ok(content <= height, `${at}: content ${content} px is taller than the snippet's ${height} px`);
    assert.ok(
      height - content <= most(content),
      `${at}: ${height - content} px empty under ${content} px of content (at most ${most(content)})`,
    );
  }
}

// The explorer: charts, controls, caption and architectures in many mixes.
const EXPLORER_VIEWS = [
  ['one chart', 'charts=grad&controls=none&caption=false'],
  ['three charts', 'controls=none&caption=false'],
  ['one chart, controls depth,gain,seed', 'charts=grad&controls=depth,gain,seed&caption=false'],
  ['one chart, controls arch', 'charts=grad&controls=arch&caption=false'],
  ['one chart, caption, two architectures', 'charts=grad&controls=none&arch=post_ln,pre_ln&depth=48'],
  ['three charts, caption, one architecture', 'controls=none&arch=pre_ln&depth=12'],
  ['one chart, controls arch,depth,gain, caption', 'charts=grad'],
  ['newer presets, controls arch,depth,gain', 'arch=rezero,layerscale,lns,mix_ln&depth=40'],
  ['three charts, all controls, caption', 'controls=all'],
  ['the defaults', ''],
];

test('the explorer\u2019s iframe snippet holds the whole embed at every column width the dialog offers', (t) =>
  served({}, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1400, height: 900 } });
    for (const [name, hash] of EXPLORER_VIEWS) {
      const { config, view } = parseHash(`#${hash}`, { groups: ['config', 'view'] });
      const { page, frame } = await hostPage(context, iframeSnippet({ siteUrl: url, config, view }));
      // the readout's notes and the caption's text, as the explorer page's dialog reads them from its
      // own explorer of the same config (the view's textShown())
      const shown = await frame.evaluate(() => {
        const root = document.getElementById('embed').shadowRoot;
        const caption = root.querySelector('.caption');
        const rows = [...root.querySelectorAll('.readout tr[data-arch]')];
        return {
          notes: Object.fromEntries(rows.map((r) => [r.dataset.arch, r.querySelector('.same-as')?.textContent ?? ''])),
          lead: caption?.querySelector('.caption-lead').textContent ?? '',
          archs: Object.fromEntries(
            [...(caption?.querySelectorAll('li[data-arch]') ?? [])].map((li) => [li.dataset.arch, li.textContent]),
          ),
        };
      });
      // the explorer page's snippet (with those texts) and the papers page's (without: each row and
      // sentence at its largest measured, so a looser margin)
      for (const [what, texts, most] of [
        ['', shown, slack],
        [' (texts not known)', null, looseSlack],
      ]) {
        const rows = [];
        for (const width of COLUMN_WIDTHS) {
          const height = heightOf(iframeSnippet({ siteUrl: url, config, view, width, shown: texts }));
          rows.push({ width, height, ...(await inColumn(page, frame, width, height)) });
        }
        assertFits(t, name + what, rows, most);
      }
      assert.deepEqual(page.problems, [], name);
      await page.close();
    }
    await context.close();
  }));

// The lab: the Warmup preset with its settings fixed, the reader's own runs with every setting, a
// few settings, none; ReZero's gates. Tiny runs (a second each) where the case is not a preset.
const TINY = 'task=copy&seq=2&vocab=4&depth=2&width=16&heads=2&batch=4&steps=12&log_every=2';
const LAB_VIEWS = [
  ['the Warmup preset, settings fixed', 'preset=warmup&controls=warmup,preset'],
  ['own runs, every setting', TINY],
  [
    'own runs, three, six settings',
    `${TINY}&arch=post_ln,pre_ln,sandwich&controls=task,arch,depth,lr,warmup,steps&lock=task,arch`,
  ],
  ['ReZero at 6 MLP blocks, no setting', `${TINY}&arch=rezero,plain&block=mlp&depth=6&controls=none`],
];

test('the lab\u2019s iframe snippet holds the lab with every run finished at every column width the dialog offers', (t) =>
  served({}, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1400, height: 900 } });
    for (const [name, hash] of LAB_VIEWS) {
      const { train, lab, view } = trainEmbedFromHash(`#mode=train&${hash}`);
      const snippets = COLUMN_WIDTHS.map((width) =>
        trainIframeSnippet({ siteUrl: url, config: train, view, preset: lab.preset, width }),
      );
      const { page, frame } = await hostPage(context, snippets.at(-1));
      // every run to its end: the tallest the lab gets
      await frame.locator('#embed #train-start').click();
      await frame.waitForFunction(() => window.__resnormTrain?.state === 'done');
      await labDrawn(frame);
      const rows = [];
      for (const [i, width] of COLUMN_WIDTHS.entries())
        rows.push({
          width,
          height: heightOf(snippets[i]),
          ...(await inColumn(page, frame, width, heightOf(snippets[i]))),
        });
      assertFits(t, name, rows);
      assert.deepEqual(page.problems, [], name);
      await page.close();
    }
    await context.close();
  }));
