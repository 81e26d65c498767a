// The quiz page's logic without a browser: the session (queue, answers, storage, notices), the
// router, the norm panel's batch inputs (checked against the engine's BatchNorm), the explorer
// links of the bank's settings, and the export file names and contents.
// Run: node --test tests/node/quiz/quiz-ui.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import { loadWasm } from '../helpers.js';
import { createSession } from '../../../web/src/quiz/ui/session.js';
import { parseRoute } from '../../../web/src/quiz/ui/router.js';
import {
  BATCH,
  DEFAULT_BATCH,
  batchValues,
  batchInput,
  countedPositions,
  tokenAt,
  moments,
  maxAbsDiff,
  clampNumber,
} from '../../../web/src/quiz/ui/norm-data.js';
import { explorerHref, describeSetting } from '../../../web/src/quiz/ui/experiment.js';
import { exportFileName, exportText } from '../../../web/src/quiz/ui/export-menu.js';
import { toGift, toAnkiTsv } from '../../../web/src/quiz/export.js';
import { STORAGE_KEY } from '../../../web/src/quiz/store.js';
import { DAY_MS } from '../../../web/src/quiz/schedule.js';
import { configFromHash, defaultConfig } from '../../../web/src/shared/state.js';

const bank = JSON.parse(
  fs.readFileSync(fileURLToPath(new URL('../../../web/src/quiz/bank.json', import.meta.url)), 'utf8'),
);
const rn = await loadWasm();

function fakeStorage(initial = {}) {
  const data = new Map(Object.entries(initial));
  return {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => data.set(k, String(v)),
    removeItem: (k) => data.delete(k),
    data,
  };
}

function clock(t0 = Date.UTC(2026, 0, 10, 12)) {
  let t = t0;
  const now = () => t;
  now.advance = (ms) => {
    t += ms;
  };
  return now;
}

test('session: a fresh queue holds every item, true/false first, in bank order', () => {
  const s = createSession({ bank, storage: fakeStorage(), now: clock() });
  assert.equal(s.loadNotice(), null);
  assert.equal(s.queueInfo().total, bank.items.length);
  assert.equal(s.currentId(), bank.items[0].id);
  const seen = [];
  for (let id = s.currentId(); id; id = s.next()) seen.push(id);
  assert.deepEqual(
    seen,
    bank.items.map((it) => it.id),
  );
});

test('session: answers move boxes, count in the score, are saved, and are not asked twice', () => {
  const storage = fakeStorage();
  const now = clock();
  const s = createSession({ bank, storage, now });
  const events = [];
  s.subscribe((e) => events.push(e.type));
  assert.equal(s.answer('tf-01', true), null);
  assert.equal(s.record('tf-01').box, 2);
  assert.equal(s.answer('why-01', false, { selfGraded: true }), null);
  assert.equal(s.record('why-01').box, 1);
  assert.equal(s.summary(), '1 of 2 correct (1 self-graded) · streak 0 · best 1');
  assert.deepEqual(events, ['answer', 'answer']);
  const doc = JSON.parse(storage.getItem(STORAGE_KEY));
  assert.equal(doc.items['tf-01'].box, 2);
  assert.equal(doc.session.answered, 2);
  // tf-01 is the queue's head; answered, it is skipped.
  assert.equal(s.currentId(), 'tf-01');
  assert.equal(s.next(), 'tf-02');
  // why-01 (missed, box 1, due at once) is not offered again in this session, even after a filter change.
  s.setFilter({ section: 'why' });
  assert.notEqual(s.currentId(), 'why-01');
  assert.ok(!s.currentId() || s.currentId().startsWith('why-'));

  // A reload reads it all back; tf-01 waits a day, why-01 is due now.
  const again = createSession({ bank, storage, now });
  assert.equal(again.loadNotice(), null);
  assert.equal(again.record('tf-01').box, 2);
  assert.equal(again.dueCount(), bank.items.length - 1);
  // box 1 first, in bank order: the missed why-01 sits among the new ones, tf-01 (box 2) waits
  assert.equal(again.currentId(), 'tf-02');
  assert.ok(again.queueInfo().total === bank.items.length - 1);
  now.advance(DAY_MS + 1);
  const later = createSession({ bank, storage, now });
  assert.equal(later.dueCount(), bank.items.length);
});

test('session: an open item\u2019s written answer is kept with its record; an empty one keeps the last, a true/false item keeps none', () => {
  const storage = fakeStorage();
  const now = clock();
  const s = createSession({ bank, storage, now });
  s.answer('why-01', true, { selfGraded: true, response: '  the +1 path\n' });
  assert.equal(s.record('why-01').answer, 'the +1 path');
  assert.equal(JSON.parse(storage.getItem(STORAGE_KEY)).items['why-01'].answer, 'the +1 path');
  s.answer('why-01', false, { selfGraded: true, response: '' });
  assert.equal(s.record('why-01').answer, 'the +1 path', 'committed without writing: the last answer stays');
  s.answer('why-01', true, { selfGraded: true, response: 'x'.repeat(5000) });
  assert.equal(Array.from(s.record('why-01').answer).length, 1000);
  assert.match(s.record('why-01').answer, /^x+\u2026$/);
  s.answer('tf-01', true, { response: 'true' });
  assert.equal('answer' in s.record('tf-01'), false);
  const again = createSession({ bank, storage, now });
  assert.equal(again.loadNotice(), null);
  assert.equal(again.record('why-01').answer.length, 1000);
});

test('session: "all" ignores the schedule; a new session clears the score, keeps the boxes', () => {
  const storage = fakeStorage();
  const now = clock();
  const s = createSession({ bank, storage, now });
  for (const it of bank.items.filter((x) => x.section === 'recall')) s.answer(it.id, true);
  s.setFilter({ section: 'recall' });
  assert.equal(s.currentId(), null);
  assert.equal(s.dueCount(), 0);
  assert.ok(s.nextDueAt() > now());
  s.newSession();
  assert.equal(s.session().answered, 0);
  assert.equal(s.record('recall-01').box, 2);
  assert.equal(s.currentId(), null, 'not due: nothing in the due queue');
  s.setFilter({ mode: 'all' });
  assert.equal(s.queueInfo().total, bank.items.filter((x) => x.section === 'recall').length);
  s.reset();
  assert.equal(storage.getItem(STORAGE_KEY), null);
  assert.equal(s.record('recall-01').box, 1);
});

test('session: shuffling is per box and keeps every item', () => {
  let k = 0;
  const s = createSession({ bank, storage: fakeStorage(), now: clock(), seed: () => ++k });
  s.setFilter({ shuffle: true });
  const ids = [];
  for (let id = s.currentId(); id; id = s.next()) ids.push(id);
  assert.deepEqual([...ids].sort(), bank.items.map((it) => it.id).sort());
  assert.notDeepEqual(
    ids,
    bank.items.map((it) => it.id),
  );
});

test('session: damaged, old or unreadable storage gives a notice and a working quiz', () => {
  for (const raw of [
    '{not json',
    JSON.stringify({ version: 0 }),
    JSON.stringify({ version: 1, items: { 'tf-01': { box: 7 } } }),
  ]) {
    const storage = fakeStorage({ [STORAGE_KEY]: raw });
    const s = createSession({ bank, storage, now: clock() });
    assert.match(s.loadNotice(), /^Quiz progress: /, raw);
    assert.equal(s.currentId(), 'tf-01');
    assert.equal(s.answer('tf-01', true), null);
  }
  const blocked = {
    getItem() {
      throw new Error('SecurityError');
    },
    setItem() {
      throw Object.assign(new Error('full'), { name: 'QuotaExceededError' });
    },
  };
  const s = createSession({ bank, storage: blocked, now: clock() });
  assert.match(s.loadNotice(), /could not be read/);
  assert.match(s.answer('tf-01', true), /storage is full/);
  const none = createSession({ bank, storage: null, now: clock() });
  assert.match(none.loadNotice(), /cannot be saved/);
});

test('router: areas, deep links, unknown ids', () => {
  const known = (id) => bank.items.some((it) => it.id === id);
  assert.deepEqual(parseRoute('', known), { area: 'quiz', id: null, unknownId: null });
  assert.deepEqual(parseRoute('#quiz', known), { area: 'quiz', id: null, unknownId: null });
  assert.deepEqual(parseRoute('#quiz/tf-03', known), { area: 'quiz', id: 'tf-03', unknownId: null });
  assert.deepEqual(parseRoute('#quiz/zz-99', known), { area: 'quiz', id: null, unknownId: 'zz-99' });
  assert.deepEqual(parseRoute('#norm', known), { area: 'norm', id: null, unknownId: null });
  assert.deepEqual(parseRoute('#generated', known), { area: 'generated', id: null, unknownId: null });
  assert.deepEqual(parseRoute('#%E0%A4%A', known), { area: 'quiz', id: null, unknownId: null });
  assert.deepEqual(parseRoute('#depth=50', known), { area: 'quiz', id: null, unknownId: null });
});

test("explorer links: every setting in the bank round-trips through the explorer's hash", () => {
  const settings = bank.items.filter((it) => it.experiment && it.experiment.setting);
  assert.ok(settings.length > 20);
  for (const it of settings) {
    const p = it.experiment.setting;
    const href = explorerHref(p);
    assert.match(href, /^\.\/(#.*)?$/);
    const config = configFromHash(href.slice(2));
    const want = { ...defaultConfig(), ...p };
    for (const k of Object.keys(want)) {
      if (k === 'arch') assert.deepEqual([...config.arch].sort(), [...p.arch].sort(), it.id);
      else assert.equal(config[k], want[k], `${it.id}.${k}`);
    }
    assert.match(describeSetting(p), new RegExp(`depth ${p.depth} · gain ${p.gain}`));
  }
  assert.equal(explorerHref({ arch: ['plain'], depth: 50, gain: 1.2 }), './#arch=plain&depth=50&gain=1.2');
});

test("exports: file names and contents are export.js's", () => {
  assert.equal(exportFileName('gift'), 'resnorm-quiz.gift.txt');
  assert.equal(
    exportFileName('tsv', { section: 'edge-cases', tag: 'layernorm' }),
    'resnorm-quiz-edge-cases-layernorm.tsv',
  );
  assert.equal(exportText('gift', bank), toGift(bank));
  assert.equal(exportText('tsv', bank), toAnkiTsv(bank));
  assert.equal(exportText('tsv', bank, { tag: 'rmsnorm' }), toAnkiTsv(bank, { tag: 'rmsnorm' }));
  const gift = exportText('gift', bank, { section: 'why' });
  assert.match(gift, /^\/\/ resnorm question bank \(section why\): 7 questions/);
  assert.equal((gift.match(/^::why-/gm) || []).length, 7);
});

test('norm panel batch: padding with zeros, lengths, counted positions', () => {
  const values = batchValues();
  assert.equal(values.length, BATCH.maxBatch * BATCH.maxLength * BATCH.width);
  assert.deepEqual(Array.from(values), Array.from(batchValues()), 'deterministic');
  const input = batchInput(values, DEFAULT_BATCH);
  assert.equal(input.batch, 4);
  assert.equal(input.length, 7 + 1);
  assert.deepEqual(input.lengths, [5, 3, 7, 4]);
  assert.equal(input.x.length, 4 * 8 * 4);
  // sequence 2 (3 real tokens): position 3 onward is zero padding
  assert.deepEqual(tokenAt(input.x, input, 1, 3), [0, 0, 0, 0]);
  assert.deepEqual(tokenAt(input.x, input, 1, 2), Array.from(values.slice((1 * 8 + 2) * 4, (1 * 8 + 2) * 4 + 4)));
  assert.deepEqual(countedPositions(input), { real: 19, padding: 13, total: 32 });
  assert.deepEqual(countedPositions({ ...input, countPadding: false }), { real: 19, padding: 0, total: 19 });
  const one = batchInput(values, { ...DEFAULT_BATCH, batch: 1, padding: 0 });
  assert.equal(one.length, 5);
  assert.deepEqual(one.lengths, [5]);
  assert.deepEqual(
    batchInput(values, { batch: 99, lengths: [0, 99], padding: -3, countPadding: 0 }).lengths.slice(0, 2),
    [1, BATCH.maxLength],
  );
  assert.equal(clampNumber('−2.5', { min: -5, max: 5 }), -2.5);
  assert.equal(clampNumber('12', { min: -5, max: 5 }), 5);
  assert.equal(clampNumber('', { min: -5, max: 5 }), null);
  assert.equal(clampNumber('abc', { min: -5, max: 5 }), null);
});

test("norm panel batch, through the engine: another sequence's length moves BatchNorm, never LayerNorm", () => {
  const values = batchValues();
  const run = (s) => {
    const input = batchInput(values, s);
    const out = rn.batchVsLayerNorm(input);
    return { bn: tokenAt(out.batchnorm, input, 0, 0), ln: tokenAt(out.layernorm, input, 0, 0), out, input };
  };
  const base = run(DEFAULT_BATCH);
  const variants = [
    { ...DEFAULT_BATCH, lengths: [5, 6, 7, 4, 6, 2] }, // another sequence's length
    { ...DEFAULT_BATCH, padding: 4 }, // more padding, counted
    { ...DEFAULT_BATCH, batch: 1 }, // batch of one
    { ...DEFAULT_BATCH, batch: 6 },
    { ...DEFAULT_BATCH, countPadding: false },
  ];
  for (const v of variants) {
    const r = run(v);
    assert.ok(maxAbsDiff(r.bn, base.bn) > 1e-3, JSON.stringify(v));
    assert.equal(maxAbsDiff(r.ln, base.ln), 0, JSON.stringify(v));
  }
  // Without counting padding, more padding changes nothing at all.
  const masked = { ...DEFAULT_BATCH, countPadding: false };
  assert.equal(maxAbsDiff(run(masked).bn, run({ ...masked, padding: 5 }).bn), 0);
  // LayerNorm output of a token: mean 0, variance 1 (up to eps), over its own features.
  const m = moments(base.ln);
  assert.ok(Math.abs(m.mean) < 1e-12 && Math.abs(m.var - 1) < 1e-3, JSON.stringify(m));
  // BatchNorm's statistics are over the counted positions of the batch.
  const { x } = base.input;
  const f0 = [];
  for (let p = 0; p < base.input.batch * base.input.length; p++) f0.push(x[p * BATCH.width]);
  assert.ok(Math.abs(base.out.mean[0] - moments(f0).mean) < 1e-12);
});
