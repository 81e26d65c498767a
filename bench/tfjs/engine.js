// bench/tfjs/engine.js: the resnorm model (docs/model.md, "The simulation") in TensorFlow.js.
//
// A benchmark contender: the same forward pass, written with tf ops, and every
// gradient from TF.js's autodiff (tf.grads), the way a TF.js user would get them:
//  - weights: the base matrices B1 (d x m), B2 (m x d) of bench/js/engine.js's
//    WeightBank (splitmix64 + polar method, as core), float32 tensors created once
//    per (seed, d, m, init) and grown with depth; W1 = s1 B1, W2 = s2 B2 with the
//    scale applied after the product, as core does (p = s1 (x B1));
//  - d loss / d h_l at every layer: autodiff only differentiates w.r.t. its inputs,
//    so each block's output gets a zero "probe" added, h_l = block_l(h_{l-1}) + z_l,
//    and d loss / d z_l = d loss / d h_l;
//  - ||d loss / d W||_F: tf.grads w.r.t. B1 and B2, then ||dW|| = ||dB|| / s;
//  - per-layer norms: the kept streams, branch outputs and gradients are stacked
//    and reduced in a few batched ops, and read back once (one dataSync per arch).
// Results have the shape of wasm/resnorm.js's simulate(): Float64Array per array.
//
//   const tf = await initTf();            // @tensorflow/tfjs-core + wasm backend, SIMD
//   const engine = new TfEngine(tf);
//   const out = engine.simulate({ arch: ['pre_ln'], depth: 96 });
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WeightBank, emptyResult, inputStream, normalizeConfig, readout, recipe } from '../js/engine.js';

// TF.js's gradients. The package's Node entry (dist/tf-core.node.js) registers
// none: the @tensorflow/tfjs union package does it by importing tfjs-core's
// dist/register_all_gradients.js, an ES module tree with extensionless imports
// that Node cannot load as it is. We bundle that file (unchanged) with rolldown,
// vite's bundler, already installed. Its copy of the ops runs on the same global
// engine and registries as the Node entry (tfjs-core keeps them on globalThis).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GRADS = `${ROOT}build/bench-tfjs/grads.mjs`;

export async function ensureGradients() {
  if (existsSync(GRADS)) return GRADS;
  const require = createRequire(import.meta.url);
  const { rolldown } = await import('rolldown');
  const input = require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const bundle = await rolldown({ input, platform: 'node', logLevel: 'silent' });
  mkdirSync(dirname(GRADS), { recursive: true });
  const tmp = `${GRADS}.${process.pid}.tmp.mjs`;
  await bundle.write({ file: tmp, format: 'esm' });
  renameSync(tmp, GRADS); // atomic: a concurrent reader sees the old or the new file
  return GRADS;
}

const NONE = 0,
  LAYERNORM = 1; // RMSNorm is 2
const EPS = 1e-5;

/**
 * Loads @tensorflow/tfjs-core with the wasm backend from node_modules (no network:
 * the .wasm files are read from the package's dist/ folder). Returns {tf, info}.
 */
export async function initTf({ threads = 1 } = {}) {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  await import(pathToFileURL(await ensureGradients()).href);
  if (!tf.getGradient('Sum')) throw new Error(`${GRADS} did not register TF.js's gradients`);
  const require = createRequire(import.meta.url);
  const pkg = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'));
  wasm.setWasmPaths(`${pkg}/dist/`);
  if (threads) wasm.setThreadsCount(threads);
  const t0 = performance.now();
  if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
  await tf.ready();
  const info = {
    backend: tf.getBackend(),
    version: tf.version_core,
    backend_version: wasm.version_wasm,
    simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
    multithread: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
    threads: wasm.getThreadsCount(),
    init_ms: performance.now() - t0,
  };
  return { tf, info };
}

export class TfEngine {
  constructor(tf) {
    this.tf = tf;
    this.bank = new WeightBank();
    this.wkey = '';
    this.B1 = [];
    this.B2 = [];
    this.ikey = '';
    this.probes = [];
  }

  _prepare(cfg) {
    const tf = this.tf;
    const { seed, width: d, tokens: T, depth: L, init } = cfg;
    const m = d * cfg.expansion;
    this.bank.prepare(seed, d, m, init, L);
    const wkey = `${seed},${d},${m},${init}`;
    if (wkey !== this.wkey) {
      tf.dispose([...this.B1, ...this.B2]);
      this.B1 = [];
      this.B2 = [];
      this.wkey = wkey;
    }
    while (this.B1.length < L) {
      const layer = this.bank.layers[this.B1.length];
      this.B1.push(tf.tensor2d(layer.B1, [d, m], 'float32'));
      this.B2.push(tf.tensor2d(layer.B2, [m, d], 'float32'));
    }
    const ikey = `${seed},${T},${d}`;
    if (ikey !== this.ikey) {
      if (this.h0) tf.dispose([this.h0, this.r, this.gamma, this.beta, ...this.probes]);
      this.probes = [];
      this.ikey = ikey;
      this.h0 = tf.tensor2d(Float32Array.from(inputStream(seed, T, d)), [T, d]);
      this.r = tf.tensor2d(Float32Array.from(readout(seed, T, d)), [T, d]);
      this.gamma = tf.ones([d]);
      this.beta = tf.zeros([d]);
    }
    // One distinct zero tensor per layer (tf.grads adds up gradients of a repeated input).
    while (this.probes.length < L) this.probes.push(tf.zeros([T, d]));
  }

  _norm(kind, x) {
    const tf = this.tf;
    if (kind === LAYERNORM) {
      const { mean, variance } = tf.moments(x, -1, true);
      return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, EPS))), this.gamma), this.beta);
    }
    const ms = tf.mean(tf.square(x), -1, true);
    return tf.mul(tf.mul(x, tf.rsqrt(tf.add(ms, EPS))), this.gamma);
  }

  _act(name, p) {
    const tf = this.tf;
    switch (name) {
      case 'relu':
        return tf.relu(p);
      case 'gelu':
        return tf.mul(tf.mul(p, 0.5), tf.add(tf.erf(tf.mul(p, Math.SQRT1_2)), 1));
      case 'tanh':
        return tf.tanh(p);
      default:
        return p;
    }
  }

  _arch(cfg, arch) {
    const tf = this.tf;
    const { depth: L, tokens: T, width: d } = cfg;
    const m = d * cfg.expansion;
    const rec = recipe(arch, L);
    const c = cfg.activation === 'relu' || cfg.activation === 'gelu' ? 2.0 : 1.0;
    const s1 = Math.fround(Math.sqrt(c / d) * rec.w1);
    const s2 = Math.fround((cfg.gain / Math.sqrt(m)) * rec.w2);
    const finalKind = ['none', 'layernorm', 'rmsnorm'].indexOf(cfg.final_norm);
    const kept = []; // h_1, u_1, h_2, u_2, ...
    const f = (h0, ...rest) => {
      const z = rest.slice(0, L),
        b1 = rest.slice(L, 2 * L),
        b2 = rest.slice(2 * L);
      const s1t = tf.scalar(s1),
        s2t = tf.scalar(s2),
        alpha = tf.scalar(Math.fround(rec.alpha));
      let h = h0;
      for (let l = 0; l < L; ++l) {
        const x = rec.inn !== NONE ? this._norm(rec.inn, h) : h;
        const a = this._act(cfg.activation, tf.mul(tf.matMul(x, b1[l]), s1t));
        const y = tf.mul(tf.matMul(a, b2[l]), s2t);
        const u = rec.out !== NONE ? this._norm(rec.out, y) : y;
        const s = !rec.skip ? u : rec.alpha === 1 ? tf.add(h, u) : tf.add(tf.mul(h, alpha), u);
        const hn = tf.add(rec.outer !== NONE ? this._norm(rec.outer, s) : s, z[l]);
        kept.push(tf.keep(hn), tf.keep(u));
        h = hn;
      }
      const out = finalKind > 0 ? this._norm(finalKind, h) : h;
      return tf.sum(tf.mul(out, this.r));
    };
    const B1 = this.B1.slice(0, L),
      B2 = this.B2.slice(0, L);
    const v = tf.tidy(() => {
      const g = tf.grads(f)([this.h0, ...this.probes.slice(0, L), ...B1, ...B2]);
      const hs = [this.h0],
        us = [];
      for (let l = 0; l < L; ++l) {
        hs.push(kept[2 * l]);
        us.push(kept[2 * l + 1]);
      }
      const sq = (list) => tf.sum(tf.square(tf.stack(list)), [1, 2]);
      // [ ||dh_l||^2 (L+1), ||h_l||^2 (L+1), ||u_l||^2 (L), ||dB1_l||^2 (L), ||dB2_l||^2 (L) ]
      return tf
        .concat([sq(g.slice(0, L + 1)), sq(hs), sq(us), sq(g.slice(L + 1, 2 * L + 1)), sq(g.slice(2 * L + 1))])
        .dataSync();
    });
    tf.dispose(kept);
    const n = T * d;
    const skipScale = rec.skip ? rec.alpha : 1.0;
    const r = emptyResult(L);
    for (let l = 0; l <= L; ++l) {
      r.grad_norm[l] = Math.sqrt(v[l]);
      r.stream_rms[l] = Math.sqrt(v[L + 1 + l] / n);
    }
    const o = 2 * L + 2;
    for (let l = 0; l < L; ++l) {
      const num = Math.sqrt(v[o + l]),
        den = skipScale * Math.sqrt(v[L + 1 + l]);
      r.update_ratio[l] = num === 0 && den === 0 ? 0 : num / den;
      r.w1_grad_norm[l] = Math.sqrt(v[o + L + l]) / Math.abs(s1);
      r.w2_grad_norm[l] = Math.sqrt(v[o + 2 * L + l]) / Math.abs(s2);
    }
    for (let l = 0; l <= L && r.first_nonfinite === null; ++l) {
      let finite = Number.isFinite(r.grad_norm[l]) && Number.isFinite(r.stream_rms[l]);
      if (l >= 1)
        finite =
          finite &&
          Number.isFinite(r.update_ratio[l - 1]) &&
          Number.isFinite(r.w1_grad_norm[l - 1]) &&
          Number.isFinite(r.w2_grad_norm[l - 1]);
      if (!finite) r.first_nonfinite = l;
    }
    return r;
  }

  /** Frees every tensor this engine holds. */
  dispose() {
    this.tf.dispose([...this.B1, ...this.B2, ...this.probes]);
    if (this.h0) this.tf.dispose([this.h0, this.r, this.gamma, this.beta]);
    this.B1 = [];
    this.B2 = [];
    this.probes = [];
    this.h0 = null;
    this.wkey = this.ikey = '';
  }

  simulate(config = {}) {
    const cfg = normalizeConfig(config);
    this._prepare(cfg);
    const results = {};
    for (const arch of cfg.arch) results[arch] = this._arch(cfg, arch);
    return { config: cfg, results };
  }
}
