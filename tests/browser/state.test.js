// Shareable state in the browser: every field of the declared table
// (web/src/shared/state.js, whose config fields are the engine's) round-trips through a link, a shared link reproduces the
// same numbers, and hostile fragments never change the page outside the
// notice, on load and on hashchange, in the explorer, embed.html and the
// custom element. Debian's Chromium, the strict CSP.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { DIST, SITE_CSP, launch, openPage, pageIn, waitForRender } from './harness.js';
import { startServer } from '../../scripts/serve.js';
import {
  configToHash,
  stateToHash,
  defaultConfig,
  defaultView,
  defaultQuiz,
  FIELDS_TABLE,
} from '../../web/src/shared/state.js';
import { ARCHS } from '../../web/src/shared/archs.js';

const CSP = SITE_CSP;

let browser;
let site;
before(async () => {
  browser = await launch();
  const server = await startServer({ port: 0, root: DIST, base: '/course/week-3/', csp: CSP });
  site = {
    url: `http://127.0.0.1:${server.address().port}/course/week-3/`,
    close: () => new Promise((ok) => server.close(ok)),
  };
});
after(async () => {
  await embedContext?.close();
  await site?.close();
  await browser?.close();
});

// The engine's answer is on screen (not only the shipped first paint) and the
// explorer has rewritten the URL, which it does a little after a render (body's data-url).
const settle = (page) =>
  page.waitForFunction(
    () =>
      !['loading', 'computing'].includes(document.getElementById('status')?.dataset.state) &&
      document.body.dataset.url !== 'pending',
  );

// Pages share a context (faster than a context per page): harness.js's pageIn().
const newContext = () => browser.newContext({ viewport: { width: 1280, height: 900 } });
const known = (key) => Object.hasOwn(FIELDS_TABLE, key);

// One non-default value per config field (the node test covers every sample).
const CONFIG_SAMPLES = {
  arch: ['post_ln', 'pre_ln', 'sandwich', 'admin', 'mix_ln', 'dyt', 'hyper', 'attn_res', 'hybrid', 'ngpt'],
  depth: 37,
  gain: 0.85,
  width: 48,
  tokens: 5,
  expansion: 2,
  activation: 'tanh',
  init: 'orthogonal',
  final_norm: 'layernorm',
  seed: 4242,
  block: 'transformer',
  heads: 2,
  causal: false,
  qk_norm: 'layernorm',
  mix_fraction: 0.5,
  dyt_alpha: 0.8,
  hc_streams: 3,
  sinkhorn_iters: 7,
  ngpt_alpha: 0.2,
  attn_res_blocks: 3,
};

test('the samples cover every config field of the table', () => {
  assert.deepEqual(Object.keys(CONFIG_SAMPLES).sort(), Object.keys(defaultConfig()).sort());
});

// What the explorer's form shows for a field.
async function shown(page, field) {
  return page.evaluate((f) => {
    const $ = (id) => document.getElementById(id);
    if (f === 'arch') return [...document.querySelectorAll('input[name=arch]:checked')].map((c) => c.value);
    const id = { depth: 'depth-number', gain: 'gain-number', final_norm: 'final-norm' }[f] ?? f.replaceAll('_', '-');
    return $(id).value;
  }, field);
}

test('explorer: every config field round-trips through the link, the form shows it, the URL stays canonical', async () => {
  const context = await newContext();
  for (const [field, value] of Object.entries(CONFIG_SAMPLES)) {
    const config = { ...defaultConfig(), [field]: value };
    const hash = configToHash(config);
    const page = await pageIn(context, site.url + hash);
    await waitForRender(page, { [field]: value });
    const got = await page.evaluate(() => window.__resnorm.config);
    for (const k of Object.keys(config)) assert.deepEqual(got[k], config[k], `${hash}: ${k}`);
    const form = await shown(page, field);
    const expect = field === 'arch' ? value : FIELDS_TABLE[field].kind === 'real' ? value.toFixed(2) : String(value);
    assert.deepEqual(form, expect, `${hash}: the form`);
    await settle(page);
    assert.equal(await page.evaluate(() => location.hash), hash);
    assert.equal(await page.locator('#notice').isHidden(), true);
    assert.deepEqual(page.problems, []);
    await page.close();
  }
  await context.close();
});

test('explorer: a link made by moving the controls reproduces the same numbers in a fresh browser', async () => {
  const page = await openPage(browser, site.url);
  let renders = await page.evaluate(() => window.__resnorm.renders);
  await page.locator('#depth-number').fill('37');
  renders = await waitForRender(page, { depth: 37 }, renders);
  await page.locator('#gain-number').fill('1.1');
  renders = await waitForRender(page, { gain: 1.1 }, renders);
  await page.locator('#seed').fill('987654321');
  renders = await waitForRender(page, { seed: 987654321 }, renders);
  await page.locator('#activation').selectOption('gelu');
  renders = await waitForRender(page, { activation: 'gelu' }, renders);
  await page.locator('#arch-more summary').click();
  await page.locator('label.chip-sandwich').click();
  await waitForRender(page, { arch: ['plain', 'residual', 'post_ln', 'pre_ln', 'sandwich'] }, renders);
  await settle(page);
  const first = await page.evaluate(() => ({
    href: location.href,
    config: window.__resnorm.config,
    plotted: window.__resnorm.plotted,
  }));
  assert.match(
    first.href,
    /#arch=plain,residual,post_ln,pre_ln,sandwich&depth=37&gain=1\.1&activation=gelu&seed=987654321$/,
  );
  await page.context().close();

  const again = await openPage(browser, first.href);
  const second = await again.evaluate(() => ({ config: window.__resnorm.config, plotted: window.__resnorm.plotted }));
  assert.deepEqual(second.config, first.config);
  assert.deepEqual(second.plotted, first.plotted);
  assert.deepEqual(again.problems, []);
  await again.context().close();
});

// ---- embed.html: the view and quiz fields

let embedContext = null;
async function openEmbed(hash) {
  embedContext ??= await newContext();
  return pageIn(embedContext, `${site.url}embed.html${hash}`);
}

// What embed.html shows, read inside its shadow root (named probes: the page's
// CSP allows no eval, so no code is sent as text).
const inEmbed = (page, probe) =>
  page.evaluate((name) => {
    const root = document.getElementById('embed').shadowRoot;
    const ids = (sel) => [...root.querySelectorAll(sel)].map((e) => e.id.replace(/^rn\d+-/, ''));
    switch (name) {
      case 'charts':
        return root.querySelectorAll('.chart-figure .chart').length;
      case 'titles':
        return [...root.querySelectorAll('.chart-title')].map((e) => e.textContent);
      case 'inputs':
        return ids('.controls input, .controls select');
      case 'forms':
        return root.querySelectorAll('.controls').length;
      case 'locked':
        return ids('.controls input:disabled').sort();
      case 'theme':
        return root.querySelector('.rn').dataset.theme;
      case 'captions':
        return root.querySelectorAll('.caption').length;
      case 'quiz':
        return root.querySelectorAll('.quiz-item').length;
      case 'noticeHidden':
        return root.querySelector('.notice').hidden;
      default:
        throw new Error(`no probe ${name}`);
    }
  }, probe);

test('embed.html: every view and quiz field round-trips and shapes the view', async () => {
  const cases = [
    ['charts', ['grad'], 'charts', 1],
    ['charts', ['stream', 'update'], 'titles', ['Size of the residual stream', 'How much block l changes the stream']],
    ['controls', ['depth'], 'inputs', ['depth', 'depth-n']],
    ['controls', [], 'forms', 0],
    [
      'lock',
      ['arch', 'gain'],
      'locked',
      // every architecture's checkbox, and the gain's two inputs
      [...ARCHS.map((a) => `arch-${a.key}`), 'gain', 'gain-n'].sort(),
    ],
    ['theme', 'dark', 'theme', 'dark'],
    ['theme', 'light', 'theme', 'light'],
    ['caption', false, 'captions', 0],
    ['mode', 'quiz', 'quiz', 1],
  ];
  for (const [field, value, probe, expect] of cases) {
    const view = { ...defaultView(), [field]: value };
    const hash = stateToHash({ view }, { groups: ['view'] });
    const page = await openEmbed(hash);
    assert.deepEqual(await inEmbed(page, probe), expect, `${hash}`);
    assert.deepEqual(await inEmbed(page, 'noticeHidden'), true, hash);
    assert.deepEqual(page.problems, [], hash);
    await page.close();
  }
  const quizCases = [
    [{ items: ['why-03', 'tf-01'] }, ['why-03', 'tf-01']],
    [{ section: ['recall'] }, ['recall-01', 'recall-02', 'recall-03', 'recall-04', 'recall-05']],
    [{ tag: ['warmup'], section: ['true-false'] }, null],
  ];
  for (const [quiz, expect] of quizCases) {
    const hash = stateToHash(
      { view: { ...defaultView(), mode: 'quiz' }, quiz: { ...defaultQuiz(), ...quiz } },
      { groups: ['view', 'quiz'] },
    );
    const page = await openEmbed(hash);
    const ids = await page.evaluate(() => window.__resnorm.quiz.items);
    if (expect) assert.deepEqual(ids, expect, hash);
    else assert.ok(ids.length > 0 && ids.every((id) => id.startsWith('tf-')), `${hash}: ${ids}`);
    assert.deepEqual(page.problems, [], hash);
    await page.close();
  }
});

test('embed.html: the config fields drive the same numbers as the explorer', async () => {
  const config = { ...defaultConfig(), ...CONFIG_SAMPLES };
  const page = await openEmbed(configToHash(config));
  const embedded = await page.evaluate(() => ({ config: window.__resnorm.config, plotted: window.__resnorm.plotted }));
  await page.close();
  const explorer = await openPage(browser, site.url + configToHash(config));
  await waitForRender(explorer, { depth: config.depth });
  const full = await explorer.evaluate(() => ({ config: window.__resnorm.config, plotted: window.__resnorm.plotted }));
  await explorer.context().close();
  assert.deepEqual(embedded.config, full.config);
  assert.deepEqual(embedded.plotted, full.plotted);
});

// ---- hostile links

const BIG = 'A'.repeat(10 * 1024);
const HOSTILE = [
  ['depth', '<script>window.__pwned=1</script>'],
  ['depth', '-12'],
  ['depth', 'NaN'],
  ['depth', '0'],
  ['depth', '1e999'],
  ['depth', BIG],
  ['gain', 'javascript:window.__pwned=1'],
  ['gain', 'NaN'],
  ['gain', '-1'],
  ['seed', 'NaN'],
  ['seed', '4294967296'],
  ['width', '"><img src=x onerror="window.__pwned=1">'],
  ['activation', '<img src=x onerror=window.__pwned=1>'],
  ['arch', BIG],
  ['arch', '<svg onload=window.__pwned=1>'],
  ['arch', 'javascript:alert(1)'],
  ['final_norm', '\u0000\u202e\u2028evil'],
  ['mix_fraction', 'NaN'],
  ['mix_fraction', '-1'],
  ['mix_fraction', '2'],
  ['mix_fraction', '<b>half</b>'],
  ['<script>window.__pwned=1</script>', '1'],
  ['__proto__', '{"polluted":1}'],
  ['constructor', 'x'],
];
const hashOf = (k, v) => `#${new URLSearchParams([[k, v]]).toString()}`;

// The page, minus the notice and the timings: the status line's, and the
// "computing for ... s" box that a recompute over a second shows (on a loaded
// machine, while one page is still computing and the other is not).
function snapshot(page) {
  return page.evaluate(() => {
    const c = document.body.cloneNode(true);
    const n = c.querySelector('#notice');
    n.replaceChildren();
    n.hidden = true;
    c.querySelector('#status').textContent = '';
    for (const p of c.querySelectorAll('.pending')) {
      p.hidden = true;
      p.querySelector('.pending-time').textContent = '';
    }
    return c.innerHTML;
  });
}

async function checkClean(page, key, label) {
  const r = await page.evaluate(
    ([k]) => ({
      pwned: window.__pwned,
      polluted: {}.polluted,
      scripts: document.scripts.length,
      notice: document.getElementById('notice').hidden ? '' : document.getElementById('notice').textContent,
      noticeHtml: document.getElementById('notice').innerHTML,
      config: window.__resnorm.config,
      field: k,
    }),
    [key],
  );
  assert.equal(r.pwned, undefined, label);
  assert.equal(r.polluted, undefined, label);
  assert.equal(r.scripts, 1, label);
  assert.ok(r.notice.length > 0, `${label}: no notice`);
  assert.ok(r.notice.length < 2000, `${label}: notice of ${r.notice.length} characters`);
  assert.doesNotMatch(r.noticeHtml, /<(script|img|svg)/i, label);
  const dflt = defaultConfig();
  for (const k of Object.keys(dflt)) assert.deepEqual(r.config[k], dflt[k], `${label}: ${k}`);
  if (known(key)) assert.match(r.notice, new RegExp(`\\(${key}\\)`), label);
}

test('explorer: hostile links on load change nothing but the notice, and never throw', async () => {
  const context = await newContext();
  const clean = await pageIn(context, site.url);
  await settle(clean);
  const reference = await snapshot(clean);
  await clean.close();
  // every entry of the table on hashchange (below); on a fresh load, the list
  const ON_LOAD = HOSTILE.filter(
    ([k, v]) => /script|javascript:|NaN|^-|onerror|__proto__/.test(v + k) || v.length > 1000,
  );
  for (const [k, v] of ON_LOAD) {
    const label = `${k}=${v.slice(0, 40)}`;
    const page = await pageIn(context, site.url + hashOf(k, v));
    await settle(page);
    await checkClean(page, k, label);
    assert.equal(await snapshot(page), reference, `${label}: the page differs outside the notice`);
    assert.equal(await page.evaluate(() => location.hash), '', `${label}: the address still holds the bad value`);
    assert.deepEqual(page.problems, [], label);
    await page.close();
  }
  await context.close();
});

test('explorer: hostile links pasted into an open page (hashchange) likewise', async () => {
  const page = await openPage(browser, site.url);
  await settle(page);
  const reference = await snapshot(page);
  for (const [k, v] of HOSTILE) {
    const label = `hashchange ${k}=${v.slice(0, 40)}`;
    await page.evaluate(
      (h) => {
        location.hash = h;
      },
      hashOf(k, v),
    );
    await page.waitForFunction(() => !document.getElementById('notice').hidden);
    await settle(page);
    await checkClean(page, k, label);
    assert.equal(await snapshot(page), reference, label);
    await page.locator('#notice .notice-close').click();
  }
  // an anchor is not settings: the skip link leaves the config alone
  await page.evaluate(() => {
    location.hash = '#depth=40';
  });
  await waitForRender(page, { depth: 40 });
  await page.locator('.skip-link').focus();
  await page.keyboard.press('Enter');
  await settle(page);
  assert.equal(await page.evaluate(() => window.__resnorm.config.depth), 40);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('embed.html and <resnorm-explorer>: hostile settings give a notice inside, defaults outside harm', async () => {
  for (const [k, v] of HOSTILE.filter(([key]) => known(key))
    .slice(0, 5)
    .concat([
      ['charts', '<b>x</b>'],
      ['theme', 'javascript:x'],
      ['controls', BIG],
    ])) {
    const label = `embed ${k}=${v.slice(0, 40)}`;
    const page = await openEmbed(hashOf(k, v));
    const r = await page.evaluate(() => {
      const root = document.getElementById('embed').shadowRoot;
      const notice = root.querySelector('.notice');
      return {
        pwned: window.__pwned,
        notice: notice.hidden ? '' : notice.textContent,
        html: notice.innerHTML,
        charts: root.querySelectorAll('.chart canvas').length,
        config: window.__resnorm.config,
      };
    });
    assert.equal(r.pwned, undefined, label);
    assert.ok(r.notice.includes(`(${k})`), `${label}: ${r.notice}`);
    assert.doesNotMatch(r.html, /<(script|img|svg|b)\b/i, label);
    assert.equal(r.charts, 3, label);
    if (FIELDS_TABLE[k].group === 'config') assert.deepEqual(r.config[k], FIELDS_TABLE[k].default, label);
    assert.deepEqual(page.problems, [], label);
    await page.close();
  }
});

test('<resnorm-explorer>: hostile attributes give a notice inside the element; changing an attribute re-renders', async () => {
  const page = await openEmbed('').then(async (p) => {
    await p.close();
    return pageIn(embedContext, `${site.url}examples/plain.html`, { ready: false });
  });
  await page.waitForFunction(() => customElements.get('resnorm-explorer'));
  const cases = HOSTILE.filter(([key]) => known(key))
    .slice(0, 10)
    .concat([
      ['lock', '<i>'],
      ['final-norm', 'rmsnorm<'],
    ]);
  for (const [k, v] of cases) {
    const label = `attribute ${k}=${v.slice(0, 40)}`;
    const r = await page.evaluate(
      async ([name, value]) => {
        const el = document.createElement('resnorm-explorer');
        el.setAttribute(name, value);
        el.setAttribute('charts', 'grad');
        document.body.append(el);
        await new Promise((ok) => el.addEventListener('resnorm-render', ok, { once: true }));
        const notice = el.shadowRoot.querySelector('.notice');
        const out = {
          pwned: window.__pwned,
          notice: notice.hidden ? '' : notice.textContent,
          html: notice.innerHTML,
          config: el.snapshot.config,
          outside: document.body.querySelectorAll('img, svg, script:not([src])').length,
        };
        el.remove();
        return out;
      },
      [k, v],
    );
    assert.equal(r.pwned, undefined, label);
    assert.equal(r.outside, 0, label);
    assert.ok(r.notice.includes(`(${k.replace('-', '_')})`), `${label}: ${r.notice}`);
    assert.doesNotMatch(r.html, /<(script|img|svg|i)\b/i, label);
  }
  // a live element follows its attributes
  const depths = await page.evaluate(async () => {
    const el = document.createElement('resnorm-explorer');
    el.setAttribute('depth', '12');
    el.setAttribute('charts', 'grad');
    document.body.append(el);
    const next = () =>
      new Promise((ok) => el.addEventListener('resnorm-render', () => ok(el.snapshot.config.depth), { once: true }));
    const a = await next();
    el.setAttribute('depth', '13');
    const b = await next();
    el.remove();
    return [a, b];
  });
  assert.deepEqual(depths, [12, 13]);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('<resnorm-explorer>: every config field the engine has, admin and block, heads, causal included, comes from its attributes', async () => {
  const page = await pageIn(embedContext ?? (embedContext = await newContext()), `${site.url}examples/plain.html`, {
    ready: false,
  });
  await page.waitForFunction(() => customElements.get('resnorm-explorer'));
  const attrs = {
    ...CONFIG_SAMPLES,
    final_norm: undefined,
    'final-norm': CONFIG_SAMPLES.final_norm,
    mix_fraction: undefined,
    'mix-fraction': CONFIG_SAMPLES.mix_fraction,
    dyt_alpha: undefined,
    'dyt-alpha': CONFIG_SAMPLES.dyt_alpha,
    qk_norm: undefined,
    'qk-norm': CONFIG_SAMPLES.qk_norm,
  };
  const entries = Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]);
  const r = await page.evaluate(async (list) => {
    const el = document.createElement('resnorm-explorer');
    for (const [k, v] of list) el.setAttribute(k, v);
    el.setAttribute('charts', 'grad');
    el.setAttribute('controls', 'all');
    document.body.append(el);
    await new Promise((ok) => el.addEventListener('resnorm-render', ok, { once: true }));
    const root = el.shadowRoot;
    const out = {
      config: el.snapshot.config,
      notice: root.querySelector('.notice').hidden,
      block: root.querySelector('select[id$="-block"]').value,
      heads: root.querySelector('select[id$="-heads"]').value,
      causal: root.querySelector('select[id$="-causal"]').value,
      admin: root.querySelector('input[id$="-arch-admin"]').checked,
      mix: root.querySelector('input[id$="-mix-fraction"]').value,
      mixShown: !root.querySelector('input[id$="-mix-fraction"]').closest('.field').hidden,
    };
    el.remove();
    return out;
  }, entries);
  const expect = { ...defaultConfig(), ...CONFIG_SAMPLES };
  for (const k of Object.keys(expect)) assert.deepEqual(r.config[k], expect[k], k);
  assert.equal(r.notice, true);
  assert.deepEqual([r.block, r.heads, r.causal, r.admin], ['transformer', '2', 'false', true]);
  assert.deepEqual([r.mix, r.mixShown], ['0.50', true]);
  assert.deepEqual(page.problems, []);
  await page.close();
});
