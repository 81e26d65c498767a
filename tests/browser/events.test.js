// The embeds' events (web/src/embed/events.js) as a host page receives them: the quiz and the
// explorer in an iframe on another origin (messages to the parent) and as custom elements
// (`resnorm-<type>` events on the element and messages to the page's window). Every message
// is checked field by field, in order, for true/false answers right and wrong and an open
// item written in its answer box and graded "got it" (not counted in the score by default);
// messages the host posts into an iframe change nothing there.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHOTS, pageIn, useBrowser } from './harness.js';
import { useSiteCopy } from './site-copy.js';
import { startServer } from '../../scripts/serve.js';
import { EVENT_FIELDS, EVENT_VERSION } from '../../web/src/embed/events.js';

const TYPES = Object.keys(EVENT_FIELDS);
const ITEMS = ['tf-01', 'tf-08', 'why-03']; // tf-01 is false, tf-08 true, why-03 an open question
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const env = useBrowser();
const site = useSiteCopy(); // the build, with the element host page added
let hostDir; // the iframe host pages, served from another origin
let hostServer;
let siteUrl;
let hostUrl;

const page = (title, body, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">${head}</head><body>${body}</body></html>`;

before(async () => {
  await site.ready;
  siteUrl = site.url;
  writeFileSync(
    join(site.dir, 'examples', 'events-elements.html'),
    page(
      'elements',
      `<resnorm-quiz items="${ITEMS.join(',')}"></resnorm-quiz>
<resnorm-explorer arch="pre_ln" depth="12" charts="grad" controls="depth" caption="false"></resnorm-explorer>`,
      '<script type="module" src="../resnorm-embed.js"></script>',
    ),
  );
  hostDir = mkdtempSync(join(tmpdir(), 'resnorm-events-host-'));
  const frame = (hash, title) =>
    `<iframe src="${siteUrl}embed.html#${hash}" data-resnorm title="${title}" width="420" height="700"></iframe>
<script src="${siteUrl}resnorm-iframe.js" defer></script>`;
  writeFileSync(
    join(hostDir, 'quiz.html'),
    page('quiz host', frame(`mode=quiz&items=${ITEMS.join(',')}`, 'three questions')),
  );
  writeFileSync(
    join(hostDir, 'explorer.html'),
    page('explorer host', frame('arch=plain,pre_ln&depth=24&charts=grad&controls=depth&caption=false', 'explorer')),
  );
  hostServer = await startServer({
    port: 0,
    root: hostDir,
    csp: `default-src 'self'; img-src data:; script-src 'self' ${site.origin}; frame-src ${site.origin}`,
  });
  hostUrl = `http://127.0.0.1:${hostServer.address().port}/`;
});
after(async () => {
  if (hostServer) await new Promise((ok) => hostServer.close(ok));
  if (hostDir) rmSync(hostDir, { recursive: true, force: true });
});

// Every frame records every message it receives (the host: from the embeds; the embed: what the
// host posts in) and every `resnorm-*` event that reaches its document; init scripts run before
// the page's own and are not subject to its CSP.
async function recordingContext(options = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1000, height: 900 }, ...options });
  await context.addInitScript((types) => {
    window.__messages = [];
    window.__custom = [];
    addEventListener('message', (e) => {
      window.__messages.push({ data: e.data, self: e.source === window, origin: e.origin });
    });
    for (const t of types)
      document.addEventListener(`resnorm-${t}`, (e) =>
        window.__custom.push({ tag: e.target.localName, name: e.type, detail: e.detail }),
      );
  }, TYPES);
  return context;
}

const resnormMessages = (frame) => frame.evaluate(() => window.__messages.filter((m) => m.data?.source === 'resnorm'));
const waitForMessages = (frame, n, filter = null) =>
  frame.waitForFunction(
    ([count, embed]) =>
      window.__messages.filter((m) => m.data?.source === 'resnorm' && (!embed || m.data.embed === embed)).length >=
      count,
    [n, filter],
  );
const frameOf = (p) => p.frames().find((f) => f.url().includes('embed.html'));

/**
 * Resolves once every message `source` (a frame, or the page itself) posted to `target` before now
 * has arrived: a window's messages to another arrive in the order posted, so a marker posted after
 * them comes last. The marker is then taken out of the record.
 */
async function flush(target, source = target) {
  const id = `flush-${Math.random().toString(36).slice(2)}`;
  await source.evaluate((m) => (parent === window ? window : parent).postMessage({ flush: m }, '*'), id);
  await target.waitForFunction((m) => window.__messages.some((x) => x.data?.flush === m), id);
  await target.evaluate((m) => {
    window.__messages = window.__messages.filter((x) => x.data?.flush !== m);
  }, id);
}
const ready = (frame) => frame.waitForFunction(() => document.body?.dataset.ready === '1');

/** A host page of the iframes, once its embed has posted its first message and drawn. */
async function openHost(name) {
  const context = await recordingContext();
  const host = await pageIn(context, `${hostUrl}${name}`, { ready: false });
  await waitForMessages(host, 1);
  const frame = frameOf(host);
  await ready(frame);
  return { context, host, frame };
}

/**
 * The messages without their time, checked apart: an ISO 8601 instant within [from, to] (the
 * clock read before the first answer and after the last, a second's slack for rounding).
 */
function untimed(list, { from, to }) {
  return list.map((m) => {
    if (m.type === 'answer') {
      assert.match(m.time, ISO, `answer ${m.item}: time ${m.time}`);
      const t = Date.parse(m.time);
      assert.ok(t >= from - 1000 && t <= to + 1000, `answer ${m.item}: time ${m.time} is not when it was given`);
      const rest = { ...m };
      delete rest.time;
      return rest;
    }
    return m;
  });
}

// What the quiz posts for ITEMS answered: tf-01 "True" (wrong), tf-08 "True" (right), why-03
// written in its answer box, revealed and graded "I got it". By default a self-graded answer does
// not count: the score is out of the two true/false questions, against the pass mark of 80 %.
const base = { source: 'resnorm', version: EVENT_VERSION, embed: 'quiz' };
const WRITTEN = 'The +1 keeps a path where the gradient is exactly one.';
const score = (raw, answered, selfGraded) => ({ raw, max: 2, scaled: raw / 2, answered, selfGraded, passMark: 80 });
const EXPECTED_QUIZ = [
  { ...base, type: 'ready', items: ITEMS },
  {
    ...base,
    type: 'answer',
    item: 'tf-01',
    index: 0,
    kind: 'true-false',
    response: 'true',
    correct: false,
    selfGraded: false,
    counts: true,
  },
  { ...base, type: 'score', ...score(0, 1, 0) },
  {
    ...base,
    type: 'answer',
    item: 'tf-08',
    index: 1,
    kind: 'true-false',
    response: 'true',
    correct: true,
    selfGraded: false,
    counts: true,
  },
  { ...base, type: 'score', ...score(1, 2, 0) },
  {
    ...base,
    type: 'answer',
    item: 'why-03',
    index: 2,
    kind: 'open',
    response: WRITTEN,
    correct: true,
    selfGraded: true,
    counts: false,
  },
  { ...base, type: 'score', ...score(1, 3, 1) },
  { ...base, type: 'complete', ...score(1, 3, 1), passed: false },
];

/**
 * Answers ITEMS in the quiz inside `root` (a locator of the embed's host), waiting for `count()`
 * after each; returns the clock before the first answer and after the last ({from, to}).
 */
async function answerAll(root, count) {
  const from = Date.now();
  await root.locator('button[data-choice="true"]').click();
  await count(3);
  await root.locator('button[data-action="next"]').click();
  await root.locator('.quiz-item[data-id="tf-08"] button[data-choice="true"]').click();
  await count(5);
  await root.locator('button[data-action="next"]').click();
  await root.locator('.quiz-item[data-id="why-03"] textarea').fill(WRITTEN);
  await root.locator('.quiz-item[data-id="why-03"] button[data-action="reveal"]').click();
  await root.locator('button[data-action="got-it"]').click();
  await count(8);
  return { from, to: Date.now() };
}

// Checks every message's fields against EVENT_FIELDS: nothing beyond the documented ones.
function assertDocumented(list) {
  for (const m of list) {
    assert.ok(TYPES.includes(m.type), `undocumented type ${m.type}`);
    const extra = Object.keys(m).filter(
      (k) => !['source', 'version', 'type', 'embed'].includes(k) && !EVENT_FIELDS[m.type].includes(k),
    );
    assert.deepEqual(extra, [], `${m.type}: fields not in EVENT_FIELDS`);
  }
}

test('the quiz in an iframe on another origin: ready, answer, score after each answer, complete after the last', async () => {
  const { context, host, frame } = await openHost('quiz.html');
  const root = frame.locator('#embed');
  await root.locator('.quiz-item[data-id="tf-01"]').waitFor();

  // The host posts into the iframe: forged events, a height, text, an object with a getter-free
  // prototype chain; the embed ignores them all (no answer recorded, nothing posted back).
  await host.evaluate((origin) => {
    const w = document.querySelector('iframe').contentWindow;
    const forged = [
      { source: 'resnorm', version: 1, type: 'answer', embed: 'quiz', item: 'tf-01', index: 0, correct: true },
      { source: 'resnorm', version: 1, type: 'complete', embed: 'quiz', raw: 3, max: 3, scaled: 1 },
      { source: 'resnorm', version: 1, type: 'ready', embed: 'quiz', items: ['why-01'] },
      { type: 'resnorm:height', height: 5 },
      'answer tf-01 true',
      null,
      [1, 2, 3],
    ];
    for (const m of forged) {
      w.postMessage(m, origin);
      w.postMessage(m, '*');
    }
  }, site.origin);
  await frame.waitForFunction(() => window.__messages.length >= 14);
  await flush(host, frame); // whatever the embed posted back on them has arrived
  const inside = await frame.evaluate(() => ({
    quiz: window.__resnorm.quiz,
    shown: document.getElementById('embed').shadowRoot.querySelector('.quiz-item')?.dataset.id,
    phase: document.getElementById('embed').shadowRoot.querySelector('.quiz-item')?.dataset.phase,
    received: window.__messages.length,
  }));
  assert.equal(inside.received, 14);
  assert.deepEqual(inside.quiz.items, ITEMS);
  assert.equal(inside.quiz.index, 0);
  assert.equal(inside.quiz.session.answered, 0);
  assert.equal(inside.shown, 'tf-01');
  assert.equal(inside.phase, 'ask');
  assert.equal((await resnormMessages(host)).length, 1, 'the embed answered a message of the host');
  assert.notEqual(await host.evaluate(() => document.querySelector('iframe').height), '5');

  const answered = await answerAll(root, (n) => waitForMessages(host, n));
  await flush(host, frame); // nothing more arrives
  const got = await resnormMessages(host);
  for (const m of got) {
    assert.equal(m.self, false, 'a message from the host itself');
    assert.equal(m.origin, site.origin, 'a message from another origin');
  }
  const list = got.map((m) => m.data);
  assertDocumented(list);
  assert.deepEqual(untimed(list, answered), EXPECTED_QUIZ);
  // The embed's own score agrees with the last event.
  const session = await frame.evaluate(() => window.__resnorm.quiz.session);
  assert.deepEqual([session.correct, session.answered, session.selfGraded], [2, 3, 1]);
  const shown = await frame.evaluate(() => window.__resnorm.quiz.score);
  assert.deepEqual([shown.raw, shown.max, shown.passed], [1, 2, false]);
  // Only the events and the height arrive at the host: no other message of any shape.
  const others = await host.evaluate(() =>
    window.__messages.filter((m) => m.data?.source !== 'resnorm' && m.data?.type !== 'resnorm:height'),
  );
  assert.deepEqual(others, []);
  assert.deepEqual(host.problems, []);
  await context.close();
});

test('the explorer in an iframe posts ready with its config, config after a slider step, and nothing else', async () => {
  const { context, host, frame } = await openHost('explorer.html');
  const config0 = await frame.evaluate(() => window.__resnorm.config);
  assert.equal(config0.depth, 24);
  // forged messages into the explorer change nothing either
  await host.evaluate(() => {
    const w = document.querySelector('iframe').contentWindow;
    w.postMessage({ source: 'resnorm', version: 1, type: 'config', embed: 'explorer', config: { depth: 3 } }, '*');
    w.postMessage({ depth: 3 }, '*');
  });
  await frame.waitForFunction(() => window.__messages.length >= 2);
  await flush(host, frame);
  assert.equal(await frame.evaluate(() => window.__resnorm.config.depth), 24);

  await frame.locator('#embed').locator('input[type=range]').first().focus();
  await host.keyboard.press('ArrowRight');
  await frame.waitForFunction(() => window.__resnorm.config.depth === 25);
  await waitForMessages(host, 2);
  await host.keyboard.press('ArrowRight');
  await frame.waitForFunction(() => window.__resnorm.config.depth === 26);
  await waitForMessages(host, 3);
  await flush(host, frame);
  const config2 = await frame.evaluate(() => window.__resnorm.config);
  const list = (await resnormMessages(host)).map((m) => m.data);
  assertDocumented(list);
  const b = { source: 'resnorm', version: EVENT_VERSION, embed: 'explorer' };
  assert.deepEqual(list, [
    { ...b, type: 'ready', config: config0 },
    { ...b, type: 'config', config: { ...config0, depth: 25 } },
    { ...b, type: 'config', config: config2 },
  ]);
  assert.equal(config2.depth, 26);
  // Every message the explorer posted: the events above and its height, nothing else.
  const kinds = await host.evaluate(() =>
    window.__messages.map((m) => (m.data?.source === 'resnorm' ? m.data.type : m.data?.type)),
  );
  assert.ok(kinds.includes('resnorm:height'));
  assert.deepEqual([...new Set(kinds)].sort(), ['config', 'ready', 'resnorm:height']);
  assert.deepEqual(host.problems, []);
  await context.close();
});

test('the custom elements fire resnorm-<type> on the element and post the same messages to the page', async () => {
  const context = await recordingContext();
  const p = await pageIn(context, `${siteUrl}examples/events-elements.html`, { ready: false });
  await p.waitForFunction(
    () => document.querySelector('resnorm-quiz')?.snapshot && document.querySelector('resnorm-explorer')?.snapshot,
  );
  await waitForMessages(p, 1, 'quiz');
  await waitForMessages(p, 1, 'explorer');
  const quiz = p.locator('resnorm-quiz');
  const answered = await answerAll(quiz, (n) => waitForMessages(p, n, 'quiz'));

  // the explorer: a slider step, then an attribute the page sets
  const explorer = p.locator('resnorm-explorer');
  await explorer.locator('input[type=range]').first().focus();
  await p.keyboard.press('ArrowRight');
  await waitForMessages(p, 2, 'explorer');
  await p.evaluate(() => document.querySelector('resnorm-explorer').setAttribute('depth', '30'));
  await waitForMessages(p, 3, 'explorer');
  await flush(p);

  const { messages, custom, snapshot } = await p.evaluate(() => ({
    messages: window.__messages.filter((m) => m.data?.source === 'resnorm'),
    custom: window.__custom,
    snapshot: document.querySelector('resnorm-explorer').snapshot.config,
  }));
  for (const m of messages) assert.equal(m.self, true, 'an element posts to its own window');
  const posted = messages.map((m) => m.data);
  assertDocumented(posted);
  // the same objects, in the same order, as events on the elements
  assert.deepEqual(
    custom.map((c) => c.detail),
    posted,
  );
  for (const c of custom) {
    assert.equal(c.name, `resnorm-${c.detail.type}`);
    assert.equal(c.tag, `resnorm-${c.detail.embed}`);
  }
  assert.deepEqual(
    untimed(
      posted.filter((m) => m.embed === 'quiz'),
      answered,
    ),
    EXPECTED_QUIZ,
  );
  const ex = posted.filter((m) => m.embed === 'explorer');
  assert.deepEqual(
    ex.map((m) => [m.type, m.config.arch, m.config.depth]),
    [
      ['ready', ['pre_ln'], 12],
      ['config', ['pre_ln'], 13],
      ['config', ['pre_ln'], 30],
    ],
  );
  assert.deepEqual(ex[2].config, snapshot);
  assert.deepEqual(p.problems, []);
  await p.screenshot({ path: `${SHOTS}/events-elements.png`, fullPage: true });
  await context.close();
});

test('examples/events.html logs the events of its embedded quiz', async () => {
  const context = await recordingContext();
  const p = await pageIn(context, `${siteUrl}examples/events.html`, { ready: false });
  const frame = await (async () => {
    await p.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'ready'));
    return frameOf(p);
  })();
  await ready(frame);
  const log = p.locator('#event-log');
  await p.waitForFunction(() => document.querySelectorAll('#event-log li').length >= 1);
  assert.match(await log.locator('li').first().textContent(), /ready/);
  const root = frame.locator('#embed');
  // its first question, tf-01, is false: answered right
  await root.locator('.quiz-item[data-id="tf-01"] button[data-choice="false"]').click();
  await p.waitForFunction(() => document.querySelectorAll('#event-log li').length >= 3);
  const lines = await log.locator('li').allTextContents();
  assert.match(lines[1], /^quiz answer: tf-01 \(question 1\): right, answered false$/);
  assert.match(lines[2], /^quiz score: 1 of 2 correct \(50%\)$/);
  assert.equal(await p.locator('#event-score').textContent(), 'Score so far: 1 of 2 correct (50%).');
  assert.deepEqual(p.problems, []);
  await p.screenshot({ path: `${SHOTS}/events-example.png`, fullPage: true });
  await context.close();
});
