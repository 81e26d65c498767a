// An assignment end to end, in Debian's Chromium, the site at a sub-path under the strict CSP: a
// teacher makes one in the form of assignment.html (a title and instructions with markup in them,
// the lab's Warmup claim, three questions) and opens its link: the instructions show as text, the
// experiment is the claim's and locked (its claim buttons and settings take neither a click nor
// a key), the questions are the chosen ones; at 360 px in the dark theme nothing overlaps or
// scrolls sideways. Then the same assignment's SCORM packages (1.2 and 2004), downloaded from the
// form, run in scorm-again as the LMS with the site gone: the lab trains on the package's own
// engine files and the LMS receives the answers, the score and passed. Screenshots in
// test-results/.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SHOTS,
  SITE_CSP,
  STRICT_CSP,
  cspContext,
  cspViolations,
  downloadBytes,
  labDrawn,
  layoutSettled,
  launch,
  overlaps,
  pageIn,
  serve,
} from './harness.js';
import { lmsFolder, lmsValues, startSco } from './lms-host.js';
import { startServer } from '../../scripts/serve.js';

const BASE = '/course/week-3/';
const TITLE = 'Week 3 <img src=x onerror="window.__pwned=1">: warmup & Post-LN';
const TEXT = [
  'Train the three runs <script>window.__pwned=2</script> and compare them.',
  'Keep this line with the one above.',
  '',
  '- Start the lab',
  '- Watch the loss',
  '',
  '1. Which run trains?',
  '2. Why does warmup matter?',
].join('\n');
// in the bank's order, which the form keeps
const ITEMS = ['tf-08', 'err-03', 'why-06'];
const WARMUP_RUNS = ['post_ln', 'post_ln_warmup', 'pre_ln'];
// what the learner writes in the two self-graded questions' answer boxes, by the grade they give
const WRITTEN = {
  'got-it': 'The Jacobian is I plus the sublayer term, not the sublayer term alone.',
  'missed-it': 'Warmup keeps the first Adam steps small while the variance estimates settle.',
};

let browser;
let work;
before(async () => {
  browser = await launch();
  work = mkdtempSync(join(tmpdir(), 'resnorm-assignment-'));
});
after(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

const newContext = (options = {}) => cspContext(browser, { acceptDownloads: true, ...options });

/** The form, filled in as the teacher does: returns the page, the link it wrote. */
async function makeAssignment(context, site) {
  const page = await pageIn(context, `${site.url}assignment.html`);
  await page.locator('#assign-q-tf-08').waitFor();
  await page.fill('#assign-title', TITLE);
  await page.fill('#assign-text', TEXT);
  await page.selectOption('#assign-experiment', 'lab');
  await page.selectOption('#assign-preset', 'warmup');
  for (const id of ITEMS) await page.check(`#assign-q-${id}`);
  await page.waitForFunction(() => document.getElementById('assign-count').textContent.startsWith('3 of'));
  const link = await page.inputValue('#assign-link');
  return { page, link };
}

/** The element focused, through the shadow roots it is in. */
const focused = (page) =>
  page.evaluate(() => {
    let e = document.activeElement;
    while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
    if (!e || e === document.body) return null;
    // each element its own number, so two alike (two "More settings") are two stops
    e.__tabStop ??= window.__tabStops = (window.__tabStops ?? 0) + 1;
    return {
      key: `${e.tagName}#${e.id}.${e.className}|${e.textContent.trim().slice(0, 24)}|${e.__tabStop}`,
      tag: e.tagName,
      preset: e.dataset?.preset ?? null,
      setting: Boolean(e.closest('form.controls')) && e.tagName !== 'SUMMARY',
    };
  });

const LAB = '#assignment-experiment-view';
const labRoot = (page, sel) => page.locator(`${LAB} ${sel}`);

test('a teacher makes an assignment (instructions, the Warmup claim, three questions); its link shows the instructions as text, the claim locked to mouse and keyboard, the chosen questions', async () => {
  const site = await serve({ base: BASE, csp: STRICT_CSP });
  const context = await newContext();
  try {
    const { page: form, link } = await makeAssignment(context, site);
    assert.ok(link.startsWith(`${site.url}assignment.html#`), link);
    const params = new URLSearchParams(new URL(link).hash.slice(1));
    assert.equal(params.get('title'), TITLE);
    assert.equal(params.get('text'), TEXT);
    assert.equal(params.get('experiment'), 'lab');
    assert.equal(params.get('preset'), 'warmup');
    assert.equal(params.get('items'), ITEMS.join(','));
    // the default grading (self-graded answers left out, pass mark 80 %) is not written
    assert.deepEqual([params.has('self_graded'), params.has('pass_mark')], [false, false]);
    assert.ok(link.length < 1200, `${link.length} characters`);
    assert.match(await form.inputValue('#assign-iframe'), /^<iframe src="[^"]+assignment\.html#title=Week\+3\+%3Cimg/);
    assert.equal(await form.locator('#assign-problem').isHidden(), true);
    await form.screenshot({ path: `${SHOTS}/assignment-form.png`, fullPage: true });
    assert.deepEqual(form.problems, []);

    const page = await pageIn(context, link);
    await labDrawn(page);
    // the title and the instructions: text, nothing of the markup run or made an element
    const shown = await page.evaluate(() => {
      const text = document.getElementById('assignment-text');
      return {
        pwned: window.__pwned ?? null,
        elements: document.querySelectorAll('#assignment img, #assignment script').length,
        title: document.querySelector('h1').textContent,
        tab: document.title,
        blocks: [...text.children].map((b) => [
          b.tagName,
          b.tagName === 'P' ? b.innerText : [...b.children].map((li) => li.textContent),
        ]),
        notice: document.querySelector('#assignment > .notice').hidden,
      };
    });
    assert.deepEqual(shown, {
      pwned: null,
      elements: 0,
      title: TITLE,
      tab: `${TITLE}: resnorm`,
      blocks: [
        [
          'P',
          'Train the three runs <script>window.__pwned=2</script> and compare them.\nKeep this line with the one above.',
        ],
        ['UL', ['Start the lab', 'Watch the loss']],
        ['OL', ['Which run trains?', 'Why does warmup matter?']],
      ],
      notice: true,
    });

    // the experiment: the Warmup claim's settings and runs, every setting and claim button fixed
    const hook = () => page.evaluate(() => window.__resnormAssignment);
    let h = await hook();
    assert.equal(h.experiment, 'lab');
    assert.equal(h.lab.preset, 'warmup');
    assert.deepEqual(h.lab.archs, WARMUP_RUNS);
    const config = h.lab.config;
    assert.deepEqual([config.depth, config.lr, config.steps, config.task], [6, 0.012, 300, 'reverse']);
    const controls = await page.evaluate((sel) => {
      const root = document.querySelector(sel).shadowRoot;
      return {
        presets: [...root.querySelectorAll('button.preset')].map((b) => [
          b.dataset.preset,
          b.disabled,
          b.getAttribute('aria-pressed'),
        ]),
        settings: [...root.querySelectorAll('form.controls input, form.controls select, form.controls button')].map(
          (e) => [e.id || e.name, e.disabled || e.matches(':disabled')],
        ),
        start: root.querySelector('#train-start').disabled,
        lockNote: root.querySelector('.train-lock-note')?.hidden ?? true,
      };
    }, LAB);
    assert.ok(controls.presets.length > 0, 'the claim buttons show which claim it is');
    assert.deepEqual(
      controls.presets.filter(([, disabled]) => !disabled),
      [],
      'no claim button can be pressed',
    );
    assert.deepEqual(
      controls.presets.filter(([, , pressed]) => pressed === 'true').map(([id]) => id),
      ['warmup'],
    );
    assert.ok(controls.settings.length > 20, `${controls.settings.length} settings shown`);
    assert.deepEqual(
      controls.settings.filter(([, disabled]) => !disabled),
      [],
      'every setting shown is fixed',
    );
    assert.equal(controls.start, false, 'Start is the learner\u2019s');
    assert.equal(controls.lockNote, true, 'no "Start locks these settings" where every setting is fixed');

    // the mouse: a claim button and a setting, clicked anyway, change nothing
    // (the buttons of the other claims may be hidden: the DOM's click() on each, which a disabled
    // button ignores)
    await labRoot(page, 'button.preset:not([hidden])').first().click({ force: true });
    await page.evaluate((sel) => {
      for (const b of document.querySelector(sel).shadowRoot.querySelectorAll('button.preset')) b.click();
    }, LAB);
    await labRoot(page, '#train-arch-plain').click({ force: true });
    // the keyboard: the page's whole Tab order reaches Start, and no setting or claim button
    const stops = [];
    for (let i = 0; i < 400; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      if (f && stops.some((s) => s.key === f.key)) break;
      if (f) stops.push(f);
    }
    assert.ok(
      stops.some((s) => s.key.startsWith('BUTTON#train-start')),
      'Tab reaches Start',
    );
    assert.deepEqual(
      stops.filter((s) => s.setting || s.preset).map((s) => s.key),
      [],
      'Tab reaches no setting and no claim button',
    );
    // keys sent at a fixed setting or preset button: the focus leaves whatever held it, and
    // focus() does nothing on a disabled control, so the keys reach no control at all
    for (const sel of ['#train-depth', '#train-lr', 'button.preset[data-preset="warmup"]']) {
      await labRoot(page, sel).evaluate((e) => {
        let a = document.activeElement;
        while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
        a?.blur();
        e.focus();
      });
      assert.equal(await focused(page), null, `${sel} takes no focus`);
      for (const key of ['ArrowUp', '9', 'Enter', ' ']) await page.keyboard.press(key);
    }
    h = await hook();
    assert.equal(h.lab.preset, 'warmup');
    assert.deepEqual(h.lab.archs, WARMUP_RUNS);
    assert.deepEqual(h.lab.config, config);
    assert.equal(h.lab.state, 'idle');

    // the questions: the chosen ones, in order, the first one shown
    assert.deepEqual(h.items, ITEMS);
    assert.deepEqual(h.quiz.items, ITEMS);
    assert.equal(h.quiz.current, 'tf-08');
    assert.equal(await page.locator('#assignment-quiz-view .quiz-item').getAttribute('data-id'), 'tf-08');
    assert.match(await page.locator('#assignment-quiz-view .quiz-head').textContent(), /Question 1 of 3/);
    await page.screenshot({ path: `${SHOTS}/assignment-desktop.png`, fullPage: true });
    assert.deepEqual(await cspViolations(page), []);
    assert.deepEqual(page.problems, []);

    // a phone in the dark theme: the form and the assignment fit, no text overlaps another
    const phone = await newContext({ viewport: { width: 360, height: 780 }, colorScheme: 'dark' });
    for (const [name, url] of [
      ['assignment-form-360-dark', `${site.url}assignment.html`],
      ['assignment-360-dark', link],
    ]) {
      const p = await pageIn(phone, url);
      if (url === link) await labDrawn(p);
      else await p.locator('#assign-q-tf-08').waitFor();
      await layoutSettled(p, '#assignment');
      assert.equal(await p.evaluate(() => document.documentElement.dataset.theme), 'dark');
      assert.deepEqual(await overlaps(p, '*'), [], name);
      const wide = await p.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 360, `${name}: ${wide} px wide`);
      await p.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
      assert.deepEqual(await cspViolations(p), [], name);
      assert.deepEqual(p.problems, [], name);
    }
    await phone.close();
  } finally {
    await context.close();
    await site.close();
  }
});

test('a link with bad values: a notice names each field and what it allows; the rest of the assignment stands', async () => {
  const site = await serve({ base: BASE, csp: STRICT_CSP });
  const context = await newContext();
  try {
    const hash =
      '#title=Broken%0Atitle&text=Still+here&experiment=lab&preset=warmup&depth=5000&lock=none&items=tf-01,../x&theme=neon';
    const page = await pageIn(context, `${site.url}assignment.html${hash}`);
    await labDrawn(page);
    const notice = await page.locator('#assignment > .notice li').allTextContents();
    assert.deepEqual(notice, [
      'Title (title) \u201cBroken\uFFFDtitle\u201d: holds a line break (allowed: one line of text); the default is used',
      'Quiz items (items) \u201c../x\u201d: entries left out (not a valid name)',
      'Theme (theme) \u201cneon\u201d: not one of the choices (allowed auto, light, dark); the default is used',
      '\u201clock\u201d: not a setting of an assignment (every setting its experiment shows is fixed)',
      'Depth L (depth) \u201c5000\u201d: out of range (allowed 1..128); the default is used',
    ]);
    const h = await page.evaluate(() => window.__resnormAssignment);
    assert.equal(h.title, '');
    assert.equal(await page.locator('h1').textContent(), 'Assignment');
    assert.equal(await page.locator('#assignment-text').textContent(), 'Still here');
    assert.equal(h.lab.preset, 'warmup');
    assert.equal(h.lab.config.depth, 6, 'the preset\u2019s depth where the link\u2019s does not fit');
    assert.deepEqual(h.quiz.items, ['tf-01']);
    assert.deepEqual(page.problems, []);
    assert.deepEqual(await cspViolations(page), []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('an assignment of the explorer: its settings are shown fixed and take neither a click nor a key; the charts are drawn', async () => {
  const site = await serve({ base: BASE, csp: STRICT_CSP });
  const context = await newContext();
  try {
    const hash = '#title=Depth&experiment=explorer&depth=48&arch=post_ln,pre_ln&controls=arch,depth,gain';
    const page = await pageIn(context, `${site.url}assignment.html${hash}`);
    const config = () => page.evaluate(() => window.__resnormAssignment.explorer.config);
    const before = await config();
    assert.deepEqual([before.depth, before.arch], [48, ['post_ln', 'pre_ln']]);
    const inputs = () =>
      page.evaluate((sel) => {
        const form = document.querySelector(sel).shadowRoot.querySelector('form.controls');
        return [...form.querySelectorAll('input, select, button')].map((e) => [e.type, e.disabled]);
      }, '#assignment-experiment-view');
    const shown = await inputs();
    assert.ok(shown.length >= 4, JSON.stringify(shown));
    assert.deepEqual(
      shown.filter(([, disabled]) => !disabled),
      [],
    );
    const form = page.locator('#assignment-experiment-view form.controls');
    await form.locator('input[type=range]').first().click({ force: true });
    for (const el of await form.locator('input, select').all()) {
      await el.evaluate((e) => e.focus());
      for (const key of ['ArrowRight', 'End', '7', 'Enter']) await page.keyboard.press(key);
    }
    assert.deepEqual(await config(), before);
    assert.ok((await page.locator('#assignment-experiment-view canvas').count()) >= 3, 'the charts are drawn');
    assert.deepEqual(page.problems, []);
    assert.deepEqual(await cspViolations(page), []);
  } finally {
    await context.close();
    await site.close();
  }
});

for (const version of ['1.2', '2004'])
  test(`the assignment's SCORM ${version} package, from the form: runs in the LMS with the site gone, the lab trains on the package's engine, the LMS records the answers, the score and passed`, async () => {
    const site = await serve({ base: BASE, csp: STRICT_CSP });
    const context = await newContext();
    let bytes;
    try {
      const { page: form } = await makeAssignment(context, site);
      // the teacher's grading: self-graded answers counted, a pass mark of 60 %
      await form.selectOption('#assign-self-graded', 'count');
      await form.fill('#assign-pass-mark', '60');
      await form.selectOption('#assign-scorm-version', version);
      const params = new URLSearchParams(new URL(await form.inputValue('#assign-link')).hash.slice(1));
      assert.deepEqual([params.get('self_graded'), params.get('pass_mark')], ['count', '60']);
      assert.match(await form.locator('#assign-grading-note').textContent(), /To pass: 2 of 3 right\./);
      assert.equal(await form.inputValue('#assign-scorm-title'), TITLE);
      await form.waitForFunction(() => !document.getElementById('assign-scorm').disabled);
      const [download] = await Promise.all([form.waitForEvent('download'), form.click('#assign-scorm')]);
      bytes = await downloadBytes(download);
      assert.match(
        download.suggestedFilename(),
        new RegExp(`^week-3-img-src-x-onerror-window-pwned-1-warmup-post-ln-scorm${version.replace('.', '')}\\.zip$`),
      );
      await form.locator('#assign-status', { hasText: 'Downloaded' }).waitFor();
      assert.deepEqual(form.problems, []);
    } finally {
      await context.close();
      await site.close(); // the package runs with nothing from the site
    }

    const lms = lmsFolder(join(work, `lms-${version}`), bytes);
    const v12 = version === '1.2';
    assert.match(lms.manifest, v12 ? /<adlcp:masteryscore>60</ : /<imsss:minNormalizedMeasure>0.6</);
    assert.equal(lms.href, 'assignment.html');
    const server = await startServer({ port: 0, root: lms.root, base: '/lms/', csp: SITE_CSP });
    const origin = `http://127.0.0.1:${server.address().port}`;
    const ctx = await newContext({ viewport: { width: 1000, height: 900 } });
    const requests = [];
    ctx.on('request', (r) => requests.push(r.url()));
    try {
      const page = await pageIn(ctx, `${origin}/lms/host.html`, { ready: false });
      const frame = await startSco(page, version, lms);
      const hook = () => frame.evaluate(() => window.__resnormAssignment);
      let h = await hook();
      assert.deepEqual(h.items, ITEMS);
      assert.deepEqual(h.quiz.items, ITEMS);
      assert.deepEqual(h.scorm, { version, connected: true, errors: [] });
      assert.equal(await frame.locator('h1').textContent(), TITLE);
      assert.equal(h.lab.preset, 'warmup');
      assert.match(
        await frame.locator('.scorm-status').textContent(),
        new RegExp(`Recording to the LMS \\(SCORM ${version.replace('.', '\\.')}\\)`),
      );

      // the lab steps on the package's own worker and wasm
      await frame.locator(`${LAB} #train-step`).click();
      await frame.waitForFunction((runs) => {
        const lab = window.__resnormAssignment.lab;
        return lab.state === 'paused' && runs.every((k) => lab.runs[k]?.stepsDone > 0);
      }, WARMUP_RUNS);

      // the questions: one right, two written and graded "got it" and "missed it": 2 of 3 counted,
      // over the pass mark of 60 %
      const click = (sel) => frame.locator(`#assignment-quiz-view ${sel}`).first().click();
      await click('button.choice[data-choice="true"]'); // tf-08 is true
      await click('button[data-action="next"]');
      for (const [grade, text] of Object.entries(WRITTEN)) {
        await frame.locator('#assignment-quiz-view textarea.answer-text').fill(text);
        await click('button[data-action="reveal"]');
        await click(`button[data-action="${grade}"]`);
        await click('button[data-action="next"]');
      }
      await frame.locator('.scorm-status', { hasText: 'the attempt is complete' }).waitFor();
      h = await hook();
      assert.deepEqual(h.scorm.errors, []);
      const names = v12
        ? ['cmi.core.lesson_status', 'cmi.core.score.raw', 'cmi.interactions._count']
        : [
            'cmi.completion_status',
            'cmi.success_status',
            'cmi.score.raw',
            'cmi.score.max',
            'cmi.score.scaled',
            'cmi.interactions._count',
          ];
      const got = await lmsValues(page, version, names);
      for (const n of names) assert.equal(got[`${n} error`], '0', n);
      if (v12) {
        assert.equal(got['cmi.core.lesson_status'], 'passed');
        assert.equal(Number(got['cmi.core.score.raw']), 66.67);
      } else {
        assert.equal(got['cmi.completion_status'], 'completed');
        assert.equal(got['cmi.success_status'], 'passed');
        assert.equal(got['cmi.score.raw'], '2');
        assert.equal(got['cmi.score.max'], '3');
        assert.equal(Number(got['cmi.score.scaled']), 0.6667);
      }
      assert.equal(got['cmi.interactions._count'], '3');
      await page.screenshot({ path: `${SHOTS}/assignment-scorm-${version.replace('.', '')}.png` });
      await page.evaluate(() => window.unloadSco());
      await page.waitForFunction(() => window.__lms.finished);
      // what the LMS stored of each answer (1.2's interaction ids are write-only through the API)
      const stored = await page.evaluate(() => {
        const list = window.__lms.saved.interactions;
        return Object.values(list.childArray ?? list).map((i) => [
          i.id,
          i.result,
          i.student_response ?? i.learner_response,
        ]);
      });
      assert.deepEqual(stored, [
        ['tf-08', 'correct', v12 ? 't' : 'true'],
        ['err-03', 'correct', WRITTEN['got-it']],
        ['why-06', v12 ? 'wrong' : 'incorrect', WRITTEN['missed-it']],
      ]);

      // nothing outside the LMS's folder; the engine came from the package
      const outside = requests.filter(
        (u) => !u.startsWith(`${origin}/lms/`) && u !== 'about:blank' && !/^(data|blob):/.test(u),
      );
      assert.deepEqual(outside, []);
      assert.ok(
        requests.some((u) => /\/lms\/pkg\/assets\/resnorm_wasm-[\w-]+\.wasm$/.test(u)),
        'the wasm from the package',
      );
      assert.ok(
        requests.some((u) => /\/lms\/pkg\/assets\/worker-[\w-]+\.js$/.test(u)),
        'the worker from the package',
      );
      assert.deepEqual(await cspViolations(page), []);
      assert.deepEqual(page.problems, []);
    } finally {
      await ctx.close();
      await new Promise((ok) => {
        server.close(ok);
        server.closeAllConnections?.();
      });
    }
  });
