// The papers page's Embed buttons (web/src/papers/embed-views.js, the shared Embed dialog): each
// panel's iframe snippet, loaded, draws the explorer with the panel's config and charts; its
// element snippet does the same on a host page; DeepNet's and LayerScale's, the panels whose
// figures are explorer views, draw the panel's own numbers, and DenseFormer's those of its first
// chart; the others say they are the nearest view.
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, pageIn, useBrowser } from './harness.js';
import { useSiteCopy } from './site-copy.js';
import { PANEL_IDS, PANELS, spread } from '../../web/src/papers/repro.js';
import { panelEmbed } from '../../web/src/papers/embed-views.js';
import { fmtPlain } from '../../web/src/shared/format.js';

const env = useBrowser();
const site = useSiteCopy({ base: '/course/' });

const srcOf = (snippet) => /<iframe src="([^"]+)"/.exec(snippet)[1].replaceAll('&amp;', '&');

async function papersPage(context) {
  const page = await pageIn(context, `${site.url}papers.html`, { ready: false });
  await page.waitForFunction(() => window.__papers?.ready);
  return page;
}

/** Opens panel `id`'s Embed dialog and returns its two snippets and its note. */
async function embedOf(page, id) {
  await page.locator(`[data-embed="${id}"]`).click();
  const dialog = page.locator('dialog.embed-dialog:has(#view-embed-iframe)');
  await dialog.waitFor();
  const out = {
    title: await dialog.locator('h2').textContent(),
    note: await page.locator('#view-embed-note').textContent(),
    iframe: await page.locator('#view-embed-iframe').inputValue(),
    element: await page.locator('#view-embed-element').inputValue(),
  };
  await page.keyboard.press('Escape');
  assert.equal(await dialog.isVisible(), false);
  return out;
}

/** The explorer embed at `url`: its config, its charts and what it plotted. */
async function loadEmbed(context, url) {
  const page = await pageIn(context, url);
  const out = await page.evaluate(() => ({
    config: window.__resnorm.config,
    plotted: window.__resnorm.plotted,
    charts: document.getElementById('embed').shadowRoot.querySelectorAll('.chart canvas').length,
    controls: [...document.getElementById('embed').shadowRoot.querySelectorAll('.controls input')].map((i) => i.type),
  }));
  assert.deepEqual(page.problems, []);
  await page.close();
  return out;
}

test('every panel\u2019s Embed snippets draw the explorer with the panel\u2019s config and charts', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await papersPage(context);
  assert.equal(await page.locator('[data-embed]').count(), PANEL_IDS.length);
  const elements = [];
  for (const id of PANEL_IDS) {
    const want = panelEmbed(id, PANELS[id].defaults);
    const got = await embedOf(page, id);
    assert.equal(got.title, `Embed: ${PANELS[id].title}`);
    if (want.exact) assert.match(got.note, /^This is the panel’s figure/, id);
    else assert.match(got.note, /^Not the panel’s figure: the nearest explorer view of its setting\./, id);
    assert.ok(srcOf(got.iframe).startsWith(`${site.url}embed.html#`), `${id}: the snippet keeps the sub-path`);
    assert.match(got.iframe, new RegExp(`<script src="${site.url}resnorm-iframe\\.js" defer></script>$`));
    const shown = await loadEmbed(context, srcOf(got.iframe));
    assert.deepEqual(shown.config, want.config, `${id}: the embed's config`);
    assert.equal(shown.charts, want.charts.length, `${id}: charts`);
    assert.deepEqual(Object.keys(shown.plotted).sort(), [...want.charts].sort(), `${id}: plotted charts`);
    assert.deepEqual(shown.controls, ['range', 'number'], `${id}: the depth control`);
    // layers 0..L, or blocks 1..L on the update chart
    for (const chart of want.charts)
      for (const arch of want.config.arch)
        assert.equal(
          shown.plotted[chart].series[arch].length,
          want.config.depth + (chart === 'update' ? 0 : 1),
          `${id} ${chart} ${arch}`,
        );
    // DeepNet's embed is the panel's figure: its numbers are the panel's
    if (id === 'deepnet') {
      const rows = await page.evaluate(() => window.__papers.results.deepnet.rows);
      for (const arch of ['deepnorm', 'post_ln'])
        for (const [chart, metric] of [
          ['grad', 'grad_norm'],
          ['stream', 'stream_rms'],
        ]) {
          const panel = rows.find((r) => r.key === `${arch}_${metric}`).value;
          const embed = spread(shown.plotted[chart].series[arch]);
          assert.ok(Math.abs(embed / panel - 1) < 1e-9, `${arch} ${metric}: embed ${embed}, panel ${panel}`);
        }
    }
    // and so is LayerScale's: its update ratios over eps (0.1 at 12 blocks) are the panel's
    if (id === 'layerscale') {
      const rows = await page.evaluate(() => window.__papers.results.layerscale.rows);
      const panel = rows.find((r) => r.key === 'ls_about_eps').value;
      const embed = Math.max(...shown.plotted.update.series.layerscale.map((v) => Math.max(v / 0.1, 0.1 / v)));
      assert.ok(Math.abs(embed / panel - 1) < 1e-9, `layerscale: embed ${embed}, panel ${panel}`);
    }
    // DenseFormer's first chart is the embed's gradient chart: the panel's table of its numbers is the embed's
    if (id === 'dwa') {
      const table = await page.evaluate(() =>
        [...document.querySelectorAll('[data-panel="dwa"] .data-table tbody tr')].map((tr) =>
          [...tr.querySelectorAll('td')].map((td) => td.textContent),
        ),
      );
      const embed = shown.plotted.grad.series;
      assert.deepEqual(
        table,
        embed.pre_ln.map((v, l) => [fmtPlain(v), fmtPlain(embed.dwa[l])]),
      );
    }
    elements.push([id, want, got.element]);
  }
  // the element snippets, all on one host page of the site's origin
  writeFileSync(
    join(site.dir, 'examples', 'papers-elements.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>papers</title><link rel="icon" href="data:,"></head><body>\n${elements
      .map(([id, , snippet]) => `<section id="${id}">\n${snippet}\n</section>`)
      .join('\n')}\n</body></html>`,
  );
  const host = await pageIn(context, `${site.url}examples/papers-elements.html`, { ready: false });
  await host.waitForFunction(() => [...document.querySelectorAll('resnorm-explorer')].every((e) => e.snapshot));
  for (const [id, want] of elements) {
    const snap = await host.evaluate((s) => {
      const e = document.querySelector(`#${s} resnorm-explorer`);
      return { config: e.snapshot.config, plotted: Object.keys(e.snapshot.plotted) };
    }, id);
    assert.deepEqual(snap.config, want.config, `${id}: the element's config`);
    assert.deepEqual(snap.plotted.sort(), [...want.charts].sort(), `${id}: the element's charts`);
  }
  assert.deepEqual(host.problems, []);
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('the snippet follows the panel\u2019s settings and the dialog\u2019s choices; by keyboard, at 360 px, dark', async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 780 }, colorScheme: 'dark' });
  const page = await papersPage(context);
  const renders = await page.evaluate(() => window.__papers.renders);
  await page.locator('#deepnet-depth').selectOption('200');
  await page.waitForFunction(
    (n) => window.__papers.renders > n && window.__papers.results.deepnet.params.depth === 200,
    renders,
  );
  const button = page.locator('[data-embed="deepnet"]');
  await button.focus();
  await page.keyboard.press('Enter');
  const dialog = page.locator('dialog.embed-dialog:has(#view-embed-iframe)');
  await dialog.waitFor();
  const fit = await page.evaluate(() => {
    const d = document.querySelector('dialog:has(#view-embed-iframe)');
    const r = d.getBoundingClientRect();
    return { page: document.documentElement.scrollWidth, inner: d.scrollWidth - d.clientWidth, right: r.right };
  });
  assert.ok(fit.page <= 360 && fit.inner === 0 && fit.right <= 360, JSON.stringify(fit));
  await page.screenshot({ path: `${SHOTS}/papers-embed-phone-dark.png` });
  let iframe = await page.locator('#view-embed-iframe').inputValue();
  const want = panelEmbed('deepnet', { ...PANELS.deepnet.defaults, depth: 200 });
  assert.equal(want.config.depth, 200);
  // the theme and the depth control, chosen by keyboard
  await page.locator('#view-embed-theme').focus();
  await page.keyboard.press('ArrowDown'); // light
  await page.locator('#view-embed-depth').focus();
  await page.keyboard.press('Space');
  iframe = await page.locator('#view-embed-iframe').inputValue();
  assert.match(srcOf(iframe), /[#&]depth=200&/);
  assert.match(srcOf(iframe), /&controls=none&theme=light$/);
  assert.match(await page.locator('#view-embed-element').inputValue(), / controls="none" theme="light">/);
  await page.keyboard.press('Escape');
  assert.equal(await dialog.isVisible(), false);
  assert.equal(await page.evaluate(() => document.activeElement.dataset.embed), 'deepnet');
  const shown = await loadEmbed(context, srcOf(iframe));
  assert.deepEqual(shown.config, want.config);
  assert.deepEqual(shown.controls, []);
  assert.deepEqual(page.problems, []);
  await context.close();
});
