// Embedding and static hosting, in Debian's Chromium: host pages with the
// iframe and the custom elements under the strict CSP (on the site's
// server and on another port), shadow-DOM isolation, one shared worker, the
// Embed dialog's snippets, the exports, and offline use through the service
// worker (and its update on a new build).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, SHOTS, SITE_CSP, downloadBytes, launch, pageIn, swReady, waitForRender } from './harness.js';
import { startServer } from '../../scripts/serve.js';
import { serviceWorkerSource } from '../../web/build/site-plugin.js';
import { configFromHash, configToHash, defaultConfig, parseHash } from '../../web/src/shared/state.js';
import { explorerHeight } from '../../web/src/embed/heights.js';
import { loadWasm } from '../node/helpers.js';

const CSP = SITE_CSP;
const BASE = '/course/week-3/';

let browser;
let rn;
let copy; // a copy of the build, with host pages added
const servers = [];

before(async () => {
  for (const f of ['resnorm-embed.js', 'sw.js', 'embed.html', 'resnorm-iframe.js', 'examples/plain.html'])
    assert.ok(existsSync(join(DIST, f)), `${DIST}/${f} is missing: is sitePlugin() in vite.config.js's plugins?`);
  copy = mkdtempSync(join(tmpdir(), 'resnorm-site-'));
  cpSync(DIST, copy, { recursive: true });
  browser = await launch();
  rn = await loadWasm();
});
after(async () => {
  for (const s of servers) await new Promise((ok) => s.close(ok));
  await browser?.close();
  rmSync(copy, { recursive: true, force: true });
});

async function serveDir(root, { base = BASE, csp = CSP, headers = {}, port = 0 } = {}) {
  const server = await startServer({ port, root, base, csp, headers });
  servers.push(server);
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    url: origin + base,
    port: server.address().port,
    close: () =>
      new Promise((ok) => {
        servers.splice(servers.indexOf(server), 1);
        server.close(ok);
        server.closeAllConnections?.();
      }),
  };
}

// A context whose every frame records CSP violations; pages record console problems.
async function newContext(options = {}) {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    ...options,
  });
  await context.addInitScript(() => {
    window.__csp = [];
    const note = (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile || ''}:${e.lineNumber || ''}`);
    window.addEventListener('securitypolicyviolation', note, true);
  });
  return context;
}
const open = (context, url) => pageIn(context, url, { ready: false });
async function violations(page) {
  const out = [];
  for (const f of page.frames()) out.push(...(await f.evaluate(() => window.__csp ?? []).catch(() => [])));
  return out;
}
/** No CSP violation in any frame of `page`, no console error or warning. */
async function assertClean(page) {
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(page.problems, []);
}
/** Closes contexts and servers, removes folders (given as paths), in order. */
async function closeAll(...things) {
  for (const t of things) {
    if (typeof t === 'string') rmSync(t, { recursive: true, force: true });
    else await t.close();
  }
}
const ready = (frame) => frame.waitForFunction(() => document.body?.dataset.ready === '1');
const elementReady = (page, selector) =>
  page.waitForFunction((s) => {
    const els = [...document.querySelectorAll(s)];
    return els.length > 0 && els.every((e) => e.snapshot);
  }, selector);
const frameOf = (page, part) => page.frames().find((f) => f.url().includes(part));

test('a host page at /course/week-3/ with the iframe and two custom elements, under the strict CSP', async () => {
  const site = await serveDir(copy);
  const context = await newContext();
  const page = await open(context, `${site.url}examples/plain.html`);
  // the iframe: renders, and reports its height
  const iframe = page.locator('iframe[data-resnorm]');
  await page.waitForFunction(() => document.querySelector('iframe[data-resnorm]').height !== '520');
  const frame = frameOf(page, 'embed.html');
  await ready(frame);
  const reported = await frame.evaluate(() =>
    Math.ceil(document.getElementById('embed').getBoundingClientRect().height),
  );
  await page.waitForFunction((h) => Number(document.querySelector('iframe[data-resnorm]').height) === h, reported);
  const box = await iframe.boundingBox();
  assert.ok(Math.abs(box.height - reported) <= 3, `iframe ${box.height}px, content ${reported}px`);
  assert.equal(
    await frame.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight + 1),
    true,
    'the iframe scrolls',
  );
  // the custom elements: the explorer renders with its attributes, the quiz shows its first item
  await elementReady(page, 'resnorm-explorer');
  await page.waitForFunction(() => document.querySelector('resnorm-quiz')?.snapshot?.quiz);
  const el = await page.evaluate(() => {
    const e = document.querySelector('resnorm-explorer');
    const root = e.shadowRoot;
    const q = document.querySelector('resnorm-quiz');
    return {
      config: e.snapshot.config,
      plotted: e.snapshot.plotted,
      charts: root.querySelectorAll('.chart canvas').length,
      locked: root.querySelector('input[type=range]:disabled')?.id,
      quiz: q.snapshot.quiz,
      quizText: q.shadowRoot.querySelector('.quiz-prompt').textContent,
    };
  });
  assert.deepEqual(el.config.arch, ['post_ln', 'pre_ln']);
  assert.equal(el.config.depth, 48);
  assert.equal(el.charts, 2);
  assert.match(el.locked, /gain$/);
  assert.deepEqual(el.quiz.items, ['tf-01', 'tf-02', 'why-03', 'err-01', 'rapid-02']);
  assert.match(el.quizText, /Residual connections make the network deeper/);
  // the numbers are the engine's
  const api = rn.simulate(el.config);
  for (const arch of el.config.arch)
    assert.deepEqual(
      el.plotted.grad.series[arch],
      Array.from(api.results[arch].grad_norm, (v) => (Number.isFinite(v) ? v : null)),
    );
  // shadow DOM: the host's CSS stays out, the embed's stays in
  const css = await page.evaluate(() => {
    const root = document.querySelector('resnorm-explorer').shadowRoot;
    const probe = document.createElement('div');
    probe.className = 'notice readout chart-title';
    document.body.append(probe);
    const s = getComputedStyle(probe);
    const out = {
      inButton: getComputedStyle(root.querySelector('button')).backgroundColor,
      inFont: getComputedStyle(root.querySelector('.chart-title')).fontFamily,
      inChart: root.querySelector('.chart').getBoundingClientRect().height,
      hostP: getComputedStyle(document.querySelector('p')).color,
      probe: [s.backgroundColor, s.paddingTop, s.fontWeight],
    };
    probe.remove();
    return out;
  });
  assert.notEqual(css.inButton, 'rgb(255, 0, 204)', 'the host\u2019s button style leaked in');
  assert.doesNotMatch(css.inFont, /Georgia/);
  assert.ok(css.inChart > 150, `the host's .chart height leaked in: ${css.inChart}`);
  assert.equal(css.hostP, 'rgb(51, 51, 51)');
  assert.deepEqual(css.probe, ['rgba(0, 0, 0, 0)', '0px', '400'], 'the embed\u2019s styles leaked out');
  // nothing was added to the host page's document: no <style>, no <link>, no script
  assert.deepEqual(
    await page.evaluate(() =>
      [...document.querySelectorAll('link, style, script')].map(
        (e) => e.getAttribute('href') ?? e.getAttribute('src') ?? e.localName,
      ),
    ),
    ['data:,', 'example.css', '../resnorm-embed.js', '../resnorm-iframe.js'],
  );
  // one pool of workers for both custom elements, not one each (the iframe has its own page, hence its own)
  const [workers, pool] = await page.evaluate(() => [
    performance.getEntriesByType('resource').filter((e) => /\/assets\/worker-[^/]*\.js$/.test(e.name)).length,
    Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 4)),
  ]);
  assert.equal(workers, pool);
  await assertClean(page);
  await page.screenshot({ path: `${SHOTS}/embed-host-page.png`, fullPage: true });
  await context.close();
  await site.close();
});

test('two explorers on one page share one pool of workers, keep their own numbers and cursors', async () => {
  writeFileSync(
    join(copy, 'examples', 'two.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>two</title><link rel="icon" href="data:,">
<script type="module" src="../resnorm-embed.js"></script></head><body>
<resnorm-explorer id="a" arch="plain,pre_ln" depth="30" gain="0.8" charts="grad" controls="depth"></resnorm-explorer>
<resnorm-explorer id="b" arch="post_ln" depth="64" seed="7" charts="stream,update" controls="none" theme="dark"></resnorm-explorer>
</body></html>`,
  );
  const site = await serveDir(copy);
  const context = await newContext();
  const page = await open(context, `${site.url}examples/two.html`);
  await elementReady(page, 'resnorm-explorer');
  const [a, b] = await page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).snapshot));
  for (const snap of [a, b]) {
    const api = rn.simulate(snap.config);
    for (const [m, key] of [
      ['grad', 'grad_norm'],
      ['stream', 'stream_rms'],
      ['update', 'update_ratio'],
    ]) {
      if (!snap.plotted[m]) continue;
      for (const arch of snap.config.arch)
        assert.deepEqual(
          snap.plotted[m].series[arch],
          Array.from(api.results[arch][key], (v) => (Number.isFinite(v) ? v : null)),
        );
    }
  }
  assert.equal(a.config.depth, 30);
  assert.equal(b.config.seed, 7);
  assert.deepEqual(Object.keys(b.plotted), ['stream', 'update']);
  // moving one never moves the other
  const before = await page.evaluate(() => document.getElementById('b').snapshot.renders);
  await page.evaluate(() => {
    const r = document.getElementById('a').shadowRoot.querySelector('input[type=range]');
    r.value = '20';
    r.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForFunction(() => document.getElementById('a').snapshot.config.depth === 20);
  // A second step of a: the pool serves requests in the order they were asked, so a request b
  // made on a's first step would have been drawn before a's second step is.
  await page.evaluate(() => {
    const r = document.getElementById('a').shadowRoot.querySelector('input[type=range]');
    r.value = '21';
    r.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForFunction(() => document.getElementById('a').snapshot.config.depth === 21);
  assert.equal(await page.evaluate(() => document.getElementById('b').snapshot.renders), before);
  // one pool for both explorers (the page's poolSize(): one worker per core, at most 4)
  const pool = await page.evaluate(() => Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 4)));
  assert.equal(page.workers().length, pool);
  await assertClean(page);
  await context.close();
  await site.close();
});

test('the Embed button writes snippets; a host page on another port runs the iframe snippet under its own strict CSP', async () => {
  const site = await serveDir(copy);
  const context = await newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await open(context, site.url);
  await ready(page);
  let renders = await page.evaluate(() => window.__resnorm.renders);
  await page.locator('#depth-number').fill('30');
  await waitForRender(page, { depth: 30 }, renders);
  await page.locator('#embed-button').click();
  await page.locator('#embed-mode-gain').selectOption('fixed');
  await page.locator('#embed-mode-arch').selectOption('hidden');
  await page.locator('#embed-chart-stream').uncheck();
  await page.locator('#embed-chart-update').uncheck();
  const iframeSnippet = await page.locator('#embed-iframe').inputValue();
  const elementSnippet = await page.locator('#embed-element').inputValue();
  await page.screenshot({ path: `${SHOTS}/embed-dialog.png` });
  assert.match(iframeSnippet, /embed\.html#depth=30&amp;charts=grad&amp;controls=depth,gain&amp;lock=gain"/);
  assert.match(iframeSnippet, /<script src="[^"]+\/course\/week-3\/resnorm-iframe\.js" defer><\/script>/);
  assert.match(
    elementSnippet,
    /<resnorm-explorer depth="30" charts="grad" controls="depth,gain" lock="gain">\n {2}<p>Loading the resnorm explorer… If this text stays, [^<]+<\/p>\n<\/resnorm-explorer>/,
  );
  // the column the iframe goes into: 640 px unless chosen; its height is the embed's at that width,
  // by the readout's notes and the caption's sentences on the page (the view's textShown())
  const textsOnPage = () =>
    page.evaluate(() => ({
      notes: Object.fromEntries(
        [...document.querySelectorAll('#readout tr[data-arch]')].map((r) => [
          r.dataset.arch,
          r.querySelector('.same-as')?.textContent ?? '',
        ]),
      ),
      lead: document.querySelector('#caption .caption-lead').textContent,
      archs: Object.fromEntries(
        [...document.querySelectorAll('#caption li[data-arch]')].map((li) => [li.dataset.arch, li.textContent]),
      ),
    }));
  const heightAt = async (width) => {
    if (width) await page.locator('#embed-width').selectOption(String(width));
    const snippet = await page.locator('#embed-iframe').inputValue();
    const { config, view } = parseHash(new URL(snippet.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&')).hash);
    return { written: Number(snippet.match(/ height="(\d+)"/)[1]), config, view, shown: await textsOnPage() };
  };
  assert.equal(await page.locator('#embed-width').inputValue(), '640');
  for (const width of [360, 1280]) {
    const { written, config, view, shown } = await heightAt(width);
    assert.equal(written, explorerHeight(view, config, width, shown), `${width} px`);
  }
  assert.ok((await heightAt(360)).written > (await heightAt(1280)).written);
  await page.locator('#embed-width').selectOption('640');
  assert.equal(await page.locator('#embed-iframe').inputValue(), iframeSnippet);
  await page.locator('button', { hasText: 'Copy iframe snippet' }).click();
  await page.waitForFunction(() =>
    /Copied the iframe snippet/.test(document.querySelector('.embed-status').textContent),
  );
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), iframeSnippet);
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('dialog.embed-dialog').isVisible(), false);
  assert.deepEqual(page.problems, []);

  // the host: another origin, its own strict policy, which names the site for frames and its script
  const hostDir = mkdtempSync(join(tmpdir(), 'resnorm-host-'));
  writeFileSync(
    join(hostDir, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head>
<body><h1>A course page on another server</h1>\n${iframeSnippet}\n</body></html>`,
  );
  const hostCsp = `default-src 'self'; script-src 'self' ${site.origin}; style-src 'self'; img-src 'self' data:; frame-src ${site.origin}`;
  const host = await serveDir(hostDir, { base: '/', csp: hostCsp });
  const hostPage = await open(context, host.url);
  // the iframe's own frame, whatever it shows yet (a lazy iframe loads after the page), once drawn
  const frame = await (await hostPage.waitForSelector('iframe[data-resnorm]', { state: 'attached' })).contentFrame();
  await ready(frame);
  assert.match(frame.url(), /\/embed\.html#/);
  const inFrame = await frame.evaluate(() => {
    const root = document.getElementById('embed').shadowRoot;
    return {
      depth: window.__resnorm.config.depth,
      controls: [...root.querySelectorAll('.controls input')].map((i) => `${i.type}${i.disabled ? ':fixed' : ''}`),
      height: Math.ceil(document.getElementById('embed').getBoundingClientRect().height),
    };
  });
  assert.equal(inFrame.depth, 30);
  assert.deepEqual(inFrame.controls, ['range', 'number', 'range:fixed', 'number:fixed']);
  // The snippet's height is the 640 px column's; this host's column is wider, so the embed is of
  // another height, and only the helper script (resnorm-iframe.js) can make the iframe's match it.
  assert.notEqual(inFrame.height, Number(iframeSnippet.match(/ height="(\d+)"/)[1]));
  await hostPage.waitForFunction((h) => Number(document.querySelector('iframe').height) === h, inFrame.height);
  // a learner moves the depth slider with the keyboard; the iframe follows the new content
  await frame.locator('input[type=range]').first().focus();
  await hostPage.keyboard.press('ArrowRight');
  await frame.waitForFunction(() => window.__resnorm.config.depth === 31);
  await assertClean(hostPage);
  await hostPage.screenshot({ path: `${SHOTS}/embed-host-other-port.png`, fullPage: true });

  // the web component snippet, on a page of the site's own origin
  writeFileSync(
    join(copy, 'examples', 'snippet.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>snippet</title><link rel="icon" href="data:,"></head><body>\n${elementSnippet}\n</body></html>`,
  );
  const elPage = await open(context, `${site.url}examples/snippet.html`);
  await elementReady(elPage, 'resnorm-explorer');
  assert.equal(await elPage.evaluate(() => document.querySelector('resnorm-explorer').snapshot.config.depth), 30);
  await assertClean(elPage);
  await closeAll(context, host, site, hostDir);
});

test('the Embed dialog refuses an embed with no chart, titles the iframe after its charts, and names CORS', async () => {
  const site = await serveDir(copy);
  const context = await newContext();
  const page = await open(context, site.url);
  await ready(page);
  await page.locator('#embed-button').click();
  const dialog = page.locator('dialog.embed-dialog');
  const copyButtons = dialog.locator('button', { hasText: /^Copy / });
  const title = async () => /title="([^"]*)"/.exec(await page.locator('#embed-iframe').inputValue())[1];
  assert.equal(await copyButtons.count(), 2);
  assert.match(await title(), /gradient reaching layer l, size of the residual stream and how much block l changes/i);
  await page.locator('#embed-chart-grad').uncheck();
  await page.locator('#embed-chart-update').uncheck();
  assert.equal(await title(), 'resnorm explorer: size of the residual stream');
  await page.locator('#embed-chart-stream').uncheck();
  // no chart: a visible refusal, no snippet to copy, no preview
  const refusal = dialog.locator('.embed-refusal');
  assert.equal(await refusal.isVisible(), true);
  assert.match(await refusal.textContent(), /at least one chart/);
  for (let i = 0; i < 2; i++) assert.equal(await copyButtons.nth(i).isDisabled(), true);
  assert.equal(await page.locator('#embed-iframe').inputValue(), '');
  assert.equal(await page.locator('#embed-element').inputValue(), '');
  assert.equal(await page.locator('#embed-preview').isVisible(), false);
  await page.locator('#embed-chart-update').check();
  assert.equal(await refusal.isVisible(), false);
  for (let i = 0; i < 2; i++) assert.equal(await copyButtons.nth(i).isDisabled(), false);
  assert.equal(await title(), 'resnorm explorer: how much block l changes the stream');
  assert.match(await page.locator('#embed-iframe').inputValue(), /charts=update/);
  assert.match(await page.locator('#embed-element').inputValue(), /charts="update"/);
  // the help says what a host on another origin needs
  assert.match(await dialog.textContent(), /CORS/);
  assert.match(await dialog.textContent(), /worker-src blob:/);
  assert.deepEqual(page.problems, []);
  await closeAll(context, site);
});

test('a custom element from another origin without CORS says inside itself what the host must allow', async () => {
  const site = await serveDir(copy); // no CORS headers
  const context = await newContext();
  const sitePage = await open(context, site.url);
  await ready(sitePage);
  await sitePage.locator('#embed-button').click();
  const snippet = await sitePage.locator('#embed-element').inputValue();
  await sitePage.close();
  const hostDir = mkdtempSync(join(tmpdir(), 'resnorm-host-'));
  writeFileSync(
    join(hostDir, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head>
<body><h1>A course page</h1>\n${snippet}\n</body></html>`,
  );
  const hostCsp = `default-src 'self'; script-src 'self' ${site.origin} 'wasm-unsafe-eval'; connect-src ${site.origin}; worker-src blob:; style-src 'self'; img-src 'self' data:`;
  const host = await serveDir(hostDir, { base: '/', csp: hostCsp });
  const page = await open(context, host.url);
  await page.waitForLoadState('load');
  // the browser's CORS refusal, logged by the time the page has loaded or soon after
  const refused = (text) => /CORS|ERR_FAILED/.test(text);
  if (!page.problems.some(refused)) await page.waitForEvent('console', { predicate: (m) => refused(m.text()) });
  const seen = await page.evaluate(() => {
    const e = document.querySelector('resnorm-explorer');
    return {
      defined: Boolean(customElements.get('resnorm-explorer')),
      height: e.getBoundingClientRect().height,
      text: e.innerText,
    };
  });
  assert.equal(seen.defined, false, 'the script is refused without CORS');
  assert.ok(seen.height > 0, `the element has height ${seen.height}`);
  assert.match(seen.text, /CORS/);
  assert.match(seen.text, /Access-Control-Allow-Origin/);
  assert.match(seen.text, /worker-src blob:/);
  assert.match(seen.text, /iframe/);
  assert.ok(seen.text.includes(site.origin), 'names the site');
  // the browser's own CORS error is the only problem
  assert.ok(
    page.problems.length > 0 && page.problems.every((p) => /CORS|ERR_FAILED/.test(p)),
    page.problems.join('\n'),
  );
  await closeAll(context, host, site, hostDir);
});

test('cross-origin custom elements: the site with CORS headers, the host allowing its scripts, a blob: worker', async () => {
  const site = await serveDir(copy, { headers: { 'Access-Control-Allow-Origin': '*' } });
  const hostDir = mkdtempSync(join(tmpdir(), 'resnorm-host-'));
  writeFileSync(
    join(hostDir, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,">
<script type="module" src="${site.url}resnorm-embed.js"></script></head>
<body><resnorm-explorer arch="pre_ln" depth="24" charts="grad"></resnorm-explorer><resnorm-quiz items="why-03"></resnorm-quiz></body></html>`,
  );
  const hostCsp = `default-src 'self'; script-src 'self' ${site.origin} 'wasm-unsafe-eval'; connect-src ${site.origin}; worker-src blob:; style-src 'self'; img-src 'self' data:`;
  const host = await serveDir(hostDir, { base: '/', csp: hostCsp });
  const context = await newContext();
  const page = await open(context, host.url);
  await elementReady(page, 'resnorm-explorer');
  await page.waitForFunction(() => document.querySelector('resnorm-quiz')?.snapshot?.quiz);
  const snap = await page.evaluate(() => document.querySelector('resnorm-explorer').snapshot);
  assert.equal(snap.config.depth, 24);
  const api = rn.simulate(snap.config);
  assert.deepEqual(snap.plotted.grad.series.pre_ln, Array.from(api.results.pre_ln.grad_norm));
  // "Open in the explorer" points at the site, not the host
  assert.equal(
    await page.evaluate(() => document.querySelector('resnorm-explorer').shadowRoot.querySelector('.open-full').href),
    `${site.url}#arch=pre_ln&depth=24`,
  );
  await assertClean(page);
  await closeAll(context, host, site, hostDir);
});

test('the same build at /, at /course/week-3/ and at a deep path: embed.html, the elements, the service worker scope', async () => {
  for (const base of ['/', '/course/week-3/', '/a/deeply/nested/path/to/resnorm/']) {
    const site = await serveDir(copy, { base });
    const context = await newContext();
    const embed = await open(context, `${site.url}embed.html#depth=20&charts=update`);
    await ready(embed);
    assert.equal(await embed.evaluate(() => window.__resnorm.config.depth), 20, base);
    const scope = await swReady(embed);
    assert.equal(scope, site.url, base);
    const host = await open(context, `${site.url}examples/plain.html`);
    await elementReady(host, 'resnorm-explorer');
    await ready(frameOf(host, 'embed.html'));
    const link = await host.evaluate(
      () => document.querySelector('resnorm-explorer').shadowRoot.querySelector('.open-full').href,
    );
    assert.ok(link.startsWith(site.url + '#'), `${base}: ${link}`);
    for (const p of [embed, host]) {
      assert.deepEqual(p.problems, [], base);
      assert.deepEqual(await violations(p), [], base);
    }
    await context.close();
    await site.close();
  }
});

// ---- exports

async function downloadAll(page, root) {
  const files = {};
  for (const kind of ['png', 'svg', 'csv', 'json']) {
    await root.locator('details.export-menu > summary').click();
    const [dl] = await Promise.all([
      page.waitForEvent('download'),
      root.locator(`button[data-export="${kind}"]`).click(),
    ]);
    files[kind] = { name: dl.suggestedFilename(), bytes: await downloadBytes(dl) };
  }
  return files;
}

function parseCsv(text) {
  const config = {};
  const rows = [];
  for (const line of text.trimEnd().split('\n')) {
    if (line.startsWith('# ')) {
      const m = /^# ([a-z_]+),(.*)$/.exec(line);
      if (m) config[m[1]] = m[2].replace(/^"(.*)"$/, '$1').replaceAll('""', '"');
    } else rows.push(line.split(','));
  }
  return { config, head: rows[0], rows: rows.slice(1) };
}

async function checkExports(page, files, shown) {
  const { config, plotted } = shown;
  // PNG: the signature, an IHDR with a sensible size
  const png = files.png.bytes;
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  assert.ok(w >= 300 && h >= 200, `PNG ${w}x${h}`);
  assert.match(files.png.name, /^resnorm-d\d+-g[\d.]+-s\d+\.png$/);
  // SVG: well-formed XML with one path per drawn line
  const svg = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: doc.documentElement.localName,
      ns: doc.documentElement.namespaceURI,
      paths: doc.querySelectorAll('path').length,
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
    };
  }, files.svg.bytes.toString('utf8'));
  assert.equal(svg.error, null);
  assert.equal(svg.root, 'svg');
  assert.equal(svg.ns, 'http://www.w3.org/2000/svg');
  assert.ok(svg.paths >= Object.keys(plotted).length * config.arch.length, `${svg.paths} paths`);
  assert.ok(svg.texts.some((t) => t.includes(`depth ${config.depth}`)));
  // CSV: the config in the header, one row per layer, the plotted numbers exactly
  const csv = parseCsv(files.csv.bytes.toString('utf8'));
  for (const [k, v] of Object.entries(config))
    assert.equal(csv.config[k], Array.isArray(v) ? v.join(',') : String(v), `CSV config ${k}`);
  assert.equal(csv.rows.length, config.depth + 1);
  const grad0 = csv.head.indexOf(`${config.arch[0]}.grad_norm`);
  assert.ok(grad0 > 0);
  csv.rows.forEach((row, l) => {
    const want = plotted.grad?.series[config.arch[0]][l];
    if (want !== undefined) assert.equal(want === null ? null : Number(row[grad0]), want, `CSV row ${l}`);
  });
  // JSON: round trip of the config and every array
  const json = JSON.parse(files.json.bytes.toString('utf8'));
  assert.equal(json.format, 'resnorm-export');
  assert.deepEqual(json.config, config);
  for (const [m, key] of [
    ['grad', 'grad_norm'],
    ['stream', 'stream_rms'],
    ['update', 'update_ratio'],
  ])
    for (const arch of config.arch)
      if (plotted[m]) assert.deepEqual(json.results[arch][key], plotted[m].series[arch], `JSON ${m} ${arch}`);
  const back = configFromHash(configToHash(json.config));
  for (const k of Object.keys(defaultConfig())) assert.deepEqual(back[k], config[k], `JSON config ${k} through a link`);
  assert.ok(json.link.includes(configToHash(config)));
  return json;
}

test('exports from the explorer and from an embed: PNG, SVG, CSV and JSON that parse and round-trip', async () => {
  const site = await serveDir(copy);
  const context = await newContext();
  const page = await open(context, `${site.url}#arch=plain,pre_ln,deepnorm&depth=40&gain=1.2&seed=3`);
  await ready(page);
  const shown = await page.evaluate(() => ({ config: window.__resnorm.config, plotted: window.__resnorm.plotted }));
  const files = await downloadAll(page, page.locator('#chart-tools'));
  const json = await checkExports(page, files, shown);
  // the JSON's link opens the same picture
  const again = await open(context, json.link);
  await ready(again);
  assert.deepEqual(await again.evaluate(() => window.__resnorm.plotted), shown.plotted);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(await violations(page), []);

  // from inside a custom element's shadow root
  const host = await open(context, `${site.url}examples/plain.html`);
  await elementReady(host, 'resnorm-explorer');
  const elShown = await host.evaluate(() => document.querySelector('resnorm-explorer').snapshot);
  const elFiles = await downloadAll(host, host.locator('resnorm-explorer'));
  await checkExports(host, elFiles, elShown);
  assert.deepEqual(host.problems, []);
  assert.deepEqual(await violations(host), []);
  await context.close();
  await site.close();
});

// ---- 360 px, keyboard, dark

test('the embeds at 360 px in the dark theme, by keyboard', async () => {
  const site = await serveDir(copy);
  const context = await newContext({ viewport: { width: 360, height: 780 }, colorScheme: 'dark' });
  const page = await open(context, `${site.url}embed.html#arch=post_ln,pre_ln&controls=arch,depth,gain,seed`);
  await ready(page);
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360);
  assert.equal(
    await page.evaluate(() => document.getElementById('embed').shadowRoot.querySelector('.rn').dataset.theme),
    'dark',
  );
  const renders = await page.evaluate(() => window.__resnorm.renders);
  // Tab order: the arch chips come first; find the depth slider by tabbing
  let found = false;
  for (let i = 0; i < 20 && !found; i++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() =>
      document.getElementById('embed').shadowRoot.activeElement?.id?.endsWith('-depth'),
    );
  }
  assert.ok(found, 'the depth slider is not reachable with Tab');
  await page.keyboard.press('ArrowLeft');
  await waitForRender(page, { depth: 95 }, renders);
  const readback = await page.evaluate(() => {
    const root = document.getElementById('embed').shadowRoot;
    return [
      root.querySelector('.field-depth output').value,
      root.querySelector('.field-depth input[type=number]').value,
    ];
  });
  assert.deepEqual(readback, ['95', '95']);
  await page.screenshot({ path: `${SHOTS}/embed-phone-dark.png`, fullPage: true });
  const host = await open(context, `${site.url}examples/plain.html`);
  await elementReady(host, 'resnorm-explorer');
  assert.ok((await host.evaluate(() => document.documentElement.scrollWidth)) <= 360);
  await host.screenshot({ path: `${SHOTS}/embed-host-phone-dark.png`, fullPage: true });
  const quiz = await open(context, `${site.url}embed.html#mode=quiz&items=tf-01,why-03&theme=light`);
  await ready(quiz);
  const root = quiz.locator('#embed');
  await root.locator('button', { hasText: 'False' }).click();
  await quiz.waitForFunction(() => window.__resnorm.quiz.session.answered === 1);
  assert.equal(await quiz.evaluate(() => window.__resnorm.quiz.session.correct), 1);
  await quiz.keyboard.press('Enter'); // "Next question" has the focus
  await quiz.waitForFunction(() => window.__resnorm.quiz.current === 'why-03');
  await root.locator('textarea.answer-text').fill('the identity path');
  await root.locator('button', { hasText: 'Commit and reveal' }).click();
  await root.locator('button', { hasText: 'I got it' }).click();
  await quiz.waitForFunction(() => window.__resnorm.quiz.session.answered === 2);
  await quiz.screenshot({ path: `${SHOTS}/embed-quiz-phone.png`, fullPage: true });
  for (const p of [page, host, quiz]) assert.deepEqual(p.problems, []);
  await context.close();
  await site.close();
});

// ---- offline and updates

test('offline: after one load the site reloads and simulates with the server stopped; a new build replaces the cache', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'resnorm-offline-'));
  cpSync(DIST, dir, { recursive: true });
  let site = await serveDir(dir);
  const { port } = site;
  const context = await newContext();
  const page = await open(context, site.url);
  await ready(page);
  // the service worker installs (caching the build) and takes over
  await swReady(page);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const cached = await page.evaluate(async () => {
    const keys = await caches.keys();
    const cache = await caches.open(keys[0]);
    return { keys, files: (await cache.keys()).map((r) => new URL(r.url).pathname) };
  });
  assert.equal(cached.keys.length, 1);
  assert.match(cached.keys[0], /^resnorm:\/course\/week-3\/:[0-9a-f]{16}$/);
  assert.ok(
    cached.files.includes(`${BASE}embed.html`) &&
      cached.files.includes(`${BASE}resnorm-embed.js`) &&
      cached.files.some((f) => f.endsWith('.wasm')),
  );

  await site.close();
  // offline: the explorer, embed.html and the custom elements
  await page.reload();
  await ready(page);
  const renders = await page.evaluate(() => window.__resnorm.renders);
  await page.locator('#depth-number').fill('33');
  await waitForRender(page, { depth: 33 }, renders);
  const embed = await open(context, `${site.url}embed.html#depth=12`);
  await ready(embed);
  const host = await open(context, `${site.url}examples/plain.html`);
  await elementReady(host, 'resnorm-explorer');
  assert.ok(
    await fetch(site.url).then(
      () => false,
      () => true,
    ),
    'the server should be down',
  );
  for (const p of [page, embed]) assert.deepEqual(p.problems, []);
  await embed.close();
  await host.close();

  // a new build on the same address: a changed page, a new sw.js
  writeFileSync(
    join(dir, 'index.html'),
    readFileSync(join(dir, 'index.html'), 'utf8').replace('<title>', '<title>v2 '),
  );
  const { source, version } = serviceWorkerSource(dir);
  writeFileSync(join(dir, 'sw.js'), source);
  assert.notEqual(`resnorm:${BASE}:${version}`, cached.keys[0]);
  site = await serveDir(dir, { port });
  await page.reload();
  await ready(page);
  assert.match(await page.title(), /^v2 /);
  await page.waitForFunction(
    async (v) => {
      const keys = await caches.keys();
      return keys.length === 1 && keys[0].endsWith(v);
    },
    version,
    { polling: 250 },
  );
  assert.deepEqual(await violations(page), []);
  await context.close();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});
