// The public JS API of the engine.
//
//   import { loadResnorm } from './wasm/resnorm.js';
//   const rn = await loadResnorm();
//   const out = rn.simulate({ arch: ['pre_ln', 'post_ln'], depth: 96, gain: 1.2 });
//   out.results.pre_ln.grad_norm   // Float64Array, L+1 entries
//
// simulate() returns the same document as `resnorm simulate --json`, with
// Float64Arrays for the per-layer arrays (non-finite values stay NaN or
// Infinity; first_nonfinite says where they start, null if nowhere). A bad
// config throws a RangeError whose message names the field, the value and the
// allowed range, and whose `.field` is the field; the module stays usable.
//
// This file only converts: the checks and every number come from the C++ core.
import createResnormModule from './dist/resnorm_wasm.js';

// In the order of bindings.cpp's array(i, which). The last six exist for
// transformer blocks only (empty for MLP blocks, and then left out).
const ARRAYS = [
  'grad_norm',
  'stream_rms',
  'update_ratio',
  'w1_grad_norm',
  'w2_grad_norm',
  'attn_update_ratio',
  'mlp_update_ratio',
  'wq_grad_norm',
  'wk_grad_norm',
  'wv_grad_norm',
  'wo_grad_norm',
];
// In the order of bindings.cpp's pathArray(i, which).
const PATH_ARRAYS = ['count', 'measured', 'mean_norm', 'sd_norm', 'total'];

export class Resnorm {
  constructor(module) {
    this._module = module;
    this._sim = new module.Simulation();
    /** The core's field table: [{name, kind, min, max, allowed, default, help, choices}]. */
    this.fields = JSON.parse(module.fieldsJson());
    /** Defaults, as JS values. */
    this.defaults = Object.fromEntries(this.fields.map((f) => [f.name, parseDefault(f)]));
  }

  /**
   * @param {object} config fields as in the CLI (final_norm with an underscore);
   *   missing fields take their defaults; arch is an array or a comma-separated string.
   */
  simulate(config = {}) {
    const cfg = this.normalize(config);
    const error = this._sim.run(toWasm(cfg));
    throwIfError(error);
    const results = {};
    const n = this._sim.archCount();
    for (let i = 0; i < n; i++) {
      const r = {};
      // Copy out of the wasm heap now: the next call may grow memory and detach views.
      ARRAYS.forEach((key, which) => {
        const v = this._sim.array(i, which).slice();
        if (v.length || which < 5) r[key] = v;
      });
      const nf = this._sim.firstNonfinite(i);
      r.first_nonfinite = nf < 0 ? null : nf;
      results[this._sim.archName(i)] = r;
    }
    return { config: cfg, results };
  }

  /**
   * The unrolled view (Veit et al. 2016): the backward pass as a sum over the
   * 2^U paths through the U = L P units (P = 2 for transformer blocks), a path
   * of length k going through k branches and the other skips. For each length k:
   * `count` C(U, k), how many paths were run (`measured`: `samples` uniform
   * draws, or all of them where C(U, k) <= samples), their mean gradient norm
   * at h_0 (`mean_norm`, `sd_norm`), and `total` = count * mean_norm, the
   * magnitude all paths of that length carry; `full_norm` is ||d loss / d h_0||.
   *
   * @param {object} options the config fields of simulate(), plus `samples`
   *   (1..4096, default 32) and `path_seed` (uint32, default 0: which paths are drawn).
   * @returns {{config, samples, path_seed, results: Object<string, {units, full_norm,
   *   count, measured, mean_norm, sd_norm, total}>}} arrays are Float64Arrays of U+1.
   */
  pathGradients(options = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
    const { samples = 32, path_seed = 0, ...config } = options;
    const cfg = this.normalize(config);
    const num = (v) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
    const error = this._sim.paths(toWasm(cfg), num(samples), num(path_seed));
    throwIfError(error);
    const results = {};
    const n = this._sim.pathArchCount();
    for (let i = 0; i < n; i++) {
      const r = { units: this._sim.pathUnits(i), full_norm: this._sim.pathFullNorm(i) };
      PATH_ARRAYS.forEach((key, which) => {
        r[key] = this._sim.pathArray(i, which).slice();
      });
      results[this._sim.pathArchName(i)] = r;
    }
    return { config: cfg, samples: num(samples), path_seed: num(path_seed), results };
  }

  /** The config simulate() would run: defaults filled in, unknown fields refused. */
  normalize(config) {
    if (config === null || typeof config !== 'object') throw new TypeError('config must be an object');
    const cfg = { ...this.defaults };
    for (const [key, value] of Object.entries(config)) {
      if (!(key in this.defaults)) {
        const e = new RangeError(
          `${String(key).slice(0, 40)}: unknown field (allowed ${Object.keys(this.defaults).join(', ')})`,
        );
        e.field = key;
        throw e;
      }
      cfg[key] = value;
    }
    if (typeof cfg.arch === 'string') cfg.arch = cfg.arch.split(',');
    return cfg;
  }

  /**
   * One token through a norm: {y: Float64Array, mean, var, rstd}.
   * kind: 'layernorm' | 'rmsnorm'; x, gamma, beta: arrays of numbers (beta unused by RMSNorm).
   */
  normToken(kind, x, gamma = x.map(() => 1), beta = x.map(() => 0)) {
    return unwrap(this._module.normToken(String(kind), Array.from(x), Array.from(gamma), Array.from(beta)));
  }

  /**
   * BatchNorm (training-mode statistics) against LayerNorm on a padded batch.
   * x: B*T*d numbers (row-major), lengths: real tokens per sequence; countPadding:
   * whether BatchNorm's statistics include the padding positions.
   * Returns {batchnorm, layernorm, mean, var} (Float64Arrays).
   */
  batchVsLayerNorm({ x, batch, length, width, lengths, countPadding = false }) {
    return unwrap(
      this._module.batchVsLayerNorm(Array.from(x), batch, length, width, Array.from(lengths), !!countPadding),
    );
  }

  /** Frees the engine's memory; the object is unusable afterwards. */
  dispose() {
    this._sim.delete();
  }
}

// The engine's errors come back as values, "field\tmessage"; here, once, they
// become RangeErrors whose .field names the field.
function throwIfError(error) {
  if (!error) return;
  const [field, message] = error.split('\t');
  const e = new RangeError(message);
  e.field = field;
  throw e;
}

function unwrap(result) {
  throwIfError(result.error);
  return result;
}

function parseDefault(f) {
  if (f.kind === 'choice_list') return f.default.split(',');
  if (f.name === 'causal') return f.default === 'true';
  if (f.kind === 'choice') return f.default;
  return Number(f.default);
}

// Strings for enums, numbers for numbers: what bindings.cpp's JsConfig takes.
// A value of the wrong type is passed on as text or NaN, so the core's check
// names it; nothing is coerced silently into a valid value.
function toWasm(cfg) {
  const text = (v) => (typeof v === 'string' ? v : Array.isArray(v) ? v.map(String).join(',') : String(v));
  const num = (v) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
  return {
    arch: text(cfg.arch),
    depth: num(cfg.depth),
    width: num(cfg.width),
    tokens: num(cfg.tokens),
    expansion: num(cfg.expansion),
    gain: num(cfg.gain),
    seed: num(cfg.seed),
    heads: num(cfg.heads),
    activation: text(cfg.activation),
    init: text(cfg.init),
    final_norm: text(cfg.final_norm),
    block: text(cfg.block),
    causal: text(cfg.causal), // true/false (or their names)
  };
}

/**
 * Loads the WebAssembly engine. `options` go to the Emscripten module factory
 * (e.g. { wasmBinary } under Node, { locateFile } for a custom wasm URL).
 */
export async function loadResnorm(options = {}) {
  const module = await createResnormModule(options);
  return new Resnorm(module);
}
