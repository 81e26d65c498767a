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
  waitStepsHeld,
} from './harness.js';
import { trainEmbedFromHash } from '../../web/src/embed/train-view.js';
import { labHeight } from '../../web/src/embed/heights.js';
import { CLAIM_BY_ID, comparisonCaption, runOutcome, verdict } from '../../web/src/claims/lab/index.js';

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
  assert.equal(run.canvases, 4, 'the loss, gradient norm, learning rate and (transformer blocks) largest logit');
  assert.equal(run.heatmaps, 4);
  assert.equal(run.points, 6);
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(page.problems, []);
  await page.screenshot({ path: `${SHOTS}/train-embed-host.png`, fullPage: true });
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
  // a preset that is not one: named with the presets there are, and the lab's own settings used
  await page.evaluate(
    (h) => (location.hash = h),
    `#mode=train&preset=${encodeURIComponent(`warmup"><img src=x onerror="${FLAG}">`)}&seed=4`,
  );
  await page.waitForFunction(() => window.__resnormTrain?.config.seed === 4);
  const presetNotice = await page.evaluate(
    () => document.getElementById('embed').shadowRoot.querySelector('.notice').textContent,
  );
  assert.match(presetNotice, /Paper claim \(preset\) [^:]*: not one of the choices \(allowed none, warmup, depth, /);
  assert.equal(await page.evaluate(() => window.__resnormTrain.preset), 'none');
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
    await waitStepsHeld(page, 2);
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
    // the reader's own comparison: one line, each run's clause from that run's own numbers
    const { line, runs } = await page.evaluate(() => {
      const box = document.getElementById('embed').shadowRoot.querySelector('#train-comparison');
      return { line: box.checkVisibility() ? box.textContent : null, runs: Object.values(window.__resnormTrain.runs) };
    });
    assert.equal(line, comparisonCaption(runs), name);
    for (const r of runs) assert.ok(line.includes(`${r.label} ${runOutcome(r).text}`), `${r.label}: ${line}`);
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

/** The preset buttons of the lab inside `sel`'s shadow root: {id, shown, disabled, pressed} each, and the bar's heading. */
const presetButtons = (page, sel = '#embed') =>
  page.evaluate((s) => {
    const root = document.querySelector(s).shadowRoot;
    const bar = root.querySelector('#train-presets');
    return {
      bar: bar.hidden ? null : bar.querySelector('h3').textContent,
      buttons: [...bar.querySelectorAll('[data-preset]')].map((b) => ({
        id: b.dataset.preset,
        shown: b.checkVisibility(),
        disabled: b.disabled,
        pressed: b.getAttribute('aria-pressed'),
      })),
    };
  }, sel);

/** Tabs through the whole embed: every element that took the focus inside its shadow root, in order. */
async function tabThrough(page) {
  await page.evaluate(() => document.activeElement?.blur());
  const seen = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const a = document.getElementById('embed').shadowRoot.activeElement;
      return a ? { id: a.id, preset: a.dataset.preset ?? null, text: a.textContent.trim().slice(0, 30) } : null;
    });
    if (!at) break;
    seen.push(at);
  }
  return seen;
}

test('an embedded Warmup claim with its settings fixed, at 360 px dark: its three runs and its verdict; no other claim can replace it, by pointer or keyboard', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  const context = await newContext({ viewport: { width: 360, height: 780 }, colorScheme: 'dark' });
  const preset = CLAIM_BY_ID.warmup;
  const page = await pageIn(context, `${site.url}embed.html#mode=train&preset=warmup&controls=warmup,preset`);
  const keys = preset.runs.map((r) => r.key);
  // before Start: the preset's runs (Post-LN twice), not one per architecture
  assert.deepEqual(await page.evaluate(() => window.__resnormTrain.archs), keys);
  assert.equal(await page.evaluate(() => window.__resnormTrain.preset), 'warmup');
  assert.equal(
    await page.evaluate(
      () =>
        document.getElementById('embed').shadowRoot.querySelectorAll('#train-heat-grad-norm .heatmap-figure').length,
    ),
    3,
  );
  // the buttons: Warmup's alone, pressed, disabled and marked fixed; the others not there to press
  const bar = await presetButtons(page);
  assert.match(bar.bar, /Paper claim\s*fixed/);
  assert.deepEqual(
    bar.buttons.filter((b) => b.shown),
    [{ id: 'warmup', shown: true, disabled: true, pressed: 'true' }],
  );
  assert.ok(bar.buttons.every((b) => b.disabled));
  // a click on a hidden one changes nothing; no Tab stop is a preset button
  await page.evaluate(() => document.getElementById('embed').shadowRoot.querySelector('[data-preset=depth]').click());
  const stops = await tabThrough(page);
  assert.ok(
    stops.some((s) => s.id === 'train-start'),
    JSON.stringify(stops),
  );
  assert.deepEqual(
    stops.filter((s) => s.preset),
    [],
    'a preset button took the focus',
  );
  // Enter and Space on every Tab stop before Start (the warmup box, the links) leave the preset as it is
  assert.equal(await page.evaluate(() => window.__resnormTrain.preset), 'warmup');
  assert.equal(await page.evaluate(() => window.__resnormTrain.config.depth), preset.config.depth);

  // Start: every run to its end, then the verdict, computed from the runs on screen
  await page.locator('#embed #train-start').click();
  await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.verdict);
  await labDrawn(page);
  const hook = await page.evaluate(() => {
    const h = window.__resnormTrain;
    const root = document.getElementById('embed').shadowRoot;
    return {
      runs: Object.fromEntries(
        Object.entries(h.runs).map(([k, r]) => [k, { key: k, logs: r.logs, task: r.task, stepsDone: r.stepsDone }]),
      ),
      verdict: h.verdict,
      shown: root.querySelector('#train-paper .paper-verdict').dataset.verdict,
      caption: root.querySelector('#train-paper-caption').textContent,
      comparison: root.querySelector('#train-comparison').hidden,
    };
  });
  assert.deepEqual(Object.keys(hook.runs), keys);
  for (const k of keys) assert.equal(hook.runs[k].stepsDone, preset.config.steps, k);
  const expected = verdict('warmup', hook.runs);
  assert.equal(hook.verdict.holds, expected.holds);
  assert.equal(hook.shown, expected.holds ? 'holds' : 'fails');
  assert.equal(hook.caption, expected.caption);
  assert.equal(hook.comparison, true, 'a preset has its verdict, not the comparison line');
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360);
  assert.deepEqual(await overlaps(page, '#embed'), []);
  await page.screenshot({ path: `${SHOTS}/train-embed-warmup-360-dark.png`, fullPage: true });
  assert.deepEqual(page.problems, []);
  await context.close();
  await site.close();
});

test('with every setting the reader\u2019s, the presets stay live: Depth by keyboard replaces Warmup, and the element takes a preset attribute', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  const context = await newContext();
  const page = await pageIn(context, `${site.url}embed.html#mode=train&preset=warmup`);
  const bar = await presetButtons(page);
  assert.equal(bar.bar, 'Paper claims');
  assert.ok(bar.buttons.every((b) => b.shown && !b.disabled));
  await page.locator('#embed [data-preset=depth]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__resnormTrain.preset === 'depth');
  assert.deepEqual(
    await page.evaluate(() => window.__resnormTrain.archs),
    CLAIM_BY_ID.depth.runs.map((r) => r.key),
  );
  assert.match(await page.locator('#embed .open-full').getAttribute('href'), /train\.html#preset=depth$/);

  // <resnorm-train preset="lesion" controls="steps">: the preset's runs, its buttons hidden (not a setting shown)
  const host = await pageIn(context, `${site.url}examples/lab.html`, { ready: false });
  await host.waitForFunction(() => customElements.get('resnorm-train'));
  const el = await host.evaluate(async () => {
    const e = document.createElement('resnorm-train');
    e.setAttribute('preset', 'lesion');
    e.setAttribute('controls', 'steps');
    e.id = 'lesion-lab';
    document.body.append(e);
    await new Promise((ok) => e.addEventListener('resnorm-render', ok, { once: true }));
    return { preset: e.snapshot.preset, archs: e.snapshot.archs };
  });
  assert.deepEqual(el, { preset: 'lesion', archs: CLAIM_BY_ID.lesion.runs.map((r) => r.key) });
  assert.equal((await presetButtons(host, '#lesion-lab')).bar, null);
  // a changed attribute: the new preset
  await host.evaluate(() => document.getElementById('lesion-lab').setAttribute('preset', 'degradation'));
  await host.waitForFunction(() => document.getElementById('lesion-lab').snapshot.preset === 'degradation');
  // an attribute that names no preset: a notice naming it and the presets there are, no preset
  await host.evaluate(() => document.getElementById('lesion-lab').setAttribute('preset', 'depth,warmup'));
  await host.waitForFunction(() => document.getElementById('lesion-lab').snapshot.preset === 'none');
  assert.match(
    await host.evaluate(() => document.getElementById('lesion-lab').shadowRoot.querySelector('.notice').textContent),
    /Paper claim \(preset\) “depth,warmup”: not one of the choices \(allowed none, warmup, /,
  );
  for (const p of [page, host]) assert.deepEqual(p.problems, []);
  await context.close();
  await site.close();
});

test('the lab page\u2019s Embed dialog keeps the claim: fixed unless every setting is the reader\u2019s, and the height for the column chosen', async () => {
  const site = await serveDir(DIST, { csp: SITE_CSP });
  const context = await newContext();
  const page = await pageIn(context, `${site.url}train.html#preset=warmup&steps=30`);
  await page.click('#train-embed-button');
  assert.match(await page.locator('#train-embed-preset').textContent(), /Warmup \(Xiong et al\. 2020\)/);
  assert.equal(await page.locator('#train-embed-mode-preset').inputValue(), 'fixed');
  const snippets = async () => {
    const iframe = await page.locator('#train-embed-iframe').inputValue();
    return {
      src: iframe.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&'),
      height: Number(iframe.match(/ height="(\d+)"/)[1]),
      element: await page.locator('#train-embed-element').inputValue(),
    };
  };
  let s = await snippets();
  assert.match(s.src, /embed\.html#mode=train&preset=warmup&steps=30&lock=preset$/);
  assert.match(s.element, /<resnorm-train preset="warmup" steps="30" lock="preset">/);
  // a hidden setting: the presets can no longer be live
  await page.selectOption('#train-embed-mode-task', 'hidden');
  assert.equal(await page.locator('#train-embed-mode-preset option[value=live]').isDisabled(), true);
  assert.equal(await page.locator('#train-embed-preset-note').isVisible(), true);
  // the column: 360 px, and the height is the lab's there, with the preset's runs
  await page.selectOption('#train-embed-width', '360');
  s = await snippets();
  const { train, lab, view } = trainEmbedFromHash(new URL(s.src).hash);
  assert.equal(lab.preset, 'warmup');
  assert.equal(s.height, labHeight(view, train, 'warmup', 360));
  await page.selectOption('#train-embed-width', '1280');
  assert.ok((await snippets()).height < s.height, 'a wider column, a shorter lab');
  await page.locator('#train-embed-preset').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/train-embed-dialog-preset.png` });
  // the link the dialog wrote: the Warmup runs, the buttons fixed
  const embed = await pageIn(context, s.src);
  assert.equal(await embed.evaluate(() => window.__resnormTrain.preset), 'warmup');
  assert.deepEqual(
    await embed.evaluate(() => window.__resnormTrain.archs),
    CLAIM_BY_ID.warmup.runs.map((r) => r.key),
  );
  assert.equal(await embed.evaluate(() => window.__resnormTrain.config.steps), 30);
  assert.deepEqual(
    (await presetButtons(embed)).buttons.filter((b) => b.shown).map((b) => [b.id, b.disabled]),
    [['warmup', true]],
  );
  for (const p of [page, embed]) assert.deepEqual(p.problems, []);
  await context.close();
  await site.close();
});
