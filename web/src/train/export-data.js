// The training lab's logged numbers as files: CSV (the settings in `#`
// header lines, one row per run and logged step, one column per number and
// per layer or block of each array) and JSON (the settings and every run's
// logs as the engine gave them, and after training what each learned beyond
// its weights: DenseFormer's averaging weights and the ReZero and LayerScale
// gates, null for the other presets). BatchNorm runs' batch-vs-running
// distances are one column per BatchNorm layer, each run's layers named in a
// header line (bn-layers.js); runs without BatchNorm leave them empty. Non-finite values are written as the
// explorer's exports write them: NaN, Infinity, -Infinity in the CSV, null
// in the JSON. Runs on several seeds (the settings' `seeds`) are every seed's run, each
// with its seed (a `seed` column and field). Pure functions of the session's runs; no DOM.
//
//   toLabCsv({ config, runs, link, claim }); toLabJson({ config, runs, link, claim }); labFileBase(config)
//
// claim: {id, setting} of a lab claim's runs (the claim and the setting they were run at, `# claim`
// and `# setting` lines and fields), or null.
//
// runs: [{arch, config, task, logs, stepsDone, stopped, firstNonfinite, dwaWeights, attnResWeights, gates, seed}]
// (session.js's runs, every seed's: its snapshot's `all`; `config` the run's canonical config, its depth L).
import { configText, csvCell, jsonNumber, numberText } from '../shared/export-text.js';
import { bnCount, bnRowLabels } from './bn-layers.js';

export const LAB_FORMAT = 'resnorm-train-export';
export const LAB_VERSION = 1;

const isArray = (v) => v != null && typeof v === 'object' && typeof v.length === 'number';

/** A run's seed: the session's, else its config's. */
const seedOf = (r) => r.seed ?? r.config?.seed ?? null;

/** Whether the runs are of more than one seed: then every row and run says its seed. */
const severalSeeds = (runs) => new Set(runs.map(seedOf)).size > 1;

/** The logged keys of the runs, in the engine's order: {scalars, arrays}. */
export function logKeys(runs) {
  const scalars = [];
  const arrays = [];
  for (const r of runs)
    for (const l of r.logs.slice(0, 1))
      for (const [k, v] of Object.entries(l)) {
        const to = isArray(v) ? arrays : scalars;
        if (!to.includes(k)) to.push(k);
      }
  return { scalars, arrays };
}

const depthOf = (r, config) => r.config?.depth ?? config.depth;

/** The arrays with one entry per BatchNorm layer (bn-layers.js's order), not per layer or block. */
const BN_KEYS = new Set(['bn_mean_distance', 'bn_var_distance']);

/**
 * What run r's `key` arrays are indexed by: 'bn' (per BatchNorm layer), 'layer' (L + 1 entries
 * at most) or 'block' (L).
 */
function kindOf(key, r, config) {
  if (BN_KEYS.has(key)) return 'bn';
  const n = Math.max(0, ...r.logs.map((l) => (isArray(l[key]) ? l[key].length : 0)));
  return n === depthOf(r, config) + 1 ? 'layer' : 'block';
}

const COLUMN = {
  layer: (key, i) => `${key}.layer${i}`,
  block: (key, i) => `${key}.block${i + 1}`,
  bn: (key, i) => `${key}.bn${i + 1}`,
};

/**
 * The CSV columns of an array key over every run: per layer (L + 1 entries,
 * `grad_norm.layer0` .. `.layerL`), per block (L entries, `update_ratio.block1`
 * .. `.blockL`) or per BatchNorm layer (`bn_mean_distance.bn1` .. `.bnN`);
 * each {name, kind, i}, i the index into a run's array of that kind.
 */
function arrayColumns(key, runs, config) {
  const cols = new Map();
  for (const r of runs) {
    const kind = kindOf(key, r, config);
    const n = Math.max(0, ...r.logs.map((l) => (isArray(l[key]) ? l[key].length : 0)));
    for (let i = 0; i < n; i++) {
      const name = COLUMN[kind](key, i);
      if (!cols.has(name)) cols.set(name, { name, kind, i });
    }
  }
  return [...cols.values()];
}

/** One logged value as CSV text: an empty cell for null or absent. */
const cellText = (v) =>
  v === null || v === undefined ? '' : typeof v === 'number' ? numberText(v) : csvCell(String(v));

export function toLabCsv({ config, runs, link = '', claim = null }) {
  const lines = [
    '# resnorm training lab: every logged step of every run',
    '# arrays: <name>.layer<l> is at the block boundary h_l (0..L), <name>.block<l> is block l (1..L),',
    '# <name>.bn<k> is the run\u2019s k-th BatchNorm layer (named per run in the bn_layers lines)',
    '# non-finite values are written NaN, Infinity or -Infinity; an empty cell has no value',
  ];
  if (link) lines.push(`# link,${csvCell(link)}`);
  if (claim) lines.push(`# claim,${csvCell(claim.id)}`, `# setting,${csvCell(claim.setting)}`);
  for (const [k, v] of Object.entries(config)) lines.push(`# ${k},${csvCell(configText(v))}`);
  const seeded = severalSeeds(runs);
  for (const r of runs) {
    const t = r.task ?? {};
    lines.push(
      `# run,${csvCell(r.key ?? r.arch)},${seeded ? `seed,${seedOf(r)},` : ''}steps_done,${r.stepsDone ?? ''},first_nonfinite,${r.firstNonfinite ?? ''},chance,${cellText(t.chance)},optimal,${cellText(t.optimal)}`,
    );
  }
  for (const r of runs) {
    const n = bnCount(r);
    if (n)
      lines.push(
        `# bn_layers,${csvCell(r.key ?? r.arch)},${bnRowLabels(r.config, n)
          .map((b) => csvCell(b.long))
          .join(',')}`,
      );
  }
  const { scalars, arrays } = logKeys(runs);
  const cols = arrays.map((k) => [k, arrayColumns(k, runs, config)]);
  // runs of one architecture with settings of their own (a claim's: LayerNorm and BatchNorm both
  // Pre-LN) are told apart by a first column of their keys
  const keyed = runs.some((r) => r.key !== undefined && r.key !== r.arch);
  const lead = [...(keyed ? ['run', 'arch'] : ['arch']), ...(seeded ? ['seed'] : [])];
  lines.push([...lead, ...scalars, ...cols.flatMap(([, c]) => c.map((col) => col.name))].join(','));
  for (const r of runs) {
    const kinds = cols.map(([k]) => kindOf(k, r, config));
    for (const l of r.logs) {
      const row = [
        ...(keyed ? [csvCell(r.key ?? r.arch)] : []),
        r.arch,
        ...(seeded ? [String(seedOf(r))] : []),
        ...scalars.map((k) => cellText(l[k])),
      ];
      cols.forEach(([k, c], j) => {
        const arr = isArray(l[k]) ? l[k] : [];
        for (const col of c) row.push(col.kind === kinds[j] && col.i < arr.length ? numberText(arr[col.i]) : '');
      });
      lines.push(row.join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A log as JSON: arrays as plain arrays, non-finite numbers null. */
function logJson(l) {
  const o = {};
  for (const [k, v] of Object.entries(l))
    o[k] = isArray(v) ? Array.from(v, jsonNumber) : typeof v === 'number' ? jsonNumber(v) : v;
  return o;
}

const plainArray = (v) => Array.from(v, jsonNumber);

/** A run's gates as JSON: {width, units, init, magnitude (per unit), values (per unit, width each)}, or null. */
function gatesJson(g) {
  if (!g) return null;
  return {
    width: g.width,
    units: g.units,
    init: plainArray(g.init),
    magnitude: plainArray(g.magnitude),
    values: g.values.map(plainArray),
  };
}

/**
 * JSON: {format, version, link, claim and setting (a claim's runs), config, runs: [{arch, key and label (a run
 * with a key of its own: a claim's), seed (runs of several seeds), config, task,
 * steps_done, stopped, first_nonfinite, logs, dwa_weights (L rows of
 * w_{l,0..l}, or null), gates (gatesJson, or null)}]}; the last two are
 * null too before every run has finished.
 */
export function toLabJson({ config, runs, link = '', claim = null }) {
  const seeded = severalSeeds(runs);
  const out = {
    format: LAB_FORMAT,
    version: LAB_VERSION,
    link,
    ...(claim ? { claim: claim.id, setting: claim.setting } : {}),
    config,
    runs: runs.map((r) => ({
      arch: r.arch,
      ...(r.key !== undefined && r.key !== r.arch ? { key: r.key, label: r.label ?? null } : {}),
      ...(seeded ? { seed: seedOf(r) } : {}),
      config: r.config ?? null,
      task: r.task ? { chance: jsonNumber(r.task.chance), optimal: r.task.optimal ?? null } : null,
      steps_done: r.stepsDone ?? 0,
      stopped: Boolean(r.stopped),
      first_nonfinite: r.firstNonfinite ?? null,
      logs: r.logs.map(logJson),
      dwa_weights: r.dwaWeights ? r.dwaWeights.map(plainArray) : null,
      // Attention Residuals' read weights (row k - 1: unit k's a_{k,0..k}), only a run of attn_res has them
      ...(r.attnResWeights ? { attn_res_weights: r.attnResWeights.map(plainArray) } : {}),
      gates: gatesJson(r.gates),
    })),
  };
  return `${JSON.stringify(out, null, 1)}\n`;
}

/** A file name that says what is in it: resnorm-train-copy-d4-s0-step200 */
export function labFileBase(config, runs = []) {
  const step = Math.max(0, ...runs.map((r) => r.logs.at(-1)?.step ?? 0));
  return `resnorm-train-${config.task}-d${config.depth}-s${config.seed}-step${step}`;
}
