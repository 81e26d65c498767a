// The training lab's model file: the settings, and per run its architecture,
// its logs and the engine's state blob (trainer.state()), so a page can make
// the trainers again, load the blobs into them and go on training bit for
// bit. A binary file: a fixed head, a JSON header, then the blobs as they are
// (a blob is most of the file; base64 in JSON would make it a third larger
// and cost a pass over every byte both ways). Pure functions, no DOM.
//
//   offset  size  what
//   0       8     magic: the bytes 52 4E 4C 41 42 0D 0A 1A ("RNLAB\r\n\x1a": a
//                 file whose line ends were rewritten no longer matches)
//   8       4     version, uint32 little-endian: 1
//   12      4     H, the header's length in bytes, uint32 little-endian
//   16      4     FNV-1a 32 of the header's bytes, uint32 little-endian
//   20      H     the header: UTF-8 JSON {format: 'resnorm-train-model',
//                 config: every training field and the lab's own (seeds; a file from before a
//                 field existed may lack it: see SINCE_VERSION_1), link, claim (the claim's
//                 id of claims/lab/, or 'none'; absent: 'none') and setting (its setting,
//                 'quick' or 'deep'; absent, as in a file from before the choice: 'quick'), runs: [{arch, key,
//                 label, dash, overrides, stopWhenTrained, trainedAt, seedIndex, normSamples, bytes,
//                 logs}]}; a claim's runs differ from the settings in
//                 `overrides` (key and label name them; without them a run is
//                 the settings with its arch); each run key once per seed, its
//                 seedIndex 0 .. seeds - 1 (a run on another seed than the
//                 settings' has it in `overrides`); `bytes` is the length of the run's blob; in the
//                 logs a number that JSON cannot hold is a string: "NaN",
//                 "Infinity", "-Infinity", "-0"
//   20 + H        the runs' blobs, one after another in the runs' order (each
//                 begins "RNTRAIN1" and ends with the core's own checksum)
//   the file ends there: its length is exactly 20 + H + the blobs' lengths.
//
//   encodeModel({ config, link, claim, setting, runs: [{arch, logs, state, ...spec}] }) -> Uint8Array
//   decodeModel(bytes) -> { config, link, claim, setting, runs: [{arch, logs, state, ...spec}] }
//   (spec: key, label, dash, overrides, stopWhenTrained, trainedAt, normSamples)
//
// decodeModel refuses a damaged, truncated, foreign or hostile file with a
// ModelFileError whose message names what is wrong (and .field the part),
// reading nothing out of bounds and trusting no length it has not checked.
import { LAB_KEYS, LAB_TABLE, TRAIN_TABLE, seedsOf } from '../shared/train-fields.js';
import { readField, writeField } from '../shared/state.js';
import { CLAIM_IDS, SETTINGS } from '../claims/lab/index.js';
import { bnLayers } from './bn-layers.js';

export const MODEL_MAGIC = Uint8Array.from([0x52, 0x4e, 0x4c, 0x41, 0x42, 0x0d, 0x0a, 0x1a]);
export const MODEL_VERSION = 1;
export const MODEL_FORMAT = 'resnorm-train-model';
export const MODEL_HEAD = 20;
/** The state blob's own magic (core/include/resnorm/trainer.h kStateMagic). */
const STATE_MAGIC = 'RNTRAIN1';
/**
 * Bounds a file is held to before anything is read: the whole file (the
 * header's bound and the engine's memory budget, 768 MB, which every state
 * fits in), the header, runs, logs per run, entries per log.
 */
export const MODEL_LIMITS = {
  file: (64 + 768) * 1024 * 1024,
  header: 64 * 1024 * 1024,
  // 32 runs on each of 16 seeds
  runs: 32 * 16,
  logs: 1_000_001,
  keys: 64,
};

/** The refusal of a file of `size` bytes before it is read, or null. */
export const tooLarge = (size) =>
  size > MODEL_LIMITS.file
    ? `the file is ${Math.round(size / 2 ** 20)} MB; a model file is at most ${MODEL_LIMITS.file / 2 ** 20} MB`
    : null;

export class ModelFileError extends RangeError {
  constructor(message, field) {
    super(message);
    this.name = 'ModelFileError';
    this.field = field;
  }
}
const fail = (field, message) => {
  throw new ModelFileError(message, field);
};

/** FNV-1a 32 of bytes. */
export function fnv1a32(bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const NONFINITE = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
const numberOut = (v) => (Object.is(v, -0) ? '-0' : Number.isFinite(v) ? v : String(v));
const isArray = (v) => v != null && typeof v === 'object' && typeof v.length === 'number';

/** A log as the header holds it: arrays plain, numbers JSON cannot hold as their names. */
function logOut(l) {
  const o = {};
  for (const [k, v] of Object.entries(l))
    o[k] = isArray(v) ? Array.from(v, numberOut) : typeof v === 'number' ? numberOut(v) : v;
  return o;
}

export function encodeModel({ config, link = '', claim = 'none', setting = 'quick', runs }) {
  const header = {
    format: MODEL_FORMAT,
    config,
    link,
    claim,
    setting,
    runs: runs.map((r) => ({
      arch: r.arch,
      key: r.key ?? r.arch,
      label: r.label ?? null,
      dash: r.dash ?? null,
      overrides: r.overrides ?? {},
      stopWhenTrained: Boolean(r.stopWhenTrained),
      trainedAt: r.trainedAt ?? null,
      ...(r.seedIndex ? { seedIndex: r.seedIndex } : {}),
      ...(r.normSamples ? { normSamples: true } : {}),
      bytes: r.state.length,
      logs: r.logs.map(logOut),
    })),
  };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const total = MODEL_HEAD + head.length + runs.reduce((n, r) => n + r.state.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set(MODEL_MAGIC, 0);
  view.setUint32(8, MODEL_VERSION, true);
  view.setUint32(12, head.length, true);
  view.setUint32(16, fnv1a32(head), true);
  out.set(head, MODEL_HEAD);
  let at = MODEL_HEAD + head.length;
  for (const r of runs) {
    out.set(r.state, at);
    at += r.state.length;
  }
  return out;
}

const plain = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const KEY = /^[a-z][a-z0-9_]{0,39}$/;

/** What a foreign file looks like, for the refusal. */
function foreign(bytes) {
  const start = new TextDecoder().decode(bytes.subarray(0, 16));
  if (start.startsWith(STATE_MAGIC)) return 'a bare trainer state, not a lab model file';
  if (/^\s*\{/.test(start)) return 'JSON, not a model file (the lab\u2019s JSON export holds numbers, no model)';
  if (start.startsWith('#') || start.startsWith('arch,')) return 'text, not a model file (a CSV export?)';
  if (bytes.length >= 6 && bytes[0] === 0x52 && bytes[1] === 0x4e && bytes[4] === 0x42)
    return 'a model file whose first bytes were changed (line ends rewritten?)';
  return 'not a resnorm model file';
}

/** One setting as the lab writes it, read back through the lab's field table, or a refusal naming `at`. */
function readSetting(k, v, at) {
  const ok = typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || Array.isArray(v);
  const r = ok ? readField(k, writeField(k, v, LAB_TABLE), LAB_TABLE) : { ok: false, reason: 'not a value' };
  if (!r.ok || r.dropped || JSON.stringify(r.value) !== JSON.stringify(v))
    fail(at, `the setting ${k} is not usable (${r.ok ? 'not as the lab writes it' : r.reason})`);
  return r.value;
}

/**
 * The training fields added after version 1's files were first written: a
 * file without one was saved before it existed and ran at its default (the
 * engine reads a state blob without it the same way), so it reads as that.
 */
export const SINCE_VERSION_1 = [
  'mix_fraction',
  'dyt_alpha',
  'qk_norm',
  'hc_streams',
  'sinkhorn_iters',
  'ngpt_alpha',
  'attn_res_blocks',
];

/** The settings, every training field, each read back through the lab's field table. */
function readConfig(c) {
  if (!plain(c)) fail('config', 'the settings are missing');
  for (const k of Object.keys(c))
    if (!Object.hasOwn(LAB_TABLE, k)) fail(`config.${k.slice(0, 40)}`, `unknown setting "${k.slice(0, 40)}"`);
  const config = {};
  for (const k of LAB_KEYS) {
    // the lab's own settings (seeds): a file without one is at its default, and reads without it
    if (!Object.hasOwn(c, k) && !Object.hasOwn(TRAIN_TABLE, k)) continue;
    if (!Object.hasOwn(c, k) && SINCE_VERSION_1.includes(k)) {
      config[k] = structuredClone(LAB_TABLE[k].default);
      continue;
    }
    if (!Object.hasOwn(c, k)) fail(`config.${k}`, `the setting ${k} is missing`);
    config[k] = readSetting(k, c[k], `config.${k}`);
  }
  return config;
}

/**
 * One log: known-shaped keys, numbers (or their names), arrays of them (at most `longest` entries:
 * a block boundary's L + 1, or a BatchNorm run's layers), first_nonfinite null or a number.
 */
function readLog(l, where, L, longest = L + 1) {
  if (!plain(l)) fail(where, `${where} is not a log`);
  const keys = Object.keys(l);
  if (keys.length > MODEL_LIMITS.keys) fail(where, `${where} has ${keys.length} entries`);
  const num = (v, at) => {
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && Object.hasOwn(NONFINITE, v)) return NONFINITE[v];
    return fail(at, `${at} is not a number`);
  };
  const out = {};
  for (const k of keys) {
    if (!KEY.test(k)) fail(where, `${where} has an unknown entry "${k.slice(0, 40)}"`);
    const v = l[k];
    const at = `${where}.${k}`;
    if (Array.isArray(v)) {
      if (v.length > longest)
        fail(
          at,
          `${at} has ${v.length} entries (the depth is ${L}${longest > L + 1 ? `, ${longest - 1} BatchNorm layers` : ''})`,
        );
      out[k] = Float64Array.from(v, (x, i) => num(x, `${at}[${i}]`));
    } else if (v === null) out[k] = null;
    else out[k] = num(v, at);
  }
  if (!Number.isInteger(out.step) || out.step < 1) fail(`${where}.step`, `${where} has no step`);
  return out;
}

/**
 * A run's spec beyond its arch: key, label, dash, overrides of the settings, its stop, its seed's index
 * and whether it keeps its norms' samples after training (the DyT claim's scatter).
 */
function readSpec(r, where, arch, seeds) {
  const key = r.key ?? arch;
  if (typeof key !== 'string' || !KEY.test(key)) fail(`${where}.key`, `the key of run ${where} is not a key`);
  const label = r.label ?? null;
  if (label !== null && (typeof label !== 'string' || label.length > 80))
    fail(`${where}.label`, `the label of run ${key} is not a short text`);
  const dash = r.dash ?? null;
  if (
    dash !== null &&
    !(Array.isArray(dash) && dash.length <= 8 && dash.every((x) => Number.isInteger(x) && x >= 0 && x <= 40))
  )
    fail(`${where}.dash`, `the dash of run ${key} is not a dash pattern`);
  const given = r.overrides ?? {};
  if (!plain(given)) fail(`${where}.overrides`, `the overrides of run ${key} are not settings`);
  const overrides = {};
  for (const [k, v] of Object.entries(given)) {
    if (k === 'arch' || !Object.hasOwn(TRAIN_TABLE, k))
      fail(`${where}.overrides.${k.slice(0, 40)}`, `run ${key} overrides an unknown setting "${k.slice(0, 40)}"`);
    overrides[k] = readSetting(k, v, `${where}.overrides.${k}`);
  }
  const trainedAt = r.trainedAt ?? null;
  if (trainedAt !== null && !(Number.isInteger(trainedAt) && trainedAt >= 1))
    fail(`${where}.trainedAt`, `the trained step of run ${key} is not a step`);
  const seedIndex = r.seedIndex ?? 0;
  if (!(Number.isInteger(seedIndex) && seedIndex >= 0 && seedIndex < seeds))
    fail(`${where}.seedIndex`, `the seed of run ${key} is not one of the settings' ${seeds}`);
  if (r.normSamples !== undefined && typeof r.normSamples !== 'boolean')
    fail(`${where}.normSamples`, `whether run ${key} keeps its norms' samples is not true or false`);
  const normSamples = r.normSamples === true;
  return {
    key,
    label,
    dash,
    overrides,
    stopWhenTrained: r.stopWhenTrained === true,
    trainedAt,
    seedIndex,
    normSamples,
  };
}

/** The runs: one per architecture of the settings, in their order, each with logs ascending and a blob length. */
function readRuns(runs, config) {
  if (!Array.isArray(runs)) fail('runs', 'the runs are missing');
  if (runs.length > MODEL_LIMITS.runs) fail('runs', `${runs.length} runs (at most ${MODEL_LIMITS.runs})`);
  const archs = config.arch;
  // The ordinary lab: one run per architecture, in the settings' order. A claim's
  // runs (each with its own key) may use one architecture twice: each must
  // be one of the settings', and each of those used.
  const ofClaim = runs.some((r) => plain(r) && r.key !== undefined && r.key !== r.arch);
  const seeds = seedsOf(config);
  if (!ofClaim && runs.length !== archs.length * seeds)
    fail(
      'runs',
      `${runs.length} runs for ${archs.length} architectures in the settings${seeds > 1 ? ` on ${seeds} seeds` : ''}`,
    );
  const out = runs.map((r, i) => {
    const where = `runs[${i}]`;
    if (!plain(r)) fail(where, `${where} is not a run`);
    // the ordinary lab's runs: each architecture on every seed, then the next
    const want = archs[Math.floor(i / seeds)];
    if (ofClaim ? !archs.includes(r.arch) : r.arch !== want)
      fail(
        `${where}.arch`,
        `run ${i + 1} is of "${String(r.arch).slice(0, 40)}", the settings say ${ofClaim ? archs.join(', ') : want}`,
      );
    if (!Number.isSafeInteger(r.bytes) || r.bytes < 0)
      fail(`${where}.bytes`, `the state length of ${r.arch} is not a length`);
    if (!Array.isArray(r.logs) || r.logs.length > MODEL_LIMITS.logs)
      fail(`${where}.logs`, `the logs of ${r.arch} are not a list`);
    const spec = readSpec(r, where, r.arch, seeds);
    const own = { ...config, ...spec.overrides };
    // a BatchNorm run logs one distance per BatchNorm layer (bn-layers.js), more than L + 1 of them
    const longest = Math.max(own.depth + 1, bnLayers({ ...own, arch: r.arch }).length);
    const logs = r.logs.map((l, j) => readLog(l, `${spec.key} log ${j + 1}`, own.depth, longest));
    logs.forEach((l, j) => {
      if ((j > 0 && l.step <= logs[j - 1].step) || l.step > own.steps)
        fail(`${where}.logs`, `the logs of ${spec.key} are out of order at step ${l.step}`);
    });
    return { arch: r.arch, ...spec, bytes: r.bytes, logs };
  });
  if (new Set(out.map((r) => `${r.key} ${r.seedIndex}`)).size !== out.length)
    fail('runs', 'two runs have the same key and seed');
  // every run key on every seed of the settings
  const keys = [...new Set(out.map((r) => r.key))];
  const short = keys.find((k) => out.filter((r) => r.key === k).length !== seeds);
  if (short !== undefined) fail('runs', `run ${short} is not on each of the settings' ${seeds} seeds`);
  const unused = archs.filter((a) => !out.some((r) => r.arch === a));
  if (unused.length) fail('runs', `no run of ${unused.join(', ')}, which the settings name`);
  return out;
}

/** The claim and its setting a header names: 'none' and 'quick' where it names none (a file from before them). */
function readClaim(header) {
  const claim = header.claim ?? 'none';
  if (claim !== 'none' && !CLAIM_IDS.includes(claim))
    fail('claim', `the claim "${String(claim).slice(0, 40)}" is none of the lab's (${CLAIM_IDS.join(', ')})`);
  const setting = header.setting ?? 'quick';
  if (!SETTINGS.includes(setting))
    fail('setting', `the setting "${String(setting).slice(0, 40)}" is not one of ${SETTINGS.join(', ')}`);
  return { claim, setting };
}

/** bytes: a Uint8Array or ArrayBuffer of a whole file. */
export function decodeModel(input) {
  const bytes = input instanceof Uint8Array ? input : input instanceof ArrayBuffer ? new Uint8Array(input) : null;
  if (!bytes) fail('file', 'not a file');
  if (bytes.length === 0) fail('file', 'the file is empty');
  if (tooLarge(bytes.length)) fail('file', tooLarge(bytes.length));
  const n = Math.min(bytes.length, MODEL_MAGIC.length);
  for (let i = 0; i < n; i++) if (bytes[i] !== MODEL_MAGIC[i]) fail('magic', foreign(bytes));
  if (bytes.length < MODEL_HEAD)
    fail('file', `truncated: ${bytes.length} bytes, a model file has at least ${MODEL_HEAD}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== MODEL_VERSION) fail('version', `version ${version}; this page reads version ${MODEL_VERSION}`);
  const H = view.getUint32(12, true);
  if (H > MODEL_LIMITS.header) fail('header', `a header of ${H} bytes (at most ${MODEL_LIMITS.header})`);
  if (bytes.length < MODEL_HEAD + H)
    fail('file', `truncated: ${bytes.length} bytes, the header alone ends at byte ${MODEL_HEAD + H}`);
  const head = bytes.subarray(MODEL_HEAD, MODEL_HEAD + H);
  if (fnv1a32(head) !== view.getUint32(16, true)) fail('header', 'the header is damaged (its checksum does not match)');
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(head));
  } catch {
    fail('header', 'the header is not JSON');
  }
  if (!plain(header) || header.format !== MODEL_FORMAT) fail('header', `the header is not of a ${MODEL_FORMAT} file`);
  const config = readConfig(header.config);
  const link = typeof header.link === 'string' ? header.link.slice(0, 16384) : '';
  const { claim, setting } = readClaim(header);
  const runs = readRuns(header.runs, config);
  const end = MODEL_HEAD + H + runs.reduce((s, r) => s + r.bytes, 0);
  if (bytes.length < end) fail('file', `truncated: ${bytes.length} bytes of ${end}`);
  if (bytes.length > end) fail('file', `${bytes.length - end} bytes after the end of the model`);
  let at = MODEL_HEAD + H;
  const magic = new TextEncoder().encode(STATE_MAGIC);
  return {
    config,
    link,
    claim,
    setting,
    runs: runs.map((r) => {
      const state = bytes.slice(at, at + r.bytes);
      at += r.bytes;
      if (state.length < magic.length || magic.some((b, i) => state[i] !== b))
        fail(`state.${r.arch}`, `the state of ${r.arch} is not a trainer state`);
      const run = { ...r, state };
      delete run.bytes;
      return run;
    }),
  };
}

/** A file name for a model: the lab's export name with .rnmodel. */
export const MODEL_EXT = '.rnmodel';
