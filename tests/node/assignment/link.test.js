// An assignment's link (web/src/assignment/link.js): what a teacher makes round-trips exactly
// through the fragment; hostile values (markup, control characters, over-long text, bad ids,
// unknown and foreign fields, a huge fragment) are refused with a notice naming the field and
// what is allowed, or stay inert text; the experiment is always locked. Also the instructions'
// blocks, the links of the explorer and the lab a teacher pastes, the package's tag and the
// build's file list of the assignment's package.
// Run: node --test tests/node/assignment/link.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  HASH_MAX,
  TEXT_MAX,
  TITLE_MAX,
  assignmentHash,
  experimentFromLink,
  explorerState,
  labState,
  linkTooLong,
  noticeTableOf,
  readAssignment,
} from '../../../web/src/assignment/link.js';
import { instructionBlocks } from '../../../web/src/assignment/instructions.js';
import { assignmentPackage, readAssignmentTag, writeAssignmentTag } from '../../../web/src/assignment/package.js';
import { noticeText } from '../../../web/src/shared/state.js';
import { ARCHS } from '../../../web/src/shared/archs.js';
import { TRAIN_KEYS } from '../../../web/src/shared/train-fields.js';
import { launchFiles } from '../../../web/build/scorm-plugin.js';

const SITE = 'https://example.org/course/resnorm/';
const noticeLines = (a) => a.notices.map((n) => noticeText(n, noticeTableOf(a.experiment)));

/** The values a page shows for an assignment, without the notices. */
const values = (a) => ({
  title: a.title,
  text: a.text,
  experiment: a.experiment,
  items: a.items,
  self_graded: a.self_graded ?? 'exclude',
  pass_mark: a.pass_mark ?? 80,
  theme: a.theme,
  settings: a.state && (a.state.train ?? a.state.config),
  view: a.state && { ...a.state.view, mode: undefined },
});

const explorer = () => {
  const s = explorerState();
  return { ...s, config: { ...s.config, depth: 48, arch: ['post_ln', 'pre_ln'], gain: 0.8 } };
};
const lab = () => {
  const s = labState('none');
  return { ...s, train: { ...s.train, task: 'copy', depth: 4, lr: 0.002, warmup: 50 } };
};

const CASES = {
  'explorer, custom': {
    title: 'Week 3: why Pre-LN trains',
    text: 'Move nothing; read the charts.\n\n- Which gradient vanishes?\n- Where?',
    experiment: 'explorer',
    items: ['tf-01', 'why-03', 'err-01'],
    theme: 'dark',
    state: explorer(),
  },
  'lab, custom, settings hidden': {
    title: 'Warmup, by hand',
    text: '',
    experiment: 'lab',
    items: ['why-06'],
    self_graded: 'count',
    pass_mark: 0,
    theme: 'auto',
    state: { ...lab(), view: { ...lab().view, controls: [] } },
  },
  'no experiment, every script': {
    title: 'Übung 3 — 残差 & “norms” <b>bold</b> 🚀',
    text: 'Zeile 1\r\nZeile 2\n\n1) eins\n2) zwei\n\t- tab, 100% & #hash ?q=1 +plus',
    experiment: 'none',
    items: [],
    theme: 'light',
    state: null,
  },
};

for (const [name, a] of Object.entries(CASES))
  test(`round trip: ${name}`, () => {
    const hash = assignmentHash(a);
    assert.ok(hash.startsWith('#'));
    assert.equal(linkTooLong(hash), null);
    const back = readAssignment(hash);
    assert.deepEqual(back.notices, []);
    assert.equal(back.empty, false);
    const want = values({ ...a, text: a.text.replace(/\r\n?/g, '\n') });
    const got = values(back);
    // the experiment comes back locked: every setting it shows is fixed
    if (a.state) {
      assert.deepEqual(got.view.lock, a.state.view.controls);
      assert.deepEqual(got.view.theme, a.theme);
      want.view = { ...want.view, lock: [...a.state.view.controls], theme: a.theme };
    }
    assert.deepEqual(got, want);
    // and writes the same link again
    assert.equal(assignmentHash(back), hash);
  });

test('round trip: the whole bank of ids, the longest title and instructions', () => {
  const items = Array.from({ length: 50 }, (_, i) => `rapid-${String(i).padStart(2, '0')}`);
  const a = {
    title: 'T'.repeat(TITLE_MAX),
    text: 'é'.repeat(TEXT_MAX),
    experiment: 'lab',
    items,
    state: lab(),
  };
  const hash = assignmentHash(a);
  assert.ok(hash.length < HASH_MAX, `${hash.length} characters`);
  const back = readAssignment(hash);
  assert.deepEqual(back.notices, []);
  assert.deepEqual(back.items, items);
  assert.equal(back.title, a.title);
  assert.equal(back.text, a.text);
});

test('a link says when it is too long for the page, with both numbers', () => {
  assert.equal(linkTooLong(`#${'a'.repeat(HASH_MAX)}`), null);
  assert.match(linkTooLong(`#${'a'.repeat(HASH_MAX + 1)}`), /16,385 characters .* at most 16,384/);
  const back = readAssignment(`#title=x&text=${'a'.repeat(HASH_MAX)}`);
  assert.equal(back.title, '');
  assert.equal(back.text, '');
  assert.equal(back.state, null);
  assert.match(noticeLines(back).join('\n'), /too long; every default is used/);
});

test('no fragment, or one without a setting: empty (the page shows the form that makes one)', () => {
  for (const h of ['', '#', '#quiz']) assert.equal(readAssignment(h).empty, true, h);
  assert.equal(readAssignment('#title=x').empty, false);
});

test('hostile values: refused with the field and what is allowed, or kept as inert text', () => {
  const markup = '<img src=x onerror=alert(1)><script>alert(2)</script>';
  const a = readAssignment(
    `#${new URLSearchParams([
      ['title', markup],
      ['text', `${markup}\n\njavascript:alert(3)`],
    ])}`,
  );
  // markup is text: the characters come back as they were, for textContent only
  assert.equal(a.title, markup);
  assert.equal(a.text, `${markup}\n\njavascript:alert(3)`);
  assert.deepEqual(a.notices, []);

  const bad = readAssignment(
    `#${new URLSearchParams([
      ['title', 'two\nlines'],
      ['text', 'bell\u0007 and escape \u001b[31m'],
      ['experiment', 'javascript:alert(1)'],
      ['items', 'tf-01,../../etc,<b>,why-03'],
      ['theme', 'url(x)'],
      ['pass_mark', '101'],
      ['self_graded', 'maybe'],
    ])}`,
  );
  const lines = noticeLines(bad);
  assert.deepEqual(lines, [
    'Title (title) \u201ctwo\uFFFDlines\u201d: holds a line break (allowed: one line of text); the default is used',
    'Instructions (text) \u201cbell\uFFFD and escape \uFFFD[31m\u201d: holds control characters (allowed: text and line breaks); the default is used',
    'Experiment (experiment) \u201cjavascript:alert(1)\u201d: not one of the choices (allowed none, explorer, lab); the default is used',
    'Quiz items (items) \u201c../../etc,<b>\u201d: entries left out (not a valid name)',
    'Theme (theme) \u201curl(x)\u201d: not one of the choices (allowed auto, light, dark); the default is used',
    'Pass mark (%) (pass_mark) \u201c101\u201d: out of range (allowed 0..100); the default is used',
    'Self-graded answers in the score (self_graded) \u201cmaybe\u201d: not one of the choices (allowed exclude, count); the default is used',
  ]);
  assert.deepEqual(bad.items, ['tf-01', 'why-03']);
  assert.equal(bad.title, '');
  assert.equal(bad.experiment, 'none');

  const long = readAssignment(`#title=${'x'.repeat(TITLE_MAX + 1)}&text=${'y'.repeat(TEXT_MAX + 1)}`);
  assert.deepEqual(noticeLines(long), [
    `Title (title) \u201c${'x'.repeat(32)}\u2026 (121 characters)\u201d: too long (121 characters; at most 120); the default is used`,
    `Instructions (text) \u201c${'y'.repeat(32)}\u2026 (2001 characters)\u201d: too long (2001 characters; at most 2000); the default is used`,
  ]);
});

test("the experiment's own values are read by its embed's table: a bad one names its field and range", () => {
  const a = readAssignment('#experiment=explorer&depth=5000&gain=-1&arch=plain,evil');
  assert.deepEqual(noticeLines(a), [
    'Depth L (depth) \u201c5000\u201d: out of range (allowed 1..1024); the default is used',
    'Gain g (gain) \u201c-1\u201d: out of range (allowed 0..4); the default is used',
    `Architectures (arch) \u201cevil\u201d: entries left out (allowed plain, residual, post_ln, post_rms, pre_ln, pre_rms and ${ARCHS.length - 6} more, all in the settings)`,
  ]);
  assert.deepEqual(a.state.config.arch, ['plain']);
  const l = readAssignment('#experiment=lab&lr=11&steps=-1&task=copy');
  assert.match(noticeLines(l).join('\n'), /Peak learning rate \(lr\) \u201c11\u201d: out of range \(allowed 0\.\.10\)/);
  assert.match(noticeLines(l).join('\n'), /Steps \(steps\) \u201c-1\u201d: out of range \(allowed 0\.\.1000000\)/);
  assert.equal(l.state.train.task, 'copy');
});

test('the experiment is always locked: lock= and mode= are not taken, and every shown setting is fixed', () => {
  const a = readAssignment('#experiment=lab&controls=lr,steps&lock=none&mode=explorer&section=why&tag=warmup');
  assert.deepEqual(a.state.view.controls, ['lr', 'steps']);
  assert.deepEqual(a.state.view.lock, ['lr', 'steps']);
  assert.deepEqual(
    a.notices.map((n) => `${n.value}: ${n.reason}`),
    [
      'lock: not a setting of an assignment (every setting its experiment shows is fixed)',
      'mode: not a setting of an assignment (experiment= says which experiment it shows)',
      'section: not a setting of an assignment (items= lists its questions)',
      'tag: not a setting of an assignment (items= lists its questions)',
    ],
  );
  const all = readAssignment('#experiment=lab');
  assert.ok(TRAIN_KEYS.every((k) => all.state.view.lock.includes(k)));
  const ex = readAssignment('#experiment=explorer&controls=all');
  assert.deepEqual(ex.state.view.lock, ex.state.view.controls);
});

test('unknown, repeated, prototype-named and surplus fields: notices, nothing else changes', () => {
  const a = readAssignment(
    '#title=first&title=second&__proto__=x&constructor=y&hasOwnProperty=z&depth=3&experiment=none',
  );
  assert.equal(a.title, 'first');
  assert.equal(Object.getPrototypeOf(a), Object.prototype);
  assert.deepEqual(
    a.notices.map((n) => `${n.field ?? n.value}: ${n.reason}`),
    [
      'title: given more than once; the first one is used',
      '__proto__: not used: the assignment shows no experiment (experiment=explorer or lab)',
      'constructor: not used: the assignment shows no experiment (experiment=explorer or lab)',
      'hasOwnProperty: not used: the assignment shows no experiment (experiment=explorer or lab)',
      'depth: not used: the assignment shows no experiment (experiment=explorer or lab)',
    ],
  );
  const many = readAssignment(`#experiment=explorer&${Array.from({ length: 80 }, (_, i) => `k${i}=1`).join('&')}`);
  assert.match(many.notices[0].reason, /more than 64 settings; the rest were ignored/);
  assert.ok(many.notices.length <= 65);
  // broken percent escapes read as the replacement character, never throw
  const broken = readAssignment('#title=%E0%A4%A&text=%%%');
  assert.deepEqual([broken.title, broken.text], ['\uFFFD%A', '%%%']);
});

test('assignmentHash refuses what the page would refuse, naming the field', () => {
  assert.throws(
    () => assignmentHash({ title: 'a\nb' }),
    (e) => e instanceof RangeError && e.field === 'title' && /Title: holds a line break/.test(e.message),
  );
  assert.throws(
    () => assignmentHash({ text: 'x'.repeat(TEXT_MAX + 1) }),
    (e) => e.field === 'text' && /at most 2000/.test(e.message),
  );
  assert.equal(assignmentHash({}), '');
});

test('instructions: paragraphs, line breaks, lists and numbered lists; markup stays text', () => {
  assert.deepEqual(
    instructionBlocks('Read it.\nThen this.\n\n- one\n* two\n  more of two\n\n3. three\n4) four\nafter\n\n\n<b>x</b>'),
    [
      { type: 'p', lines: ['Read it.', 'Then this.'] },
      { type: 'ul', items: ['one', 'two more of two'] },
      { type: 'ol', start: 3, items: ['three', 'four'] },
      { type: 'p', lines: ['after'] },
      { type: 'p', lines: ['<b>x</b>'] },
    ],
  );
  assert.deepEqual(instructionBlocks(''), []);
  assert.deepEqual(instructionBlocks('  \n\n '), []);
});

test("a pasted link of the explorer or the lab gives the experiment's settings", () => {
  const ex = experimentFromLink(`${SITE}#depth=40&arch=plain,pre_ln`, SITE);
  assert.equal(ex.experiment, 'explorer');
  assert.equal(ex.state.config.depth, 40);
  assert.deepEqual(ex.state.config.arch, ['plain', 'pre_ln']);
  const tr = experimentFromLink(`${SITE}train.html#task=copy&depth=3&lr=0.002`, SITE);
  assert.equal(tr.experiment, 'lab');
  assert.equal(tr.state.train.depth, 3);
  assert.equal(tr.state.train.lr, 0.002);
  const em = experimentFromLink('embed.html#mode=train&task=sort&controls=lr', SITE);
  assert.deepEqual([em.experiment, em.state.train.task, em.state.view.controls], ['lab', 'sort', ['lr']]);
  const bad = experimentFromLink(`${SITE}#depth=0`, SITE);
  assert.match(noticeText(bad.notices[0]), /Depth L \(depth\) \u201c0\u201d: out of range \(allowed 1\.\.1024\)/);
  assert.match(experimentFromLink('embed.html#mode=quiz', SITE).error, /a link of the quiz/);
  assert.match(experimentFromLink('papers.html', SITE).error, /papers\.html, neither the explorer/);
  assert.match(experimentFromLink('http://[::1', SITE).error, /not a link/);
});

test('a lab link of a claim at its deep setting makes an assignment of the claim at its quick setting, and says so', () => {
  const deep = experimentFromLink(`${SITE}train.html#preset=depth&setting=deep&seed=3`, SITE);
  const quick = experimentFromLink(`${SITE}train.html#preset=depth&seed=3`, SITE);
  assert.equal(deep.state.lab.preset, 'depth');
  assert.deepEqual(deep.state.train, quick.state.train);
  assert.equal(deep.state.train.seed, 3);
  assert.deepEqual(quick.notices, []);
  assert.match(noticeText(deep.notices.at(-1)), /setting=deep.*quick setting/);
});

test("the package's launch page carries the fragment in its tag, escaped, and gives it back", () => {
  const html = '<head><meta name="resnorm-assignment" content="" /><title>x</title></head>';
  const hash = assignmentHash({ title: '"><script>alert(1)</script>', text: "a & b ' c", items: ['tf-01'] });
  const out = writeAssignmentTag(html, hash);
  assert.equal((out.match(/<meta /g) ?? []).length, 1);
  assert.ok(!out.includes('<script'));
  const content = out.match(/content="([^"]*)"/)[1];
  const unescaped = content.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e],
  );
  assert.equal(`#${unescaped}`, hash);
  // what the page reads from the tag (a document's attribute, unescaped)
  const doc = { querySelector: () => ({ getAttribute: () => unescaped }) };
  assert.equal(readAssignment(readAssignmentTag(doc)).title, '"><script>alert(1)</script>');
  assert.throws(() => writeAssignmentTag('<head></head>', hash), /no <meta name="resnorm-assignment"> tag/);
});

test("an assignment package needs a question: the LMS records the quiz's score", () => {
  assert.throws(
    () => assignmentPackage({ siteUrl: SITE, assignment: { title: 'x', items: [] } }),
    /needs at least one question/,
  );
});

test("the build's file list of the assignment's package takes the engine's worker and wasm, never the service worker", () => {
  const bundle = {
    'assignment.html': { type: 'asset', source: '<script type="module" src="./assets/a.js"></script>' },
    'assets/a.js': {
      type: 'chunk',
      imports: [],
      dynamicImports: [],
      code: 'new Worker(new URL(`worker-1.js`, import.meta.url), { type: "module" })',
    },
    'assets/worker-1.js': { type: 'asset', source: 'fetch(new URL(`resnorm-1.wasm`,import.meta.url))' },
    'assets/resnorm-1.wasm': { type: 'asset', source: '' },
    'sw.js': { type: 'asset', source: '' },
  };
  const read = (f) => bundle[f].source ?? bundle[f].code;
  assert.deepEqual(
    launchFiles(bundle, 'assignment.html', read, () => false, { engine: true }),
    ['assignment.html', 'assets/a.js', 'assets/worker-1.js', 'assets/resnorm-1.wasm'],
  );
  // the quiz's package does not follow a script's own files, and refuses a worker it is given
  assert.deepEqual(launchFiles(bundle, 'assignment.html', read), ['assignment.html', 'assets/a.js']);
  bundle['assets/a.js'].dynamicImports = ['assets/worker-1.js'];
  assert.throws(() => launchFiles(bundle, 'assignment.html', read), /cannot carry them/);
  bundle['assets/a.js'].code += ';new URL("../sw.js", import.meta.url)';
  assert.throws(() => launchFiles(bundle, 'assignment.html', read, () => false, { engine: true }), /sw\.js/);
});
