// The public JS API of the engine.
//
//   import { loadResnorm } from './wasm/resnorm.js';
//   const rn = await loadResnorm();
//   const out = rn.simulate({ arch: ['pre_ln', 'post_ln'], depth: 96, gain: 1.2 });
//   out.results.pre_ln.grad_norm   // Float64Array, L+1 entries
//
// simulate() returns the same document as `resnorm simulate --json`, with
// Float64Arrays for the per-layer arrays (non-finite values stay NaN or
// Infinity; first_nonfinite says where they start, null if nowhere).
//
// Errors: every error is an EngineError (engine-error.js) naming the field in
// its message and in `.field`, with a `.code`: a value of the wrong type (an
// object for a number, a number for a list) is a TypeError ('type'), a value
// its field does not allow (out of range, a string that is not a decimal
// number, an unknown field) a RangeError ('range'), a config over the
// engine's memory or work budget a RangeError ('budget') whose .max is the
// largest value of the field that fits. After any error the module keeps
// computing the same numbers. config in the result is the config that ran, in
// canonical form (numbers as numbers, arch as an array, causal as a boolean).
//
// Training:
//
//   const tr = rn.trainer({ task: 'reverse', arch: 'pre_ln', depth: 4, steps: 200 });
//   const logs = tr.step(50);   // the logged updates among the next 50
//   tr.outcome(); tr.lesion(); const saved = tr.state(); tr.load(saved); tr.delete();
//
// rn.exportPytorch(config) returns the config's run as a PyTorch script, the
// text of `resnorm train --export-pytorch` (docs/pytorch.md);
// rn.exportPytorch([{config, keys, labels}, ...]) several configs' runs in one
// script, each run under its key and label.
//
// rn.trainer() trains one architecture with the C++ Trainer<float> the CLI's
// `resnorm train` runs, so the same config gives the CLI's numbers; its
// errors follow the same rules as simulate's (.field, and .max over a budget).
// The trainers of one engine share its memory budget: one that would not fit
// beside the others is refused naming depth, with .max the deepest that does.
//
// After rn.dispose(), or a failure the module cannot come back from (an abort),
// every call of the engine and of its trainers throws one Error whose .field
// is 'engine' ('engine' code); a second dispose() does nothing.
//
// This file only converts: the ranges, the checks and every number come from
// the C++ core (session.h), the result's keys too (bindings.cpp hands results
// over as objects keyed by the core's names).
import createResnormModule from './dist/resnorm_wasm.js';
import { EngineError, printable } from './engine-error.js';

export { EngineError };

export class Resnorm {
  constructor(module) {
    this._module = module;
    this._sim = new module.Simulation();
    // Why the engine can no longer be used (disposed, or failed past repair), or null.
    this._stopped = null;
    this._disposed = false;
    this._trainers = new Set();
    /** The core's field table: [{name, kind, min, max, allowed, default, help, choices}]. */
    this.fields = JSON.parse(module.fieldsJson());
    /** Defaults, as JS values. */
    this.defaults = defaultsOf(this.fields);
    this._specs = Object.fromEntries(this.fields.map((f) => [f.name, f]));
    this._limits = module.normLimits();
    /** The core's train field table (train_field_specs()), in the shape of `fields`. */
    this.trainFields = JSON.parse(module.trainFieldsJson());
    /** The train fields' defaults, as JS values. */
    this.trainDefaults = defaultsOf(this.trainFields);
    this._trainSpecs = Object.fromEntries(this.trainFields.map((f) => [f.name, f]));
    this._checker = new module.Trainer();
    this._maxState = module.maxStateBytes();
  }

  /**
   * @param {object} config fields as in the CLI (final_norm with an underscore);
   *   missing fields take their defaults; arch is an array or a comma-separated string.
   */
  simulate(config = {}) {
    this._usable();
    const cfg = this.normalize(config);
    throwIfError(this._guard(() => this._sim.run(cfg)));
    const results = {};
    for (let i = 0, n = this._sim.archCount(); i < n; i++) results[this._sim.archName(i)] = copied(this._sim.result(i));
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
    this._usable();
    if (!isRecord(options)) throw new EngineError('type', 'options', `must be an object, got ${describe(options)}`);
    const { samples: s = 32, path_seed: p = 0, ...config } = options;
    const cfg = this.normalize(config);
    const samples = numberField('samples', s);
    const path_seed = numberField('path_seed', p);
    throwIfError(this._guard(() => this._sim.paths(cfg, samples, path_seed)));
    const results = {};
    for (let i = 0, n = this._sim.pathArchCount(); i < n; i++)
      results[this._sim.pathArchName(i)] = copied(this._sim.pathResult(i));
    return { config: cfg, samples, path_seed, results };
  }

  /**
   * What simulate(config) checks, without computing: the canonical config, or the
   * error simulate would throw (ranges and the engine's budgets).
   */
  check(config = {}) {
    this._usable();
    const cfg = this.normalize(config);
    throwIfError(this._guard(() => this._sim.check(cfg)));
    return cfg;
  }

  /** The config simulate() would run: defaults filled in, each value checked for its type, unknown fields refused. */
  normalize(config) {
    this._usable();
    return normalizeWith(this._specs, this.defaults, config);
  }

  /**
   * What rn.trainer() and `resnorm train` check, without training: the
   * config's fields (by their train-table names, missing ones at their
   * defaults; `arch` a list, every arch of it counted in the budgets as the
   * CLI's side-by-side run does) and the memory and work budgets. Returns the
   * canonical config; throws like check().
   */
  checkTrain(config = {}) {
    this._usable();
    const cfg = normalizeWith(this._trainSpecs, this.trainDefaults, config);
    const reset = () => {
      this._checker = new this._module.Trainer();
    };
    return this._guard(
      () => {
        throwIfError(this._checker.check(cfg));
        return JSON.parse(this._checker.configJson());
      },
      { reset },
    );
  }

  /**
   * A trainer of one architecture (`arch`: one architecture's name) on the config's
   * task: see Trainer below. Throws like checkTrain() for a bad config, and a
   * RangeError naming `arch` when it lists more than one.
   */
  trainer(config = {}) {
    this._usable();
    const cfg = normalizeWith(this._trainSpecs, this.trainDefaults, config);
    const handle = this._guard(() => new this._module.Trainer());
    try {
      this._guard(() => throwIfError(handle.start(cfg)));
    } catch (e) {
      handle.delete();
      throw e;
    }
    return new Trainer(this, handle);
  }

  /**
   * The config's run as one self-contained PyTorch script (docs/pytorch.md):
   * the text `resnorm train --export-pytorch FILE` writes for the same config,
   * byte for byte. Every arch of the config is configured afresh, so the
   * script starts from the initial weights (step 0 in PyTorch is the
   * engine's step 0) whatever the engine's trainers have done. Throws like
   * checkTrain() for a bad config, and a RangeError naming `arch` (an
   * architecture the script does not implement) or `steps` (a file over the
   * exporter's size limit: fewer steps or a smaller batch).
   *
   * Given a list of groups {config, keys, labels} instead (keys and labels:
   * one string per arch of the group's config, the runs' names), one script
   * holds every group's runs: it trains them in turn and, with more than one
   * group, prints each run's key on every line (a lab claim whose runs differ
   * in more than the architecture).
   *
   * @param {object|Array<{config: object, keys?: string[], labels?: string[]}>} config
   *   the train fields of rn.trainer(), `arch` a list; or the groups
   * @returns {string} the script's text
   */
  exportPytorch(config = {}) {
    this._usable();
    const given = Array.isArray(config) ? config : [{ config }];
    if (!given.length) throw new EngineError('type', 'config', 'must name at least one group of runs');
    const groups = given.map((g, i) => {
      if (!isRecord(g)) throw new EngineError('type', 'config', `group ${i}: must be {config, keys, labels}`);
      const cfg = normalizeWith(this._trainSpecs, this.trainDefaults, g.config ?? {});
      const names = (k) => {
        const v = g[k] ?? [];
        if (!Array.isArray(v) || v.some((x) => typeof x !== 'string') || (v.length && v.length !== cfg.arch.length))
          throw new EngineError('type', 'config', `group ${i}: ${k} must be one string per arch of its config`);
        return v.length ? v : cfg.arch.map(String);
      };
      return { config: cfg, keys: names('keys'), labels: names('labels') };
    });
    return unwrap(
      this._guard(() => this._module.exportPytorch(groups), { reset: () => {}, after: 'the engine is as it was' }),
    ).script;
  }

  /**
   * One token through a norm: {y: Float64Array, mean, var, rstd}.
   * kind: 'layernorm' | 'rmsnorm'; x, gamma, beta: arrays of numbers (beta unused by RMSNorm).
   */
  normToken(kind, x, gamma, beta) {
    this._usable();
    if (typeof kind !== 'string')
      throw new EngineError('type', 'kind', `must be 'layernorm' or 'rmsnorm', got ${describe(kind)}`);
    const xs = numbers('x', x, this._limits.tokenFeatures);
    const g = gamma === undefined ? xs.map(() => 1) : numbers('gamma', gamma, this._limits.tokenFeatures);
    const b = beta === undefined ? xs.map(() => 0) : numbers('beta', beta, this._limits.tokenFeatures);
    return unwrap(this._guard(() => this._module.normToken(kind, xs, g, b)));
  }

  /**
   * BatchNorm (training-mode statistics) against LayerNorm on a padded batch.
   * x: B*T*d numbers (row-major), lengths: real tokens per sequence; countPadding:
   * whether BatchNorm's statistics include the padding positions.
   * Returns {batchnorm, layernorm, mean, var} (Float64Arrays).
   */
  batchVsLayerNorm(options) {
    this._usable();
    if (!isRecord(options)) throw new EngineError('type', 'options', `must be an object, got ${describe(options)}`);
    const { x, batch, length, width, lengths, countPadding = false } = options;
    const { batch: maxB, length: maxT, width: maxD } = this._limits;
    const B = numberField('batch', batch);
    const T = numberField('length', length);
    const d = numberField('width', width);
    const xs = numbers('x', x, maxB * maxT * maxD);
    const lens = numbers('lengths', lengths, maxB);
    if (typeof countPadding !== 'boolean') {
      throw new EngineError('type', 'countPadding', `must be true or false, got ${describe(countPadding)}`);
    }
    return unwrap(this._guard(() => this._module.batchVsLayerNorm(xs, B, T, d, lens, countPadding)));
  }

  /**
   * LayerNorm against RMSNorm, timed on this machine: the engine's float
   * kernels, forward and backward, on `tokens` tokens of `width` features,
   * interleaved sample by sample over `samples` rounds (the core's
   * time_norms(), norm_timing.h). Returns {width, tokens, samples, inner,
   * ln_forward, ln_backward, rms_forward, rms_backward: {median_ms, p10_ms,
   * p90_ms} (ms per call), forward_ratio, backward_ratio, total_ratio} (RMSNorm's
   * median over LayerNorm's). A measurement: it differs from run to run.
   *
   * @param {{width: number, tokens: number, samples?: number}} options samples defaults to 15
   */
  timeNorms(options) {
    this._usable();
    if (!isRecord(options)) throw new EngineError('type', 'options', `must be an object, got ${describe(options)}`);
    const { width, tokens, samples = 15 } = options;
    const w = numberField('width', width);
    const t = numberField('tokens', tokens);
    const s = numberField('samples', samples);
    return unwrap(this._guard(() => this._module.timeNorms(w, t, s)));
  }

  /**
   * The engine's memory: `heap`, the bytes the module's memory has grown to
   * (WebAssembly memory never shrinks: a page gives it back by ending the
   * worker), `trainers`, what its trainers hold of `budget`, the memory
   * budget of one engine.
   */
  memory() {
    this._usable();
    const held = this._module.memoryHeld();
    return { heap: this._module.HEAP8.buffer.byteLength, trainers: held.trainers, budget: held.budget };
  }

  /** False once the engine was disposed or failed past repair: then every call throws (.field 'engine'). */
  get usable() {
    return this._stopped === null;
  }

  // Throws the engine's one error once it cannot be used.
  _usable() {
    if (this._stopped !== null) throw new EngineError('engine', 'engine', this._stopped);
  }

  // Runs one call into the module. A C++ exception or an abort must never reach
  // the caller as a bare number: the limits refuse up front every config that
  // would not fit, so this is the last line. A C++ exception (a number) leaves
  // the module usable: the stack pointer is restored, reset() replaces the
  // object that failed (the engine's, by default), and an Error naming `field`
  // is thrown. An abort or a trap (a WebAssembly.RuntimeError) leaves the
  // module's memory in an unknown state: the engine stops, and this and every
  // later call throws an Error naming 'engine' (a page replaces its worker).
  _guard(
    fn,
    { field = 'config', what = 'this config', reset = () => this._resetEngine(), after = 'it was reset' } = {},
  ) {
    this._usable();
    const sp = this._module.stackSave();
    try {
      return fn();
    } catch (e) {
      if (e instanceof Error && !(e instanceof WebAssembly.RuntimeError)) throw e;
      const cause = e instanceof Error ? e.message : `C++ exception ${String(e)}`;
      if (e instanceof WebAssembly.RuntimeError) this._fail(cause);
      this._module.stackRestore(sp);
      try {
        reset();
      } catch {
        this._fail(cause);
      }
      throw new EngineError('engine', field, `the engine failed on ${what} (${cause}); ${after}`);
    }
  }

  // Stops the engine after a failure it cannot come back from, and throws why.
  _fail(cause) {
    this._stopped ??= `the engine stopped after a failure (${printable(cause)}); load a new one`;
    for (const t of this._trainers) t._drop();
    this._usable();
  }

  _resetEngine() {
    this._sim = new this._module.Simulation();
  }

  /**
   * Frees the engine's memory and every trainer it made; afterwards every call
   * of the engine and of its trainers throws an Error whose .field is 'engine'.
   * A second dispose() does nothing.
   */
  dispose() {
    if (this._disposed) return;
    this._disposed = true;
    const failed = this._stopped !== null;
    this._stopped = 'this engine was disposed (dispose()); load a new one';
    const trainers = [...this._trainers];
    for (const t of trainers) t._drop();
    if (failed) return; // the module failed: its objects are not touched again
    for (const t of trainers) t._t?.delete();
    this._sim.delete();
    this._checker.delete();
  }
}

/**
 * One architecture in training (bindings.cpp's Trainer over the core's
 * SessionTrainer). Made by rn.trainer(config).
 *   config       the canonical config that runs (arch: the one name)
 *   task         {chance, optimal}: the task's chance and optimal losses (null if unknown)
 *   stepsDone    updates done; stopped: true after the first non-finite step
 *   step(n)      up to n more updates (not past config.steps); the logged ones
 *   lesion()     the held-out loss with each block skipped
 *   dwaWeights() dwa only: DenseFormer's averaging weights now (null for other architectures)
 *   attnResWeights() attn_res only: Attention Residuals' read weights over the held-out set (null otherwise)
 *   gates()      rezero, layerscale: the learnable gates now and at init (null for other architectures)
 *   normSamples() each norm's input and output elements on held-out batch 0 now (null without norms)
 *   outcome()    'trained' | 'diverged' | 'collapsed' | 'slow', from the last logged step
 *   state()      the saved state (a Uint8Array copy); load(bytes) restores one
 *   delete()     frees it; any later call throws
 */
export class Trainer {
  constructor(rn, handle) {
    this._rn = rn;
    this._t = handle;
    this._gone = null;
    rn._trainers.add(this);
    this._read();
  }

  get stepsDone() {
    return this._call(() => this._t.stepsDone());
  }

  get stopped() {
    return this._call(() => this._t.stopped());
  }

  /**
   * Up to n more updates (n a whole number, 0..the steps field's maximum; not
   * past config.steps, none once stopped). Returns the logged ones (every
   * log_every-th update and the last): {step, lr, train_loss, heldout_loss,
   * heldout_accuracy, grad_norm_global, output_change, top_cosine,
   * first_nonfinite (the step, or null), grad_norm, stream_rms (Float64Array
   * L+1), w_grad_norm, update_ratio, contribution (Float64Array L)}. Values
   * the core has as non-finite stay NaN (heldout_accuracy of the teacher
   * task; the losses of a step that was not finite, whose arrays may be empty).
   */
  step(n = 1) {
    const count = numberField('n', n);
    return this._call(() => {
      throwIfError(this._t.step(count));
      const logs = [];
      for (let i = 0, k = this._t.logCount(); i < k; i++) logs.push(copied(this._t.log(i)));
      this._t.clearLogs();
      return logs;
    });
  }

  /** {base, loss, increase, relative, contribution, contribution_init} (Float64Arrays of L). */
  lesion() {
    return this._call(() => {
      throwIfError(this._t.lesion());
      return copied(this._t.lesionResult());
    });
  }

  /**
   * DenseFormer's learned averaging weights now, for the dwa architecture: L rows,
   * row l - 1 a Float64Array of l + 1 weights w_{l,0..l}, how much the stream
   * after block l takes of h_0 (j = 0) and of block j's output (j = 1..l).
   * At init row l - 1 is 0 but for a 1 at j = l. null for every other architecture.
   */
  dwaWeights() {
    return this._call(() => {
      const m = this._t.dwaWeights().slice();
      if (m.length === 0) return null;
      const L = this.config.depth;
      return Array.from({ length: L }, (_, r) => m.slice(r * (L + 1), r * (L + 1) + r + 2));
    });
  }

  /**
   * Attention Residuals' read weights now, for the attn_res architecture,
   * averaged over every held-out token: K rows (K units: L for MLP blocks,
   * 2L for transformer blocks, attention then MLP), row k - 1 a Float64Array
   * of k + 1 weights a_{k,0..k}, how much the stream unit k + 1 reads (the
   * final norm's for k = K) takes of h_0 (i = 0) and of unit i's output
   * (i = 1..k); each row sums to 1. At init every entry of row k - 1 is
   * 1 / (k + 1). Block AttnRes (attn_res_blocks N between 1 and K - 1): row
   * k - 1 holds B(k) + 1 weights, B(k) = floor((k - 1) N / K) + 1 unit k's
   * group: h_0 (j = 0), the sums of groups 1..B(k) - 1, and the sum of
   * group B(k)'s units up to k (j = B(k)), uniform at init. null for every
   * other architecture.
   */
  attnResWeights() {
    return this._call(() => {
      const m = this._t.attnResWeights().slice();
      if (m.length === 0) return null;
      const K = this.config.depth * (this.config.block === 'transformer' ? 2 : 1);
      const set = this.config.attn_res_blocks ?? 0;
      const N = set > 0 && set < K ? set : K;
      return Array.from({ length: K }, (_, r) => m.slice(r * (N + 1), r * (N + 1) + Math.floor((r * N) / K) + 2));
    });
  }

  /**
   * The learnable gates now, for rezero (one scalar alpha per unit) and
   * layerscale (lambda, one per channel): {width (1 or d), units (L for MLP
   * blocks, 2L for transformer blocks: attention then MLP, block by block),
   * values (units Float64Arrays of width), init (Float64Array of units: every
   * entry's value at init), magnitude (Float64Array of units: mean |entry|
   * now)}. null for every other architecture.
   */
  gates() {
    return this._call(() => {
      const g = this._t.gates();
      if (g === null) return null;
      const { width, values: flat, init, magnitude } = copied(g);
      const values = Array.from(init, (_, k) => flat.slice(k * width, (k + 1) * width));
      return { width, units: init.length, values, init, magnitude };
    });
  }

  /**
   * Each norm of the stack on held-out batch 0 now, one forward pass in eval mode: the norms on a
   * unit's branch input (Pre-LN's LayerNorms, DyT's tanh layers), unit by unit, then the final
   * norm. {units (unit k of each norm, 1-based; L P + 1 for the final norm), rows, width, input,
   * output (a Float64Array of rows x width per norm: the elements the norm reads and writes, its
   * gain and bias applied)}. null for a stack without such norms.
   */
  normSamples() {
    return this._call(() => {
      const s = this._t.normSamples();
      if (s === null) return null;
      const { input, output } = copied({ input: s.input, output: s.output });
      const n = s.rows * s.width;
      const units = Array.from(s.units);
      return {
        units,
        rows: s.rows,
        width: s.width,
        input: units.map((_, i) => input.slice(i * n, (i + 1) * n)),
        output: units.map((_, i) => output.slice(i * n, (i + 1) * n)),
      };
    });
  }

  /** The core's outcome() of the last logged step; a RangeError before any step was logged. */
  outcome() {
    const name = this._call(() => this._t.outcome());
    if (!name) {
      throw new EngineError(
        'range',
        'outcome',
        'no step has been logged since this trainer was made or loaded (step() first)',
      );
    }
    return name;
  }

  /**
   * The saved state: the core's state() blob, copied straight out of the
   * trainer's memory into a new Uint8Array (the module holds no copy of it).
   * A save that fails leaves the trainer as it was.
   */
  state() {
    const size = this._call(() => this._t.stateSize(), { keep: true });
    let out;
    try {
      out = new Uint8Array(size);
    } catch (e) {
      throw new EngineError('range', 'state', `${size} bytes could not be allocated for the state (${e.message})`);
    }
    let at = 0;
    this._call(
      () =>
        this._t.writeState((view) => {
          out.set(view, at);
          at += view.length;
        }),
      { keep: true },
    );
    if (at !== size) throw new EngineError('engine', 'state', `the engine wrote ${at} of the state's ${size} bytes`);
    return out;
  }

  /**
   * Restores a saved state (a Uint8Array or ArrayBuffer from state(), of any
   * config and architecture: config and task are read again). A damaged,
   * truncated or foreign one throws a RangeError naming `state` and what is
   * wrong; the trainer is then as it was. A state of this trainer's config is
   * read straight into it; one of another config needs a trainer beside this
   * one, within the engine's memory budget.
   */
  load(bytes) {
    const blob = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
    if (!(blob instanceof Uint8Array))
      throw new EngineError('type', 'state', `expected a Uint8Array from state(), got ${describe(bytes)}`);
    if (blob.length > this._rn._maxState) {
      throw new EngineError(
        'range',
        'state',
        `${blob.length} bytes is larger than any saved state (allowed at most ${this._rn._maxState})`,
      );
    }
    const read = (offset, view) => view.set(blob.subarray(offset, offset + view.length));
    this._call(() => throwIfError(this._t.load(read, blob.length)));
    this._read();
  }

  /** Frees the trainer; any later call throws. After the engine's dispose() it does nothing. */
  delete() {
    if (!this._t) return;
    this._t.delete();
    this._drop();
    this._gone = new EngineError('engine', 'trainer', 'this trainer was deleted');
  }

  // Forgets the wasm object (freed, or lost with the engine).
  _drop() {
    this._t = null;
    this._rn._trainers.delete(this);
  }

  _read() {
    const { config, task } = this._call(() => {
      const c = JSON.parse(this._t.configJson());
      c.arch = this._t.archName();
      const optimal = this._t.optimal();
      return { config: c, task: { chance: this._t.chance(), optimal: Number.isFinite(optimal) ? optimal : null } };
    });
    this.config = config;
    this.task = task;
  }

  // A call into this trainer's wasm object. Should it fail inside the module,
  // the object is freed and this trainer answers every later call with that;
  // with `keep` (a call that only reads the trainer, as state() does) the
  // trainer stays as it was.
  _call(fn, { keep = false } = {}) {
    this._rn._usable();
    if (!this._t) throw this._gone;
    if (keep) {
      const options = { field: 'trainer', what: "this trainer's state", after: 'the trainer is as it was' };
      return this._rn._guard(fn, { ...options, reset: () => {} });
    }
    const reset = () => {
      const t = this._t;
      this._drop();
      this._gone = new EngineError(
        'engine',
        'trainer',
        'this trainer failed in the engine and was freed (a new one can load a saved state)',
      );
      try {
        t.delete();
      } catch {
        // the module's own failure; the object is gone with it
      }
      new this._rn._module.Trainer().delete();
    };
    return this._rn._guard(fn, { field: 'trainer', what: 'this trainer', reset });
  }
}

/** A field table's defaults as JS values. */
function defaultsOf(fields) {
  return Object.fromEntries(fields.map((f) => [f.name, parseDefault(f)]));
}

/** A config in canonical form over a field table: defaults filled in, each value checked for its type, unknown fields refused. */
function normalizeWith(specs, defaults, config) {
  if (!isRecord(config))
    throw new EngineError('type', 'config', `must be an object of fields, got ${describe(config)}`);
  const cfg = { ...defaults, arch: [...defaults.arch] };
  for (const key of Object.keys(config)) {
    const spec = Object.hasOwn(specs, key) ? specs[key] : null;
    if (!spec) {
      throw new EngineError(
        'range',
        key,
        `${printable(key)}: unknown field (allowed ${Object.keys(specs).join(', ')})`,
      );
    }
    cfg[key] = canonical(spec, config[key]);
  }
  return cfg;
}

// The engine's refusals come back as values, null or {field, message, code[,
// max]}; here, once, they are thrown.
function throwIfError(error) {
  if (error) throw new EngineError(error.code, error.field, error.message, error.max);
}

function unwrap(result) {
  throwIfError(result.error);
  return result;
}

// A result object from the module with each typed-array view copied out of
// the wasm heap now: the next call may grow memory and detach views.
function copied(out) {
  for (const [key, v] of Object.entries(out)) if (ArrayBuffer.isView(v)) out[key] = v.slice();
  return out;
}

const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the text '${printable(v)}'`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`}`;
}

// The core's spelling of a number (config.h, parse_decimal).
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A number field: a number (NaN and Infinity go on to the core's range check) or a decimal string,
 * read as the core reads one (config.cpp parse_field): a text naming a number other than zero that
 * rounds to zero or to a subnormal ('1e-400') is refused as too small to represent, and '-0' is 0.
 */
function numberField(field, v, allowed = '') {
  const range = allowed ? ` (allowed ${allowed})` : '';
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (!DECIMAL.test(v))
      throw new EngineError('range', field, `'${printable(v)}' is not a finite number written in decimal${range}`);
    const n = Number(v);
    const nonzero = /[1-9]/.test(v.split(/[eE]/)[0]);
    if (nonzero && Math.abs(n) < 2 ** -1022)
      throw new EngineError('range', field, `'${printable(v)}' is too small to represent${range}`);
    return n === 0 ? 0 : n;
  }
  throw new EngineError('type', field, `expected a number, got ${describe(v)}${range}`);
}

/** A list of numbers (an Array or a typed array) of at most `max` entries, as a plain Array. */
function numbers(field, v, max) {
  if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView))) {
    throw new EngineError('type', field, `expected an array of numbers, got ${describe(v)}`);
  }
  if (v.length > max) throw new EngineError('range', field, `${v.length} entries is too many (allowed at most ${max})`);
  const out = Array.from(v);
  const bad = out.findIndex((n) => typeof n !== 'number');
  if (bad >= 0) throw new EngineError('type', field, `entry ${bad} is ${describe(out[bad])}, not a number`);
  return out;
}

/** A config field's value in canonical form, or a TypeError/RangeError naming it. */
function canonical(spec, v) {
  const field = spec.name;
  switch (spec.kind) {
    case 'choice':
      if (field === 'causal' && typeof v === 'boolean') return v;
      if (typeof v !== 'string')
        throw new EngineError('type', field, `expected one of ${spec.allowed}, got ${describe(v)}`);
      return field === 'causal' && (v === 'true' || v === 'false') ? v === 'true' : v;
    case 'choice_list': {
      const list = typeof v === 'string' ? v.split(',') : v;
      if (!Array.isArray(list)) {
        throw new EngineError('type', field, `expected an array or a comma-separated list, got ${describe(v)}`);
      }
      if (list.length > spec.choices.length) {
        throw new EngineError('range', field, `${list.length} entries (allowed 1..${spec.choices.length}, each once)`);
      }
      const bad = list.findIndex((a) => typeof a !== 'string');
      if (bad >= 0) throw new EngineError('type', field, `entry ${bad} is ${describe(list[bad])}, not a name`);
      const twice = list.find((a, i) => list.indexOf(a) !== i);
      if (twice !== undefined)
        throw new EngineError('range', field, `'${printable(twice)}' is listed twice (each once)`);
      return [...list];
    }
    default:
      return numberField(field, v, spec.allowed);
  }
}

function parseDefault(f) {
  if (f.kind === 'choice_list') return f.default.split(',');
  if (f.name === 'causal') return f.default === 'true';
  if (f.kind === 'choice') return f.default;
  return Number(f.default);
}

/**
 * Loads the WebAssembly engine. `options` go to the Emscripten module factory
 * (e.g. { wasmBinary } under Node, { locateFile } for a custom wasm URL).
 */
export async function loadResnorm(options = {}) {
  const module = await createResnormModule(options);
  return new Resnorm(module);
}
