// The training lab embedded, in Debian's Chromium: embed.html#mode=train and
// <resnorm-train> on a host page at /course/week-3/ under the strict CSP, each
// training a short run and drawing its charts, with the author's fixed and
// hidden settings and the reader's own; the iframe sized to the height the
// embed reports; hostile links and attributes named in a notice inside the
// embed and never run; the lab page and the embedded lab offline after one
// load; the embedded lab at 360 px in the dark theme and on a desktop with no
// overlapping text. Screenshots in test-results/.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DIST,
  SHOTS,
  SITE_CSP,
  STRICT_CSP,
  labDrawn,
  launch,
  overlaps,
  pageIn,
  release,
  serve,
  swReady,
  waitHeld,
} from './harness.js';
import { estimateTrainHeight } from '../../web/src/embed/snippets.js';
import { trainEmbedFromHash } from '../../web/src/embed/train-view.js';

const BASE = '/course/week-3/';
let browser;
const servers = [];

before(async () => {
  browser = await launch();
});
after(async () => {
  for (const s of servers) await s.close();
  await browser?.close();
});

// The site at BASE (a copy of the build in `root`, or the build), strict CSP unless `csp`.
async function serveDir(root, { csp = STRICT_CSP } = {}) {
  const server = await serve({ root, base: BASE, csp });
  servers.push(server);
  const close = () => (servers.splice(servers.indexOf(server), 1), server.close());
  return { ...server, close };
}

// A run that trains in well under a second per architecture.
const TINY = 'task=copy&seq=2&vocab=4&depth=2&width=16&heads=2&batch=4&steps=12&log_every=2';
const labEmbed = (url, more = '') => `${url}embed.html#mode=train&${TINY}${more}`;
const ready = (frame) => frame.waitForFunction(() => document.body?.dataset.ready === '1');

// CSP violations of every frame, recorded from the start.
async function newContext(options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.addInitScript(() => {
    window.__csp = [];
    addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return context;
}
const violations = async (page) => {
  const out = [];
  for (const f of page.frames()) out.push(...(await f.evaluate(() => window.__csp ?? []).catch(() => [])));
  return out;
};

/**
 * Presses Start in the lab inside `hostSel` and waits until its run is done: the snapshot of the
 * first <resnorm-train> (`element`), or the page's hook (embed.html and train.html).
 */
async function trainIn(frame, hostSel, { element = false } = {}) {
  await frame.locator(`${hostSel} #train-start`).click();
  await frame.waitForFunction(
    (el) => (el ? document.querySelector('resnorm-train').snapshot : window.__resnormTrain)?.state === 'done',
    element,
  );
}

test('embed.html and <resnorm-train> on a host page at a sub-path, under the strict CSP: fixed, hidden and live settings; a short run draws its charts', async () => {
  const site = await serveDir(DIST);
  const context = await newContext();
  const page = await pageIn(context, `${site.url}examples/lab.html`, { ready: false });

  // the iframe: its fixed steps, hidden settings, the reader's warmup; sized to the height it reports
  await page.waitForFunction(() => document.querySelector('iframe[data-resnorm]').height !== '2400');
  const frame = page.frames().find((f) => f.url().includes('embed.html'));
  await ready(frame);
  const shown = await frame.evaluate(() => {
    const root = document.getElementById('embed').shadowRoot;
    return {
      fields: [...root.querySelectorAll('[data-field]')].map((f) => f.dataset.field),
      stepsLocked: root.querySelector('#train-steps').disabled,
      stepsFixed: root.querySelector('[data-field=steps] .fixed')?.textContent,
      warmupLocked: root.querySelector('#train-warmup').disabled,
      link: root.querySelector('.open-full').href,
    };
  });
  assert.deepEqual(shown.fields, ['warmup', 'steps']);
  assert.equal(shown.stepsLocked, true);
  assert.equal(shown.stepsFixed, 'fixed');
  assert.equal(shown.warmupLocked, false);
  assert.match(
    shown.link,
    /\/course\/week-3\/train\.html#task=copy&seq=4&vocab=8&width=16&heads=2&lr=0.01&batch=16&steps=200$/,
  );
  const reported = await frame.evaluate(() =>
    Math.ceil(document.getElementById('embed').getBoundingClientRect().height),
  );
  await page.waitForFunction((h) => Number(document.querySelector('iframe[data-resnorm]').height) === h, reported);

  // the element: the reader changes a live setting (the learning rate), trains, and the run used it
  await page.waitForFunction(() => document.querySelector('resnorm-train')?.snapshot);
  const el = 'resnorm-train';
  assert.equal(await page.locator(`${el} #train-arch-post_ln`).isDisabled(), true);
  assert.equal(await page.locator(`${el} #train-task`).count(), 0, 'a hidden setting has no control');
  // a changed attribute is a new setting: fewer steps, so the run is short
  await page.evaluate(() => {
    const t = document.querySelector('resnorm-train');
    t.setAttribute('steps', '12');
    t.setAttribute('log-every', '2');
  });
  await page.waitForFunction(() => document.querySelector('resnorm-train').snapshot.config.steps === 12);
  await page.locator(`${el} #train-lr`).fill('0.002');
  await trainIn(page, el, { element: true });
  const run = await page.evaluate(() => {
    const s = document.querySelector('resnorm-train').snapshot;
    const root = document.querySelector('resnorm-train').shadowRoot;
    return {
      run: s.run,
      steps: Object.values(s.runs).map((r) => r.stepsDone),
      canvases: root.querySelectorAll('.train-chart canvas').length,
      heatmaps: root.querySelectorAll('.heatmap canvas').length,
      points: s.plotted.loss.x.length,
    };
  });
  assert.equal(run.run.lr, 0.002);
  assert.equal(run.run.task, 'copy');
  assert.deepEqual(run.steps, [12, 12]);
  assert.equal(run.canvases, 3);
  assert.equal(run.heatmaps, 4);
  assert.equal(run.points, 6);
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(page.problems, []);
  await page.screenshot({ path: `${SHOTS}/train-embed-host.png`, fullPage: true });
  await context.close();
  await site.close();
});

test('the iframe snippet\u2019s height fits the embedded lab in a 420 px column, within 25%', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  const context = await newContext({ viewport: { width: 420, height: 900 } });
  for (const more of ['', '&controls=none&arch=pre_ln', '&controls=lr,warmup', '&arch=post_ln,pre_ln,sandwich']) {
    const page = await pageIn(context, labEmbed(site.url, more));
    const h = await page.evaluate(() => Math.ceil(document.getElementById('embed').getBoundingClientRect().height));
    const { view, train } = trainEmbedFromHash(`#mode=train&${TINY}${more}`);
    const est = estimateTrainHeight(view, train);
    assert.ok(Math.abs(est - h) / h <= 0.25, `${more || 'defaults'}: estimated ${est}px, measured ${h}px`);
    await page.close();
  }
  await context.close();
  await site.close();
});

const FLAG = 'window.__pwned=1';
const HOSTILE = [
  ['task', `<img src=x onerror="${FLAG}">`],
  ['depth', '1e309'],
  ['lr', 'javascript:alert(1)'],
  ['heads', '3'],
  ['controls', '<script>'],
  ['lock', 'steps,<b>x</b>'],
  ['theme', 'url(javascript:alert(1))'],
  ['__proto__', '1'],
];

test('hostile links and attributes on the embedded lab: a notice inside names each field, nothing runs, nothing throws', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  const context = await newContext();
  let dialogs = 0;
  context.on('page', (p) => p.on('dialog', (d) => (dialogs++, d.dismiss())));
  const hash = HOSTILE.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  const page = await pageIn(context, `${site.url}embed.html#mode=train&${hash}`);
  const notice = await page.evaluate(
    () => document.getElementById('embed').shadowRoot.querySelector('.notice').textContent,
  );
  for (const [k] of HOSTILE) assert.ok(notice.includes(k === '__proto__' ? k : `(${k})`), `${k}: ${notice}`);
  // a 100 kB fragment: every default, and the notice says so
  await page.evaluate((h) => (location.hash = h), `#mode=train&depth=${'9'.repeat(100 * 1024)}`);
  await page.waitForFunction(() =>
    /too long/.test(document.getElementById('embed').shadowRoot.querySelector('.notice').textContent),
  );
  assert.equal(
    await page.evaluate(
      () => document.getElementById('embed').shadowRoot.querySelectorAll('img, script, [onerror], [onload]').length,
    ),
    0,
  );
  // the element: hostile attributes at once, then one changed to another hostile value
  const host = await pageIn(context, `${site.url}examples/lab.html`, { ready: false });
  await host.waitForFunction(() => customElements.get('resnorm-train'));
  const attrs = HOSTILE.filter(([k]) => !['heads', 'theme'].includes(k));
  const text = await host.evaluate(async (list) => {
    const el = document.createElement('resnorm-train');
    for (const [k, v] of list) el.setAttribute(k, v);
    el.setAttribute('final-norm', '"><svg onload=alert(1)>');
    // an element mounts when connected and again on a changed attribute, within the frame
    const frames = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    document.body.append(el);
    await frames();
    el.setAttribute('steps', '-1');
    await frames();
    const out = el.shadowRoot.querySelector('.notice').textContent;
    el.remove();
    return out;
  }, attrs);
  for (const k of ['(task)', '(depth)', '(lr)', '(controls)', '(lock)', '(final_norm)', '(steps)', '__proto__'])
    assert.ok(text.includes(k), `${k}: ${text}`);
  for (const p of [page, host]) {
    assert.equal(await p.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(p.problems, []);
  }
  assert.equal(dialogs, 0);
  await context.close();
  await site.close();
});

test('offline: after one load of the lab, train.html and the embedded lab reload and train with the server stopped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'resnorm-lab-offline-'));
  cpSync(DIST, dir, { recursive: true });
  const site = await serveDir(dir, { csp: SITE_CSP });
  const context = await newContext();
  const page = await pageIn(context, `${site.url}train.html#${TINY}`);
  await swReady(page);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  // every file train.html loads is in the cache
  const { loaded, cached } = await page.evaluate(async () => {
    const cache = await caches.open((await caches.keys())[0]);
    return {
      loaded: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
      cached: (await cache.keys()).map((r) => new URL(r.url).pathname),
    };
  });
  for (const f of [`${BASE}train.html`, ...loaded.filter((p) => p.startsWith(BASE) && !p.endsWith('sw.js'))])
    assert.ok(cached.includes(f), `${f} is not in the service worker's cache`);
  await site.close();
  await page.reload();
  await ready(page);
  await trainIn(page, 'body', {});
  const embed = await pageIn(context, labEmbed(site.url));
  await trainIn(embed, '#embed', {});
  assert.deepEqual(
    await embed.evaluate(() => Object.values(window.__resnormTrain.runs).map((r) => r.stepsDone)),
    [12, 12],
  );
  await assert.rejects(fetch(site.url), 'the server should be down');
  for (const p of [page, embed]) assert.deepEqual(p.problems, []);
  await context.close();
  rmSync(dir, { recursive: true, force: true });
});

// The offline copy's install (the whole build fetched and cached) waits while a run trains, so it
// never shares the cores with one: with a run training past the registration's wait after load
// (its step answers held, harness.js's hold, so it trains as long as the test needs; the wait
// itself held until the run has started), the
// registration reaches its last wait and goes no further until the run is done; then the site
// goes offline-ready as before. A page registering at load, or at its wait, would register while
// running.
test('the lab and the embedded lab install the offline copy only once no run is training', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  const RUN = 'task=copy&seq=2&vocab=4&depth=6&width=32&heads=2&batch=4&log_every=20&steps=200&arch=plain,pre_ln';
  for (const path of [`train.html#${RUN}`, `embed.html#mode=train&${RUN}`]) {
    const context = await newContext();
    await context.addInitScript(() => {
      window.__registered = [];
      window.__idle = 0; // the registration's idle wait (requestIdleCallback with a 2 s timeout) passed
      const sw = navigator.serviceWorker;
      const register = sw.register.bind(sw);
      sw.register = (...args) => {
        window.__registered.push({ state: window.__resnormTrain?.state ?? null });
        return register(...args);
      };
      // The registration's idle wait is kept until the test lets it go (window.__letIdle), so the
      // run is training by then whatever the machine's speed: an idle page may register at once.
      const ric = window.requestIdleCallback.bind(window);
      const kept = [];
      window.__letIdle = () => kept.splice(0).forEach((go) => go());
      window.__idleAsked = () => kept.length;
      window.requestIdleCallback = (fn, options) => {
        if (options?.timeout !== 2000) return ric(fn, options);
        kept.push(() =>
          ric((deadline) => {
            window.__idle++;
            return fn(deadline);
          }, options),
        );
        return 0;
      };
    });
    const page = await pageIn(context, site.url + path, { held: ['trainerStep'] });
    await page.locator('#train-start').click();
    await waitHeld(page, 2);
    await page.waitForFunction(() => window.__idleAsked() > 0); // after its settling time
    await page.evaluate(() => window.__letIdle());
    await page.waitForFunction(() => window.__idle > 0);
    // the registration now waits on the run, which cannot end while its answers are held
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.evaluate(() => window.__resnormTrain.state), 'running', path);
    assert.deepEqual(await page.evaluate(() => window.__registered), [], `${path}: registered while training`);
    await release(page);
    await page.waitForFunction(() => window.__resnormTrain?.state === 'done');
    await swReady(page);
    const registered = await page.evaluate(() => window.__registered);
    assert.equal(registered.length, 1, `${path}: registered once (${JSON.stringify(registered)})`);
    assert.equal(registered[0].state, 'done', `${path}: registered while the run was ${registered[0].state}`);
    assert.deepEqual(page.problems, []);
    await context.close();
  }
  await site.close();
});

test('the embedded lab at 360 px in the dark theme and on a desktop: no text overlaps, nothing scrolls sideways', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  for (const [name, options] of [
    ['phone-360-dark', { viewport: { width: 360, height: 780 }, colorScheme: 'dark' }],
    ['desktop', { viewport: { width: 1280, height: 900 } }],
  ]) {
    const context = await newContext(options);
    const page = await pageIn(context, labEmbed(site.url, '&lock=task,arch&controls=task,arch,depth,lr,warmup,steps'));
    await trainIn(page, '#embed', {});
    await labDrawn(page);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= options.viewport.width, name);
    assert.deepEqual(await overlaps(page, '#embed'), [], name);
    assert.equal(
      await page.evaluate(() => document.getElementById('embed').shadowRoot.querySelector('#train-task').disabled),
      true,
    );
    await page.screenshot({ path: `${SHOTS}/train-embed-${name}.png`, fullPage: true });
    assert.deepEqual(page.problems, [], name);
    await context.close();
  }
  await site.close();
});

test('the lab page\u2019s Embed dialog writes the lab\u2019s snippets: its settings, one hidden, one fixed', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  const context = await newContext();
  const page = await pageIn(context, `${site.url}train.html#${TINY}`);
  await page.click('#train-embed-button');
  await page.selectOption('#train-embed-mode-task', 'hidden');
  await page.selectOption('#train-embed-mode-lr', 'fixed');
  const iframe = await page.locator('#train-embed-iframe').inputValue();
  const element = await page.locator('#train-embed-element').inputValue();
  const src = iframe.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  assert.match(src, /^http:\/\/127\.0\.0\.1:\d+\/course\/week-3\/embed\.html#mode=train&task=copy&/);
  assert.match(element, /<resnorm-train task="copy" seq="2" [^>]*log-every="2" [^>]*lock="lr"/);
  assert.equal(await page.locator('#train-embed-preview').getAttribute('href'), src);
  const embed = await pageIn(context, src);
  const shown = await embed.evaluate(() => {
    const root = document.getElementById('embed').shadowRoot;
    return { task: root.querySelector('#train-task'), lr: root.querySelector('#train-lr').disabled };
  });
  assert.deepEqual(shown, { task: null, lr: true });
  assert.deepEqual(await embed.evaluate(() => window.__resnormTrain.config.steps), 12);
  for (const p of [page, embed]) assert.deepEqual(p.problems, []);
  await context.close();
  await site.close();
});
