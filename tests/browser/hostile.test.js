// Hostile input in the browser, beyond state.test.js's list: every declared
// field of the URL state table (web/src/shared/state.js) with hostile and
// random values (markup, javascript: URLs, quotes, NUL and control
// characters, 10 kB values, 1e309 / -0 / 0x10, nested percent-encodings,
// repeated keys, an entry listed twice), a 100 kB fragment, the same values as attributes of
// <resnorm-explorer> and <resnorm-quiz> on a host page, every training field of
// the embedded lab (embed.html#mode=train, <resnorm-train>), and corrupted or
// oversized saved quiz progress. Each time: no script runs (a window flag any
// injected handler would set stays unset, no dialog opens), no console error or
// page error, and the notice names every field that was ignored.
import test from 'node:test';
import assert from 'node:assert/strict';
import { GUARD_MS, SITE_CSP, pageIn, served, useBrowser } from './harness.js';
import { FIELDS_TABLE, LIMITS, keysOf, readField } from '../../web/src/shared/state.js';
import { STORAGE_KEY } from '../../web/src/quiz/store.js';
import { TRAIN_EMBED_TABLE } from '../../web/src/embed/train-view.js';

const it = useBrowser();

const FLAG = 'window.__pwned=1';
const HOSTILE = [
  `<script>${FLAG}</script>`,
  `javascript:${FLAG}`,
  `"><img src=x onerror="${FLAG}">`,
  `'><svg onload=${FLAG}>`,
  `\`\${${FLAG}}\``,
  'a\u0000b',
  '\u0000',
  '\u0007\u001b[31m\u0008\u007f',
  '\u202e\u2028\u2029\ufeff',
  'x'.repeat(10 * 1024),
  '1e309',
  '-1e309',
  '-0',
  '0x10',
  '1e-400',
  'Infinity',
  ' 3',
  '%253Cscript%253E' + FLAG + '%253C%252Fscript%253E',
  '%3Cimg%20src%3Dx%20onerror%3D' + FLAG + '%3E',
  '__proto__',
  'constructor',
  '{"polluted":1}',
  ',,,',
  'all,none,<b>',
];

// Random strings from a hostile alphabet, the same each run.
function randomValues(n, seed = 12345) {
  const alphabet = [
    '<',
    '>',
    '"',
    "'",
    '&',
    '=',
    '#',
    '%',
    ',',
    ' ',
    '\u0000',
    '\u001f',
    'é',
    '\u{1f600}',
    'a',
    '1',
    '.',
    '-',
    'e',
    '\\',
  ];
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: n }, () =>
    Array.from({ length: 1 + Math.floor(next() * 30) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
  );
}
const VALUES = [...HOSTILE, ...randomValues(12)];

// Fields in batches of at most 8 (the notice lists 8 settings and counts the
// rest) whose fragment stays under the length a link may have (longer ones
// are refused whole, tested below).
function batches(keys, raw) {
  const per = encodeURIComponent(raw).length + 24;
  const size = Math.max(1, Math.min(8, Math.floor(LIMITS.hash / per)));
  return Array.from({ length: Math.ceil(keys.length / size) }, (_, i) => keys.slice(i * size, i * size + size));
}

/** The fields of `keys` (of `table`) whose value `raw` cannot be used as given (a notice must name them). */
const refused = (keys, raw, table = FIELDS_TABLE) =>
  keys.filter((k) => {
    const r = readField(k, raw, table);
    return !r.ok || r.dropped || r.repeated;
  });

/** What would show that something ran or leaked: the flag, a dialog, markup in a notice, a polluted prototype. */
async function harmless(page, label, noticeSelector) {
  const r = await page.evaluate((sel) => {
    const shadowed = document.querySelector('#embed, resnorm-explorer, resnorm-quiz, resnorm-train')?.shadowRoot;
    const notices = [...document.querySelectorAll(sel), ...(shadowed ? shadowed.querySelectorAll(sel) : [])];
    return {
      pwned: window.__pwned,
      polluted: {}.polluted,
      markup: notices.map((n) => n.querySelectorAll(':not(p, ul, li, button)').length).reduce((a, b) => a + b, 0),
      inline: document.querySelectorAll('script:not([src]), img, svg:not([class])').length,
    };
  }, noticeSelector);
  assert.equal(r.pwned, undefined, `${label}: a script ran`);
  assert.equal(r.polluted, undefined, `${label}: Object.prototype polluted`);
  assert.equal(r.markup, 0, `${label}: markup in the notice`);
  assert.deepEqual(page.problems, [], `${label}: ${page.problems.join('\n')}`);
}

/** A page that records console errors, page errors and dialogs in .problems. */
async function watched(context, url, options) {
  const page = await pageIn(context, url, options);
  page.on('dialog', (d) => {
    page.problems.push(`dialog: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  return page;
}

const noticeOf = (page, shadow) =>
  page.evaluate((s) => {
    const n = s
      ? document.getElementById('embed').shadowRoot.querySelector('.notice')
      : document.getElementById('notice');
    return n.hidden ? '' : n.textContent;
  }, shadow);

/** Every value of VALUES in every field of `keys` (of `table`), in batches, after the `before` pairs. */
async function fragments(page, { keys, shadow, ready, before = [], table = FIELDS_TABLE, values = VALUES }) {
  for (const raw of values)
    for (const batch of batches(keys, raw)) {
      const hash = `#${new URLSearchParams([...before, ...batch.map((k) => [k, raw])]).toString()}`;
      const label = `${batch.join(',')} = ${JSON.stringify(raw.slice(0, 30))}`;
      await goToHash(page, hash);
      await ready(page);
      const names = refused(batch, raw, table);
      if (names.length) {
        await page
          .waitForFunction(
            ([s, k]) => {
              const n = s
                ? document.getElementById('embed').shadowRoot?.querySelector('.notice')
                : document.getElementById('notice');
              return n && !n.hidden && n.textContent.includes(`(${k})`);
            },
            [shadow, names[0]],
          )
          .catch(async (e) =>
            assert.fail(`${label}: no notice naming ${names[0]} (${await noticeOf(page, shadow)}) ${e.message}`),
          );
        const notice = await noticeOf(page, shadow);
        for (const k of names)
          assert.ok(notice.includes(`(${k})`), `${label}: the notice does not name ${k}: ${notice}`);
        assert.ok(notice.length < 4000, `${label}: a notice of ${notice.length} characters`);
      }
      await harmless(page, label, '.notice');
    }
}

/** Sets the fragment and resolves once the page's hashchange listeners have run (at once when it is the same). */
const goToHash = (page, hash) =>
  page.evaluate(
    (h) =>
      new Promise((ok) => {
        const before = location.href;
        addEventListener('hashchange', ok, { once: true });
        location.hash = h;
        if (location.href === before) ok();
      }),
    hash,
  );

/** Two frames after the page took the link: what it drew for it has been laid out. */
const settled = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test('explorer: every config field with hostile and random values, repeated keys and a 100 kB fragment', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await watched(context, url);
    await fragments(page, { keys: keysOf('config'), shadow: false, ready: settled });
    // repeated keys: the first is used, the others named
    await page.evaluate(() => {
      location.hash = '#depth=12&depth=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E&gain=0.9&gain=9';
    });
    await page.waitForFunction(() => window.__resnorm.config.depth === 12 && window.__resnorm.config.gain === 0.9);
    assert.match(await noticeOf(page, false), /\(depth\).*given more than once.*\(gain\).*given more than once/s);
    await harmless(page, 'repeated keys', '.notice');
    // 100 kB fragments: one value, and many settings
    for (const hash of [`#depth=${'9'.repeat(100 * 1024)}`, `#${'depth=1&'.repeat(12 * 1024)}`]) {
      await page.evaluate((h) => {
        location.hash = h;
      }, hash);
      await page.waitForFunction(() => /too long|settings/.test(document.getElementById('notice').textContent));
      await page.waitForFunction(() => window.__resnorm.config.depth === 96);
      await harmless(page, `a fragment of ${hash.length} characters`, '.notice');
    }
    // and on a fresh load
    const fresh = await watched(context, `${url}#gain=${'1'.repeat(100 * 1024)}&depth=<script>${FLAG}</script>`);
    assert.match(await noticeOf(fresh, false), /too long/);
    await harmless(fresh, '100 kB on load', '.notice');
    await context.close();
  }));

test('embed.html: every config, view and quiz field with hostile and random values', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await watched(context, `${url}embed.html`);
    const keys = [...keysOf('config'), ...keysOf('view').filter((k) => k !== 'mode')];
    await fragments(page, { keys, shadow: true, ready: settled });
    // the quiz's fields, in the quiz
    const quizKeys = ['mode', ...keysOf('quiz'), 'theme'];
    for (const raw of VALUES) {
      const params = new URLSearchParams([['mode', 'quiz'], ...keysOf('quiz').map((k) => [k, raw]), ['theme', raw]]);
      await goToHash(page, `#${params}`);
      await settled(page);
      // over the length a link may have, the whole fragment is refused: the notice says so
      const names = String(params).length > LIMITS.hash ? [] : refused(quizKeys.slice(1), raw);
      if (!names.length && String(params).length > LIMITS.hash)
        await page.waitForFunction(() =>
          /too long/.test(document.getElementById('embed').shadowRoot?.querySelector('.notice')?.textContent),
        );
      const label = `quiz fields = ${JSON.stringify(raw.slice(0, 30))}`;
      if (names.length) {
        await page
          .waitForFunction(
            (k) =>
              document.getElementById('embed').shadowRoot?.querySelector('.notice')?.textContent.includes(`(${k})`),
            names[0],
          )
          .catch(async (e) =>
            assert.fail(`${label}: no notice naming ${names[0]} (${await noticeOf(page, true)}) ${e.message}`),
          );
        const notice = await noticeOf(page, true);
        for (const k of names) assert.ok(notice.includes(`(${k})`), `${label}: no ${k} in ${notice}`);
      }
      await harmless(page, label, '.notice');
    }
    await context.close();
  }));

test('<resnorm-explorer> and <resnorm-quiz>: every attribute with hostile and random values', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await watched(context, `${url}examples/plain.html`, { ready: false });
    await page.waitForFunction(() => customElements.get('resnorm-explorer') && customElements.get('resnorm-quiz'));
    const groups = {
      'resnorm-explorer': [...keysOf('config'), ...keysOf('view').filter((k) => k !== 'mode')],
      'resnorm-quiz': [...keysOf('quiz'), 'theme'],
    };
    for (const [tag, keys] of Object.entries(groups))
      for (const raw of VALUES)
        for (const batch of batches(keys, raw)) {
          const label = `<${tag}> ${batch.join(',')} = ${JSON.stringify(raw.slice(0, 30))}`;
          const notice = await page.evaluate(
            async ([name, list, value, guard]) => {
              const el = document.createElement(name);
              for (const k of list) el.setAttribute(k.replaceAll('_', '-'), value);
              const drawn = new Promise((ok) => el.addEventListener('resnorm-render', () => ok(true), { once: true }));
              document.body.append(el);
              // a guard against a hang, not a measure: every element draws, whatever its attributes
              const painted = await Promise.race([drawn, new Promise((ok) => setTimeout(() => ok(false), guard))]);
              const n = el.shadowRoot.querySelector('.notice');
              const text = n && !n.hidden ? n.textContent : '';
              el.remove();
              return { text, painted };
            },
            [tag, batch, raw, GUARD_MS],
          );
          assert.ok(notice.painted, `${label}: the element never drew`);
          for (const k of refused(batch, raw))
            assert.ok(notice.text.includes(`(${k})`), `${label}: the notice does not name ${k}: ${notice.text}`);
          await harmless(page, label, '.notice');
        }
    await context.close();
  }));

test('the embedded lab: every training and view field with hostile and random values, in the link and as attributes', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const keys = [
      ...keysOf('train', TRAIN_EMBED_TABLE),
      ...keysOf('view', TRAIN_EMBED_TABLE).filter((k) => k !== 'mode'),
    ];
    // every hostile value and four random ones: each new link mounts the whole lab again (charts, heatmaps)
    const values = VALUES.slice(0, HOSTILE.length + 4);
    const page = await watched(context, `${url}embed.html#mode=train`);
    await fragments(page, {
      keys,
      shadow: true,
      ready: settled,
      before: [['mode', 'train']],
      table: TRAIN_EMBED_TABLE,
      values,
    });
    await page.close();
    const host = await watched(context, `${url}examples/lab.html`, { ready: false });
    await host.waitForFunction(() => customElements.get('resnorm-train'));
    for (const raw of values)
      for (const batch of batches(keys, raw)) {
        const label = `<resnorm-train> ${batch.join(',')} = ${JSON.stringify(raw.slice(0, 30))}`;
        const notice = await host.evaluate(
          ([list, value]) => {
            const el = document.createElement('resnorm-train');
            for (const k of list) el.setAttribute(k.replaceAll('_', '-'), value);
            document.body.append(el);
            const n = el.shadowRoot.querySelector('.notice');
            const text = n && !n.hidden ? n.textContent : '';
            el.remove();
            return text;
          },
          [batch, raw],
        );
        for (const k of refused(batch, raw, TRAIN_EMBED_TABLE))
          assert.ok(notice.includes(`(${k})`), `${label}: the notice does not name ${k}: ${notice}`);
        await harmless(host, label, '.notice');
      }
    await context.close();
  }));

// Saved progress as the quiz page finds it in localStorage.
const BIG = 'x'.repeat(5 * 1024 * 1024);
const STORED = [
  ['JSON garbage', '{"version":1,"items":{'],
  ['NUL bytes', '\u0000\u0000{}'],
  ['null', 'null'],
  ['an array', '[1,2,3]'],
  ['a string', '"resnorm"'],
  ['a number', '1e309'],
  ['items as an array', '{"version":1,"items":[]}'],
  ['wrong types inside', '{"version":"1","items":{"tf-01":{"box":"9","seen":"<img src=x onerror=window.__pwned=1>"}}}'],
  // a key the record does not have is not read (the rest is a valid record), and the notice names it
  ['__proto__ at the top', '{"__proto__":{"polluted":1},"version":1,"items":{}}'],
  ['__proto__ as an item', '{"version":1,"items":{"__proto__":{"polluted":1},"constructor":{"box":1}}}'],
  ['markup as an item id', `{"version":1,"items":{"<script>${FLAG}</script>":{"box":1,"seen":1}}}`],
  ['5 MB', BIG],
  ['5 MB of JSON', `{"version":1,"items":{},"pad":"${BIG}"}`],
];

test('the quiz page: corrupted and oversized saved progress is reset with a notice, and nothing runs', () =>
  served({ csp: SITE_CSP }, async (url) => {
    for (const [name, value, notice = true] of STORED) {
      const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(
        ([k, v]) => {
          if (sessionStorage.getItem('seeded')) return;
          sessionStorage.setItem('seeded', '1');
          try {
            localStorage.setItem(k, v);
            localStorage.setItem('resnorm.theme.v1', '<script>window.__pwned=1</script>');
          } catch {
            window.__tooBig = true; // over the browser's quota: nothing was stored
          }
        },
        [STORAGE_KEY, value],
      );
      const page = await watched(context, `${url}quiz.html#quiz/tf-01`);
      const label = `saved progress: ${name}`;
      const stored = !(await page.evaluate(() => window.__tooBig === true));
      if (stored && notice) {
        assert.equal(await page.locator('#notice').isVisible(), true, `${label}: no notice`);
        assert.match(await page.locator('#notice-text').textContent(), /Quiz progress/, label);
      }
      // the quiz works and records the answer
      await page.locator('.choice[data-choice=false]').click();
      await page.locator('[data-action=reveal]').click();
      await page.locator('.item-graded').waitFor();
      const saved = await page.evaluate((k) => JSON.parse(localStorage.getItem(k)), STORAGE_KEY);
      assert.equal(saved.items['tf-01'].seen, 1, label);
      assert.equal(Object.getPrototypeOf(saved.items), Object.prototype, label);
      await harmless(page, label, '#notice');
      await context.close();
    }
  }));

test('a link pasted while the page rewrites its address: the explorer and the lab read the link', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    for (const [path, hash, field] of [
      ['', '#depth=12&gain=%3Cb%3E', 'gain'],
      ['train.html', '#steps=12&lr=%3Cb%3E', 'lr'],
    ]) {
      const page = await watched(context, `${url}${path}`);
      // The page's own delayed write of what it showed lands after the link is set and before its
      // hashchange is handled (on a busy machine a timer can run first): here on purpose, in one task.
      await page.evaluate((h) => {
        const shown = location.hash || '#';
        location.hash = h;
        history.replaceState(null, '', shown);
      }, hash);
      await page.waitForFunction((k) => {
        const n = document.getElementById('notice');
        return !n.hidden && n.textContent.includes(`(${k})`);
      }, field);
      await harmless(page, `${path || 'index.html'}${hash}`, '.notice');
    }
    await context.close();
  }));

test('an architecture listed twice in a link: the explorer and the lab use it once and say so', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    for (const [path, hash, shown] of [
      ['', '#arch=pre_ln,plain,pre_ln&depth=12', () => window.__resnorm.config.arch],
      ['train.html', '#arch=pre_ln,pre_ln&steps=12', () => window.__resnormTrain.archs],
    ]) {
      const page = await watched(context, `${url}${path}${hash}`);
      const notice = await noticeOf(page, false);
      assert.match(notice, /Architectures \(arch\) \u201cpre_ln\u201d: listed twice \(each once\); used once/, path);
      assert.deepEqual(await page.evaluate(shown), path ? ['pre_ln'] : ['plain', 'pre_ln'], path);
      await harmless(page, `${path || 'index.html'}${hash}`, '.notice');
    }
    await context.close();
  }));

test('the field table is what the tests above walk through', () => {
  assert.ok(keysOf('config').length >= 13);
  assert.deepEqual(
    Object.keys(FIELDS_TABLE).sort(),
    [...keysOf('config'), ...keysOf('view'), ...keysOf('quiz')].sort(),
  );
});
