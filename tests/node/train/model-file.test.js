// The training lab's model file (web/src/train/model-file.js) and the
// session's save and load (session.js) with the real engine (wasm, in Node):
// a file round-trips the settings, the logs (NaN, Infinity, -0 kept) and the
// state blobs; a loaded state gives the saved held-out loss exactly and goes
// on bit for bit; every kind of damage is refused by name, and a refused load
// keeps the session's run. A file keeps a claim's id and setting, and one
// without them reads as no claim at the quick setting.
// Run: node --test tests/node/train/model-file.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { bits, loadWasm } from '../helpers.js';
import { tinyConfig } from './tiny.js';
import {
  MODEL_HEAD,
  MODEL_MAGIC,
  ModelFileError,
  SINCE_VERSION_1,
  decodeModel,
  encodeModel,
  fnv1a32,
  tooLarge,
} from '../../../web/src/train/model-file.js';
import { createSession } from '../../../web/src/train/session.js';

const rn = await loadWasm();

const CONFIG = tinyConfig({ steps: 20 });

/** The engine client's trainer handle over rn.trainer, in the same thread: async, stepsDone/config after load. */
function wasmEngine() {
  const engine = { made: 0, deleted: 0 };
  engine.trainer = async (config) => {
    const tr = rn.trainer(config);
    engine.made++;
    const h = {
      config: tr.config,
      task: tr.task,
      stepsDone: tr.stepsDone,
      stopped: tr.stopped,
      async step(n) {
        const logs = tr.step(n);
        h.stepsDone = tr.stepsDone;
        h.stopped = tr.stopped;
        return logs;
      },
      state: async () => tr.state(),
      async load(bytes) {
        tr.load(bytes);
        Object.assign(h, { config: tr.config, task: tr.task, stepsDone: tr.stepsDone, stopped: tr.stopped });
      },
      lesion: async () => tr.lesion(),
      dwaWeights: async () => tr.dwaWeights(),
      gates: async () => tr.gates(),
      async delete() {
        engine.deleted++;
        tr.delete();
      },
    };
    return h;
  };
  return engine;
}

/** A file of CONFIG trained `steps` (a multiple of log_every) per arch, and its runs' trainers' logs. */
function trained(steps = 6, config = CONFIG) {
  const runs = config.arch.map((arch) => {
    const tr = rn.trainer({ ...config, arch });
    const logs = tr.step(steps);
    const state = tr.state();
    tr.delete();
    return { arch, logs, state };
  });
  return { runs, bytes: encodeModel({ config, link: '#task=copy', runs }) };
}

const same = (a, b, label) => assert.ok(Object.is(a, b), `${label}: ${a} != ${b}`);

test('a file round-trips the settings, the logs and the states; the loaded state has the saved held-out loss and goes on bit for bit', () => {
  const { runs, bytes } = trained(6);
  assert.deepEqual([...bytes.subarray(0, 8)], [...MODEL_MAGIC]);
  const m = decodeModel(bytes);
  assert.deepEqual(m.config, CONFIG);
  assert.equal(m.link, '#task=copy');
  for (const [i, r] of m.runs.entries()) {
    assert.equal(r.arch, runs[i].arch);
    assert.deepEqual([...r.state], [...runs[i].state]);
    assert.equal(r.logs.length, 3);
    r.logs.forEach((l, j) => {
      for (const [k, v] of Object.entries(runs[i].logs[j]))
        if (ArrayBuffer.isView(v)) assert.deepEqual([...l[k]], [...v], k);
        else same(l[k], v, k);
    });
    const loaded = rn.trainer({ ...CONFIG, arch: r.arch });
    loaded.load(r.state);
    const whole = rn.trainer({ ...CONFIG, arch: r.arch });
    whole.step(6);
    same(loaded.lesion().base, whole.lesion().base, `${r.arch}: held-out loss`);
    const a = loaded.step(2)[0];
    const b = whole.step(2)[0];
    for (const k of Object.keys(b))
      if (ArrayBuffer.isView(b[k])) assert.deepEqual([...a[k]], [...b[k]], k);
      else same(a[k], b[k], k);
    loaded.delete();
    whole.delete();
  }
});

test('numbers JSON cannot hold survive the file: NaN, Infinity, -Infinity, -0', () => {
  const state = rn.trainer({ ...CONFIG, arch: 'post_ln' }).state();
  const log = {
    step: 2,
    lr: 0.001,
    train_loss: NaN,
    heldout_loss: Infinity,
    heldout_accuracy: -0,
    grad_norm_global: -Infinity,
    first_nonfinite: 2,
    grad_norm: Float64Array.from([NaN, Infinity, -0]),
    update_ratio: new Float64Array(0),
  };
  const one = { ...CONFIG, arch: ['post_ln'] };
  const m = decodeModel(encodeModel({ config: one, runs: [{ arch: 'post_ln', logs: [log], state }] }));
  const l = m.runs[0].logs[0];
  for (const k of ['train_loss', 'heldout_loss', 'heldout_accuracy', 'grad_norm_global', 'first_nonfinite'])
    same(l[k], log[k], k);
  [NaN, Infinity, -0].forEach((v, i) => same(l.grad_norm[i], v, `grad_norm[${i}]`));
  assert.equal(l.update_ratio.length, 0);
});

/** A copy of `bytes` with its header replaced by `edit(header)`, lengths and checksum made right. */
function withHeader(bytes, edit) {
  const H = new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(MODEL_HEAD, MODEL_HEAD + H)));
  const head = new TextEncoder().encode(typeof edit === 'function' ? JSON.stringify(edit(header) ?? header) : edit);
  const out = new Uint8Array(MODEL_HEAD + head.length + bytes.length - MODEL_HEAD - H);
  out.set(bytes.subarray(0, MODEL_HEAD));
  const view = new DataView(out.buffer);
  view.setUint32(12, head.length, true);
  view.setUint32(16, fnv1a32(head), true);
  out.set(head, MODEL_HEAD);
  out.set(bytes.subarray(MODEL_HEAD + H), MODEL_HEAD + head.length);
  return out;
}

test('Mix-LN\u2019s share round-trips; a file from before it was a setting loads with the default 0.25', () => {
  const config = { ...CONFIG, arch: ['mix_ln'], depth: 4, mix_fraction: 0.5 };
  const { runs, bytes } = trained(4, config);
  const m = decodeModel(bytes);
  assert.equal(m.config.mix_fraction, 0.5);
  const loaded = rn.trainer({ ...m.config, arch: 'mix_ln' });
  loaded.load(m.runs[0].state);
  assert.equal(loaded.config.mix_fraction, 0.5, 'the state holds it too');
  assert.deepEqual([...m.runs[0].state], [...runs[0].state]);
  loaded.delete();
  // The header of an older lab: every setting but mix_fraction.
  const old = withHeader(bytes, (h) => void delete h.config.mix_fraction);
  assert.doesNotMatch(new TextDecoder().decode(old.subarray(0, 4096)), /mix_fraction/);
  const back = decodeModel(old);
  assert.equal(back.config.mix_fraction, 0.25);
  assert.deepEqual(back.config, { ...config, mix_fraction: 0.25 });
  assert.ok(SINCE_VERSION_1.includes('mix_fraction'));
  // Only the settings added since: another missing one is still refused.
  assert.throws(
    () => decodeModel(withHeader(bytes, (h) => void delete h.config.depth)),
    (e) => e instanceof ModelFileError && e.field === 'config.depth' && /depth is missing/.test(e.message),
  );
  // Present, it is read as every setting is: out of range, not a number, or of another type is refused.
  for (const v of [2, -1, 'NaN', '0.5', null, [0.5]])
    assert.throws(
      () => decodeModel(withHeader(bytes, (h) => void (h.config.mix_fraction = v))),
      (e) =>
        e instanceof ModelFileError &&
        e.field === 'config.mix_fraction' &&
        /mix_fraction is not usable/.test(e.message),
      JSON.stringify(v),
    );
});

test('every kind of damage is refused by name', () => {
  const { bytes } = trained(4);
  const H = new DataView(bytes.buffer).getUint32(12, true);
  const copy = () => bytes.slice();
  const at = (i, v) => {
    const b = copy();
    b[i] = v;
    return b;
  };
  const u32 = (off, v) => {
    const b = copy();
    new DataView(b.buffer).setUint32(off, v, true);
    return b;
  };
  const text = (s) => new TextEncoder().encode(s);
  const cases = [
    ['empty', new Uint8Array(0), 'file', /empty/],
    ['not bytes', 'RNLAB', 'file', /not a file/],
    ['a text file', text('hello, world\n'), 'magic', /not a resnorm model file/],
    ['a CSV export', text('# resnorm training lab\narch,step\n'), 'magic', /CSV/],
    ['a JSON export', text('{"format":"resnorm-train-export"}'), 'magic', /JSON, not a model file/],
    ['a bare state', rn.trainer({ ...CONFIG, arch: 'pre_ln' }).state(), 'magic', /bare trainer state/],
    [
      'line ends rewritten',
      (() => {
        const b = copy();
        b[5] = 0x0a;
        return b;
      })(),
      'magic',
      /first bytes were changed/,
    ],
    ['cut inside the head', bytes.slice(0, 12), 'file', /truncated: 12 bytes/],
    ['another version', u32(8, 2), 'version', /version 2; this page reads version 1/],
    ['a huge header length', u32(12, 0x7fffffff), 'header', /a header of 2147483647 bytes/],
    ['cut inside the header', bytes.slice(0, MODEL_HEAD + 10), 'file', /truncated: 30 bytes, the header alone ends/],
    ['a damaged header', at(MODEL_HEAD + 5, bytes[MODEL_HEAD + 5] ^ 1), 'header', /checksum does not match/],
    ['a header that is not JSON', withHeader(bytes, '{"format": '), 'header', /not JSON/],
    ['another format', withHeader(bytes, (h) => ({ ...h, format: 'x' })), 'header', /not of a resnorm-train-model/],
    ['no settings', withHeader(bytes, (h) => ({ ...h, config: null })), 'config', /settings are missing/],
    ['a setting missing', withHeader(bytes, (h) => void delete h.config.lr), 'config.lr', /lr is missing/],
    ['an unknown setting', withHeader(bytes, (h) => void (h.config.evil = 1)), 'config.evil', /unknown setting "evil"/],
    [
      'a hostile value',
      withHeader(bytes, (h) => void (h.config.task = '<img src=x onerror=alert(1)>')),
      'config.task',
      /task is not usable/,
    ],
    ['a value out of range', withHeader(bytes, (h) => void (h.config.depth = 1e9)), 'config.depth', /out of range/],
    [
      'a value of the wrong type',
      withHeader(bytes, (h) => void (h.config.lr = { valueOf: 1 })),
      'config.lr',
      /not a value/,
    ],
    [
      'a prototype key',
      withHeader(bytes, '{"format":"resnorm-train-model","config":{"__proto__":{"x":1}}}'),
      'config.__proto__',
      /unknown setting/,
    ],
    ['runs missing', withHeader(bytes, (h) => void delete h.runs), 'runs', /runs are missing/],
    ['a run too few', withHeader(bytes, (h) => void h.runs.pop()), 'runs', /1 runs for 2 architectures/],
    [
      'runs swapped',
      withHeader(bytes, (h) => void h.runs.reverse()),
      'runs[0].arch',
      /run 1 is of "pre_ln", the settings say post_ln/,
    ],
    [
      'a length that is no length',
      withHeader(bytes, (h) => void (h.runs[0].bytes = -1)),
      'runs[0].bytes',
      /not a length/,
    ],
    ['logs that are no list', withHeader(bytes, (h) => void (h.runs[0].logs = 'x')), 'runs[0].logs', /not a list/],
    [
      'logs out of order',
      withHeader(bytes, (h) => void h.runs[0].logs.reverse()),
      'runs[0].logs',
      /out of order at step 2/,
    ],
    [
      'a log past the steps',
      withHeader(bytes, (h) => void (h.runs[0].logs[1].step = 999)),
      'runs[0].logs',
      /out of order at step 999/,
    ],
    [
      'a log with a hostile key',
      withHeader(bytes, (h) => void (h.runs[0].logs[0]['<b>'] = 1)),
      'post_ln log 1',
      /unknown entry "<b>"/,
    ],
    [
      'a log value that is no number',
      withHeader(bytes, (h) => void (h.runs[0].logs[0].lr = 'fast')),
      'post_ln log 1.lr',
      /not a number/,
    ],
    [
      'a log array too long',
      withHeader(bytes, (h) => void (h.runs[0].logs[0].grad_norm = [1, 2, 3, 4])),
      'post_ln log 1.grad_norm',
      /4 entries \(the depth is 2\)/,
    ],
    [
      'a log without a step',
      withHeader(bytes, (h) => void delete h.runs[1].logs[0].step),
      'pre_ln log 1.step',
      /no step/,
    ],
    [
      'blobs cut short',
      bytes.slice(0, bytes.length - 1),
      'file',
      new RegExp(`truncated: ${bytes.length - 1} bytes of ${bytes.length}`),
    ],
    [
      'bytes after the end',
      (() => {
        const b = new Uint8Array(bytes.length + 3);
        b.set(bytes);
        return b;
      })(),
      'file',
      /3 bytes after the end/,
    ],
    ['a blob that is no state', at(MODEL_HEAD + H, 0x41), 'state.post_ln', /state of post_ln is not a trainer state/],
  ];
  for (const [label, input, field, message] of cases) {
    assert.throws(
      () => decodeModel(input),
      (e) => {
        assert.ok(e instanceof ModelFileError && e instanceof RangeError, `${label}: ${e}`);
        assert.equal(e.field, field, `${label}: field`);
        assert.match(e.message, message, `${label}: ${e.message}`);
        return true;
      },
      label,
    );
  }
  assert.equal({}.x, undefined, 'no prototype pollution');
  // a file too large to be a model is refused before it is read
  assert.match(tooLarge(2 ** 40), /the file is 1048576 MB; a model file is at most 832 MB/);
  assert.equal(tooLarge(bytes.length), null);
});

test('the session saves a paused run and loads it into a new session, which goes on bit for bit', async () => {
  const engine = wasmEngine();
  const a = createSession({ engine });
  await a.step(CONFIG);
  await a.step(CONFIG);
  await assert.rejects(createSession({ engine }).saveModel(), /nothing to save/);
  const saved = await a.saveModel();
  const bytes = encodeModel(saved);
  const b = createSession({ engine });
  await b.loadModel(decodeModel(bytes));
  const snap = b.snapshot();
  assert.equal(snap.state, 'paused');
  assert.deepEqual(snap.config, CONFIG);
  for (const r of snap.runs) {
    assert.equal(r.stepsDone, 4);
    assert.equal(r.logs.length, 2);
    same(r.logs[1].heldout_loss, a.snapshot().runs.find((x) => x.arch === r.arch).logs[1].heldout_loss, r.arch);
    same(
      (await r.trainer.lesion()).base,
      (
        await a
          .snapshot()
          .runs.find((x) => x.arch === r.arch)
          .trainer.lesion()
      ).base,
      'lesion',
    );
  }
  await a.step(CONFIG);
  await b.step(CONFIG);
  for (const [i, r] of b.snapshot().runs.entries()) {
    const x = a.snapshot().runs[i].logs[2];
    const y = r.logs[2];
    for (const k of Object.keys(x))
      if (ArrayBuffer.isView(x[k])) assert.deepEqual([...y[k]], [...x[k]], k);
      else same(y[k], x[k], k);
  }
  await a.reset();
  await b.reset();
});

test('a finished run keeps what it learned: the session holds each trainer\u2019s averaging weights and gates, and a loaded file has them again', async () => {
  const config = { ...CONFIG, arch: ['pre_ln', 'rezero', 'layerscale', 'dwa'], steps: 4 };
  const engine = wasmEngine();
  const a = createSession({ engine });
  await a.start(config);
  const snap = a.snapshot();
  assert.equal(snap.state, 'done');
  // the engine's own numbers, from a trainer of each run's config stepped as far
  const want = Object.fromEntries(
    config.arch.map((arch) => {
      const tr = rn.trainer({ ...config, arch });
      tr.step(config.steps);
      const out = { dwaWeights: tr.dwaWeights(), gates: tr.gates() };
      tr.delete();
      return [arch, out];
    }),
  );
  for (const r of snap.runs) {
    assert.equal(r.learnedError, null, r.arch);
    assert.equal(bits(r.dwaWeights), bits(want[r.arch].dwaWeights), `${r.arch} averaging weights`);
    assert.equal(bits(r.gates), bits(want[r.arch].gates), `${r.arch} gates`);
  }
  const run = (arch) => snap.runs.find((r) => r.arch === arch);
  assert.equal(run('dwa').dwaWeights.length, config.depth);
  assert.equal(run('dwa').gates, null);
  assert.equal(run('layerscale').gates.width, config.width);
  assert.equal(run('rezero').gates.width, 1);
  assert.equal(run('pre_ln').dwaWeights, null);
  assert.equal(run('pre_ln').gates, null);
  const b = createSession({ engine });
  await b.loadModel(decodeModel(encodeModel(await a.saveModel())));
  assert.equal(b.snapshot().state, 'done');
  for (const r of b.snapshot().runs) {
    assert.equal(bits(r.dwaWeights), bits(want[r.arch].dwaWeights), `${r.arch} loaded averaging weights`);
    assert.equal(bits(r.gates), bits(want[r.arch].gates), `${r.arch} loaded gates`);
  }
  await a.reset();
  await b.reset();
});

test('a claim\u2019s runs (two of one arch, with their own settings) save and load with their keys and overrides', async () => {
  const engine = wasmEngine();
  const specs = [
    { key: 'post_ln', arch: 'post_ln', label: 'Post-LN' },
    { key: 'post_ln_deep', arch: 'post_ln', label: 'Post-LN, 3 blocks', overrides: { depth: 3 }, dash: [] },
    { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN', overrides: { warmup: 5 } },
  ];
  const a = createSession({ engine });
  await a.step(CONFIG, specs);
  const saved = await a.saveModel();
  assert.deepEqual(
    saved.runs.map((r) => [r.key, r.overrides]),
    [
      ['post_ln', {}],
      ['post_ln_deep', { depth: 3 }],
      ['pre_ln', { warmup: 5 }],
    ],
  );
  const back = decodeModel(encodeModel(saved));
  assert.deepEqual(
    back.runs.map((r) => [r.key, r.label, r.overrides]),
    saved.runs.map((r) => [r.key, r.label, r.overrides]),
  );
  const b = createSession({ engine });
  await b.loadModel(back);
  const runs = b.snapshot().runs;
  assert.deepEqual(
    runs.map((r) => [r.key, r.label, r.trainer.config.depth, r.trainer.config.warmup]),
    [
      ['post_ln', 'Post-LN', CONFIG.depth, CONFIG.warmup],
      ['post_ln_deep', 'Post-LN, 3 blocks', 3, CONFIG.warmup],
      ['pre_ln', 'Pre-LN', CONFIG.depth, 5],
    ],
  );
  await a.step(CONFIG, specs);
  await b.step(CONFIG, specs);
  for (const [i, r] of b.snapshot().runs.entries())
    same(r.logs.at(-1).heldout_loss, a.snapshot().runs[i].logs.at(-1).heldout_loss, r.key);
  // a run whose overrides name no setting, or two runs of one key, are refused by name
  const bad = (edit) => {
    const m = structuredClone({ ...saved, runs: saved.runs.map((r) => ({ ...r, state: r.state })) });
    edit(m);
    return () => decodeModel(encodeModel(m));
  };
  assert.throws(
    bad((m) => (m.runs[1].overrides = { nonsense: 1 })),
    (e) => e instanceof ModelFileError && /unknown setting "nonsense"/.test(e.message),
  );
  assert.throws(
    bad((m) => (m.runs[1].overrides = { depth: 100000 })),
    (e) => e instanceof ModelFileError && e.field === 'runs[1].overrides.depth',
  );
  assert.throws(
    bad((m) => (m.runs[2].key = 'post_ln')),
    (e) => e instanceof ModelFileError && /same key/.test(e.message),
  );
  await a.reset();
  await b.reset();
});

test('a load the engine refuses keeps the session\u2019s run and frees the trainers it made', async () => {
  const engine = wasmEngine();
  const s = createSession({ engine });
  await s.step(CONFIG);
  const before = s.snapshot().runs;
  const { bytes } = trained(4);
  const m = decodeModel(bytes);
  // a state the core refuses: its checksum no longer matches
  const bad = structuredClone(m);
  bad.runs[1].state[200] ^= 1;
  const made = engine.made;
  await assert.rejects(s.loadModel(bad), /pre_ln: state: checksum mismatch: the state is damaged/);
  // logs that do not end where the state is
  const short = { ...m, runs: m.runs.map((r) => ({ ...r, logs: r.logs.slice(0, 1) })) };
  await assert.rejects(s.loadModel(short), /post_ln: its state is at step 4, its logs end at step 2/);
  // a state of other settings than the file says
  const other = trained(4, { ...CONFIG, lr: 0.002 });
  const mixed = { ...m, runs: decodeModel(other.bytes).runs };
  await assert.rejects(s.loadModel(mixed), /post_ln: its state was trained with lr 0.002, the settings say 0.001/);
  assert.equal(engine.deleted, engine.made - made, 'every trainer made for a refused load is freed');
  assert.equal(s.snapshot().runs, before);
  assert.equal(s.snapshot().state, 'paused');
  assert.equal(s.snapshot().runs[0].logs.length, 1);
  // a Reset while the file loads wins: the loaded trainers are freed
  const pending = s.loadModel(m);
  const reset = s.reset();
  await assert.rejects(pending, /the run was reset while the file loaded/);
  await reset;
  assert.equal(s.snapshot().state, 'idle');
  assert.equal(engine.deleted, engine.made, 'every trainer freed');
  await s.step(CONFIG);
  // and a good one replaces the run, freeing the old trainers
  const deleted = engine.deleted;
  await s.loadModel(m);
  assert.equal(engine.deleted, deleted + 2);
  assert.equal(s.snapshot().runs[0].stepsDone, 4);
  await s.reset();
});

test('on three seeds the session saves every seed\u2019s trainer, loads each back on its seed, and a file short of a seed is refused by name', async () => {
  const engine = wasmEngine();
  const config = { ...CONFIG, seed: 5, seeds: 3 };
  const a = createSession({ engine });
  await a.step(config);
  assert.equal(a.snapshot().all.length, 6, '2 runs x 3 seeds');
  const saved = await a.saveModel();
  const bytes = encodeModel(saved);
  const m = decodeModel(bytes);
  assert.equal(m.config.seeds, 3);
  assert.deepEqual(
    m.runs.map((r) => [r.key, r.seedIndex, r.overrides.seed ?? m.config.seed]),
    [
      ['post_ln', 0, 5],
      ['post_ln', 1, 6],
      ['post_ln', 2, 7],
      ['pre_ln', 0, 5],
      ['pre_ln', 1, 6],
      ['pre_ln', 2, 7],
    ],
  );
  const b = createSession({ engine });
  await b.loadModel(m);
  const snap = b.snapshot();
  assert.deepEqual(
    snap.runs.map((r) => r.seeds.map((s) => s.seed)),
    [
      [5, 6, 7],
      [5, 6, 7],
    ],
  );
  // each seed goes on bit for bit as the saved session's same seed
  await a.step(config);
  await b.step(config);
  const text = (v) => JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x, String) : x));
  a.snapshot().all.forEach((r, i) =>
    assert.equal(text(b.snapshot().all[i].logs), text(r.logs), `${r.key} seed ${r.seed}`),
  );
  // the seeds differ from one another
  assert.notEqual(text(a.snapshot().all[0].logs), text(a.snapshot().all[1].logs));
  // a file whose settings say 3 seeds but hold 2 of one run, or a seed out of range: refused by name
  const short = withHeader(bytes, (h) => ({ ...h, runs: h.runs.filter((r, i) => i !== 2) }));
  assert.throws(
    () => decodeModel(short),
    (e) => e.field === 'runs' && /^5 runs for 2 architectures in the settings on 3 seeds$/.test(e.message),
  );
  const far = withHeader(bytes, (h) => {
    h.runs[1].seedIndex = 3;
  });
  assert.throws(
    () => decodeModel(far),
    (e) => e.field === 'runs[1].seedIndex' && /seed of run post_ln/.test(e.message),
  );
  const twice = withHeader(bytes, (h) => {
    h.runs[1].seedIndex = 0;
  });
  assert.throws(() => decodeModel(twice), /two runs have the same key and seed/);
  const many = withHeader(bytes, (h) => ({ ...h, config: { ...h.config, seeds: 17 } }));
  assert.throws(
    () => decodeModel(many),
    (e) => e.field === 'config.seeds' && /out of range \(allowed 1\.\.16\)/.test(e.message),
  );
});

/** `bytes` (a model file) with its header edited by `edit` and resealed. */
function reheader(bytes, edit) {
  const H = new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(MODEL_HEAD, MODEL_HEAD + H)));
  edit(header);
  const head = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(MODEL_HEAD + head.length + bytes.length - MODEL_HEAD - H);
  out.set(bytes.subarray(0, MODEL_HEAD));
  const v = new DataView(out.buffer);
  v.setUint32(12, head.length, true);
  v.setUint32(16, fnv1a32(head), true);
  out.set(head, MODEL_HEAD);
  out.set(bytes.subarray(MODEL_HEAD + H), MODEL_HEAD + head.length);
  return out;
}

test('a file keeps its claim and setting; one without them is no claim at the quick setting; others are refused by name', () => {
  const { runs } = trained(2);
  const deep = decodeModel(encodeModel({ config: CONFIG, runs, claim: 'depth', setting: 'deep' }));
  assert.equal(deep.claim, 'depth');
  assert.equal(deep.setting, 'deep');
  const bytes = encodeModel({ config: CONFIG, runs, claim: 'depth', setting: 'deep' });
  const old = decodeModel(
    reheader(bytes, (h) => {
      delete h.claim;
      delete h.setting;
    }),
  );
  assert.equal(old.claim, 'none');
  assert.equal(old.setting, 'quick');
  for (const [edit, field] of [
    [(h) => (h.setting = 'deep2'), 'setting'],
    [(h) => (h.setting = '<script>'), 'setting'],
    [(h) => (h.claim = 'nope'), 'claim'],
  ])
    assert.throws(
      () => decodeModel(reheader(bytes, edit)),
      (e) => e instanceof ModelFileError && e.field === field,
    );
});
