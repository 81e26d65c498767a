// Quiz progress storage: round trips, and every kind of bad saved data is reset or trimmed with a
// notice, never a throw. Run: node --test tests/node/quiz/quiz-store.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import {
  STORAGE_KEY,
  MAX_CHARS,
  emptyProgress,
  loadProgress,
  saveProgress,
  clearProgress,
  sanitizeProgress,
  MAX_ANSWER,
  keptAnswer,
} from '../../../web/src/quiz/store.js';
import { grade } from '../../../web/src/quiz/schedule.js';
import { record } from '../../../web/src/quiz/score.js';
import { mulberry32 } from '../../../web/src/quiz/random.js';

const bank = JSON.parse(
  fs.readFileSync(fileURLToPath(new URL('../../../web/src/quiz/bank.json', import.meta.url)), 'utf8'),
);
const ids = bank.items.map((it) => it.id);
const NOW = Date.UTC(2025, 0, 15, 12);

/** A Storage-like fake; getError/setError make the next calls throw. */
class FakeStorage {
  constructor(entries = {}) {
    this.map = new Map(Object.entries(entries));
    this.getError = null;
    this.setError = null;
    this.writes = 0;
  }
  getItem(k) {
    if (this.getError) throw this.getError;
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    if (this.setError) throw this.setError;
    this.writes += 1;
    this.map.set(k, String(v));
  }
  removeItem(k) {
    this.map.delete(k);
  }
}

const saved = (doc) => new FakeStorage({ [STORAGE_KEY]: typeof doc === 'string' ? doc : JSON.stringify(doc) });
const goodDoc = () => {
  let p = emptyProgress(NOW - 1000);
  p = grade(p, 'tf-01', true, NOW - 500);
  p = grade(p, 'why-03', false, NOW - 400);
  p.session = record(record(p.session, { correct: true }), { correct: false, selfGraded: true });
  return p;
};

test('the key is versioned', () => {
  assert.equal(STORAGE_KEY, 'resnorm.quiz.v1');
});

test('nothing saved: empty progress, no notice, no write', () => {
  const s = new FakeStorage();
  const { progress, notice } = loadProgress(s, { ids, now: NOW });
  assert.equal(notice, null);
  assert.deepEqual(progress, emptyProgress(NOW));
  assert.equal(s.writes, 0);
});

test('save then load gives the same progress', () => {
  const s = new FakeStorage();
  const p = goodDoc();
  assert.deepEqual(saveProgress(s, p), { ok: true, notice: null });
  const { progress, notice } = loadProgress(s, { ids, now: NOW });
  assert.equal(notice, null);
  assert.deepEqual(progress, p);
  assert.equal(progress.items['tf-01'].box, 2);
  assert.equal(progress.items['why-03'].box, 1);
});

test('corrupted JSON is reset with a notice, and the clean state is written back', () => {
  for (const raw of ['{', '{"version":1,"items":{', 'undefined', '', '\u0000\u0001', '[[[[', 'NaN']) {
    const s = saved(raw);
    const { progress, notice } = loadProgress(s, { ids, now: NOW });
    assert.deepEqual(progress, emptyProgress(NOW), JSON.stringify(raw));
    assert.match(notice, /not valid JSON/);
    assert.doesNotThrow(() => JSON.parse(s.map.get(STORAGE_KEY)));
    // the notice appears once: the next load is clean
    assert.equal(loadProgress(s, { ids, now: NOW }).notice, null);
  }
});

test('wrong shapes are reset', () => {
  const cases = [
    [null, /not a progress record/],
    [[], /not a progress record/],
    [42, /not a progress record/],
    ['"text"', /not a progress record/], // a JSON string
    [{ version: 1 }, /no valid item list/],
    [{ version: 1, items: [] }, /no valid item list/],
    [{ version: 1, items: 'tf-01' }, /no valid item list/],
  ];
  for (const [doc, re] of cases) {
    const { progress, notice } = loadProgress(saved(doc), { ids, now: NOW });
    assert.deepEqual(progress, emptyProgress(NOW), JSON.stringify(doc));
    assert.match(notice, re, JSON.stringify(doc));
  }
});

test('other format versions are reset, naming the version', () => {
  for (const [version, re] of [
    [0, /format version 0/],
    [2, /format version 2/],
    ['1', /no valid format version/],
    [undefined, /no valid format version/],
  ]) {
    const doc = { ...goodDoc(), version };
    const { progress, notice } = loadProgress(saved(doc), { ids, now: NOW });
    assert.deepEqual(progress, emptyProgress(NOW));
    assert.match(notice, re);
    assert.match(notice, /reads version 1/);
  }
});

test('unknown ids are dropped, known ones kept', () => {
  const doc = goodDoc();
  doc.items['tf-99'] = { box: 3, lastSeen: NOW - 10, seen: 2, correct: 2 };
  doc.items['quiz-1'] = { box: 3, lastSeen: NOW - 10, seen: 2, correct: 2 };
  const { progress, notice } = loadProgress(saved(doc), { ids, now: NOW });
  assert.deepEqual(Object.keys(progress.items).sort(), ['tf-01', 'why-03']);
  assert.match(notice, /dropped 2 questions the bank does not have \(tf-99, and 1 more\)/);
  assert.deepEqual(progress.session, doc.session);
  // without an id list only the id pattern is enforced
  const loose = loadProgress(saved(doc), { now: NOW });
  assert.ok('tf-99' in loose.progress.items);
  assert.ok(!('quiz-1' in loose.progress.items));
});

test('damaged records (NaN or out-of-range boxes, bad counts) are dropped one by one', () => {
  const bad = [
    { box: null, lastSeen: 1, seen: 1, correct: 1 }, // NaN serializes as null
    { box: '3', lastSeen: 1, seen: 1, correct: 1 },
    { box: 0, lastSeen: 1, seen: 1, correct: 1 },
    { box: 6, lastSeen: 1, seen: 1, correct: 1 },
    { box: 2.5, lastSeen: 1, seen: 1, correct: 1 },
    { box: 2, lastSeen: 'yesterday', seen: 1, correct: 1 },
    { box: 2, lastSeen: -5, seen: 1, correct: 1 },
    { box: 2, lastSeen: 1, seen: 1, correct: 2 },
    { box: 2, lastSeen: 1, seen: -1, correct: 0 },
    { box: 2, lastSeen: 1, seen: 1e300, correct: 0 },
    'box 2',
    null,
    [],
  ];
  for (const rec of bad) {
    const doc = goodDoc();
    doc.items['edge-01'] = rec;
    const { progress, notice } = loadProgress(saved(doc), { ids, now: NOW });
    assert.ok(!('edge-01' in progress.items), JSON.stringify(rec));
    assert.deepEqual(progress.items['tf-01'], doc.items['tf-01']);
    assert.match(notice, /reset 1 damaged question record \(edge-01\)/, JSON.stringify(rec));
  }
  // a real NaN (from a fake storage that hands back a parsed-looking document) is refused too
  const doc = goodDoc();
  doc.items['tf-01'].box = NaN;
  assert.ok(!('tf-01' in sanitizeProgress(doc, { ids }).progress.items));
});

test('unknown top-level fields, __proto__ among them, are ignored and named in the notice; nothing is polluted', () => {
  const doc = goodDoc();
  const raw = JSON.stringify(doc).replace(/^\{/, '{"__proto__":{"polluted":1},"colour":"red",');
  const store = { getItem: () => raw, setItem() {}, removeItem() {} };
  const { progress, notice } = loadProgress(store, { ids, now: NOW });
  assert.deepEqual(progress.items['tf-01'], doc.items['tf-01']);
  assert.match(notice, /ignored 2 unknown fields \(__proto__, colour\)/);
  assert.equal({}.polluted, undefined);
  assert.equal(Object.getPrototypeOf(progress), Object.prototype);
});

test('a damaged session resets only the session', () => {
  for (const session of [
    { answered: 1, correct: 2 },
    { answered: -1 },
    'x',
    [],
    { answered: 3, correct: 2, selfGraded: 0, selfCorrect: 0, streak: 5, bestStreak: 5, startedAt: 0 },
  ]) {
    const doc = goodDoc();
    doc.session = session;
    const { progress, notice } = loadProgress(saved(doc), { ids, now: NOW });
    assert.deepEqual(progress.items, doc.items);
    assert.equal(progress.session.answered, 0);
    assert.match(notice, /session score/);
  }
});

test('huge saved text is not parsed; huge keys never reach the notice', () => {
  const huge = JSON.stringify({ version: 1, items: {}, pad: 'x'.repeat(MAX_CHARS) });
  const r1 = loadProgress(saved(huge), { ids, now: NOW });
  assert.deepEqual(r1.progress, emptyProgress(NOW));
  assert.match(r1.notice, /implausibly large/);

  const doc = goodDoc();
  doc.items[`<script>${'y'.repeat(100000)}`] = { box: 1, lastSeen: 1, seen: 1, correct: 1 };
  const r2 = loadProgress(saved(doc), { ids, now: NOW });
  assert.deepEqual(Object.keys(r2.progress.items).sort(), ['tf-01', 'why-03']);
  assert.ok(r2.notice.length < 200, r2.notice);
  assert.ok(!r2.notice.includes('<script>'));
});

test('a __proto__ key pollutes nothing', () => {
  const raw = `{"version":1,"items":{"__proto__":{"box":1,"lastSeen":1,"seen":1,"correct":1},"tf-01":{"box":2,"lastSeen":1,"seen":1,"correct":1}}}`;
  const { progress, notice } = loadProgress(saved(raw), { ids, now: NOW });
  assert.deepEqual(Object.keys(progress.items), ['tf-01']);
  assert.equal({}.box, undefined);
  assert.match(notice, /dropped 1 question/);
});

test('a written answer is kept with its record; one that is not text, empty or too long is left out, the record kept', () => {
  const rec = { box: 2, lastSeen: NOW - 5, seen: 1, correct: 1 };
  const saved = (answer) =>
    new FakeStorage({
      [STORAGE_KEY]: JSON.stringify({
        version: 1,
        items: { 'why-01': { ...rec, answer } },
        session: emptyProgress().session,
      }),
    });
  const read = (answer) => loadProgress(saved(answer), { ids, now: NOW });
  const ok = read('the identity path');
  assert.equal(ok.notice, null);
  assert.deepEqual(ok.progress.items['why-01'], { ...rec, answer: 'the identity path' });
  for (const bad of [42, '', 'x'.repeat(MAX_ANSWER + 1), { text: 'x' }, null]) {
    const r = read(bad);
    assert.deepEqual(r.progress.items['why-01'], rec, JSON.stringify(bad)?.slice(0, 20));
  }
  assert.equal(keptAnswer(`  ${'y'.repeat(MAX_ANSWER + 5)} `).length, MAX_ANSWER);
  assert.equal(keptAnswer(' short '), 'short');
});

test('lastSeen in the future (a changed clock) is clamped to now', () => {
  const doc = goodDoc();
  doc.items['tf-01'].lastSeen = NOW + 10 * 86400000;
  const { progress, notice } = loadProgress(saved(doc), { ids, now: NOW });
  assert.equal(progress.items['tf-01'].lastSeen, NOW);
  assert.equal(notice, null);
});

test('storage that throws or is missing: no throw, a notice', () => {
  const s = new FakeStorage();
  s.getError = new DOMException('denied', 'SecurityError');
  const r = loadProgress(s, { ids, now: NOW });
  assert.deepEqual(r.progress, emptyProgress(NOW));
  assert.match(r.notice, /could not be read: the browser refused \(SecurityError\)/);

  for (const storage of [null, undefined, {}, { getItem: 1, setItem: 2 }]) {
    const m = loadProgress(storage, { now: NOW });
    assert.deepEqual(m.progress, emptyProgress(NOW));
    assert.match(m.notice, /cannot be saved/);
    assert.equal(saveProgress(storage, goodDoc()).ok, false);
    assert.equal(clearProgress(storage).ok, false);
  }
});

test('a full storage (quota) is reported, not thrown, also on write-back after a reset', () => {
  const s = new FakeStorage();
  s.setError = new DOMException('full', 'QuotaExceededError');
  const w = saveProgress(s, goodDoc());
  assert.deepEqual(w, { ok: false, notice: 'Quiz progress could not be saved: the browser storage is full.' });
  const old = Object.assign(new Error('legacy'), { name: 'Error', code: 22 });
  s.setError = old;
  assert.match(saveProgress(s, goodDoc()).notice, /storage is full/);

  const bad = saved('{');
  bad.setError = new DOMException('full', 'QuotaExceededError');
  const r = loadProgress(bad, { ids, now: NOW });
  assert.match(r.notice, /not valid JSON\. Quiz progress could not be saved: the browser storage is full\./);
});

test('unserializable progress is reported, not thrown', () => {
  const p = goodDoc();
  p.self = p;
  assert.equal(saveProgress(new FakeStorage(), p).ok, false);
  assert.equal(saveProgress(new FakeStorage(), { big: 'z'.repeat(MAX_CHARS) }).ok, false);
});

test('clearProgress removes the key', () => {
  const s = saved(goodDoc());
  assert.deepEqual(clearProgress(s), { ok: true, notice: null });
  assert.equal(s.map.has(STORAGE_KEY), false);
});

test('fuzz: random junk never throws and always yields clean progress', () => {
  const rand = mulberry32(1234);
  const atoms = [null, true, 0, -1, 1.5, NaN, 1e308, 'x', '', [], {}, 'tf-01', 3, 5, 6];
  const junk = (depth) => {
    const r = rand();
    if (depth > 3 || r < 0.4) return atoms[Math.floor(rand() * atoms.length)];
    if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => junk(depth + 1));
    const o = {};
    for (const k of [
      'version',
      'items',
      'session',
      'box',
      'lastSeen',
      'seen',
      'correct',
      'tf-01',
      'why-02',
      'answered',
    ]) {
      if (rand() < 0.5) o[k] = junk(depth + 1);
    }
    if (rand() < 0.5) o.version = 1;
    return o;
  };
  for (let i = 0; i < 500; i++) {
    const doc = junk(0);
    let text;
    try {
      text = JSON.stringify(doc);
    } catch {
      text = '{';
    }
    if (rand() < 0.2 && typeof text === 'string') text = text.slice(0, Math.floor(rand() * text.length));
    const s = saved(text ?? 'undefined');
    let out;
    assert.doesNotThrow(() => {
      out = loadProgress(s, { ids, now: NOW });
    });
    // what came out is clean: sanitizing it again finds nothing
    const again = sanitizeProgress(JSON.parse(JSON.stringify(out.progress)), { ids, now: NOW });
    assert.deepEqual(again.problems, [], JSON.stringify(doc));
  }
});

test('a reload with nothing answered changes no due count (the session remembers what it answered)', async () => {
  const { createSession } = await import('../../../web/src/quiz/ui/session.js');
  const storage = new FakeStorage();
  let t = NOW;
  const now = () => t;
  const s = createSession({ bank, storage, now });
  // three right, three wrong: the wrong ones drop to box 1, which has no wait
  for (let i = 0; i < 6; i++) {
    s.answer(s.currentId(), i % 2 === 0);
    t += 1000;
    s.next();
  }
  const counts = (x) => ({
    remaining: x.queueInfo().remaining,
    due: x.dueCount(),
    boxes: x.boxCounts(),
    current: x.currentId(),
  });
  const before = counts(s);
  assert.equal(before.remaining, bank.items.length - 6);
  const again = createSession({ bank, storage, now });
  assert.deepEqual(counts(again), before);
  // the same through reload() (another tab saved, nothing new answered)
  assert.equal(again.reload(), null);
  assert.equal(again.queueInfo().remaining, before.remaining);
  // a new session asks the missed ones again
  again.newSession();
  assert.equal(again.queueInfo().remaining, bank.items.length - 3);
});
