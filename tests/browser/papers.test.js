// The papers page in Debian's Chromium: it loads under a strict CSP with no
// console message, all thirteen panels render with their numbers, and every
// verdict its caption states agrees with numbers this test computes itself,
// through the wasm API, with its own code (not the page's repro.js);
// DenseFormer's matrix of trained weights, its table and its caption are
// those of the test's own trainer of the same run; ReZero's, Mix-LN's and
// LayerScale's trained rows are the test's own trainers' of the lab's runs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, STRICT_CSP, layoutSettled, pageIn, served, useBrowser } from './harness.js';
import { fmtPlain } from '../../web/src/shared/format.js';
import { dwaCaption } from '../../web/src/shared/dwa-weights.js';

const it = useBrowser({ wasm: true });

const PANELS = [
  'theorem1',
  'figure3',
  'lemma2',
  'deepnet',
  'gpt2',
  'veit',
  'rezero',
  'lns',
  'mixln',
  'layerscale',
  'dwa',
  'batchnorm',
  'rmsnorm',
];

/** Opens papers.html and waits until every panel has rendered (slow machines: up to 3 minutes). */
async function openPapers(url, options = {}) {
  const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await pageIn(context, `${url}papers.html`, { ready: false });
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  return page;
}

// ---------------------------------------------------------------- the test's own numbers

function slope(x, y) {
  const mx = x.reduce((a, b) => a + b) / x.length,
    my = y.reduce((a, b) => a + b) / y.length;
  let sxy = 0,
    sxx = 0;
  x.forEach((xi, i) => {
    sxy += (xi - mx) * (y[i] - my);
    sxx += (xi - mx) ** 2;
  });
  return sxy / sxx;
}
const maxOverMin = (a) => Math.max(...a) / Math.min(...a);
// The training lab's settings of its ReZero claim and of its Late layers claim (claims/lab/), written out.
const TEACHER_56 = {
  task: 'teacher',
  block: 'mlp',
  width: 32,
  expansion: 1,
  activation: 'relu',
  batch: 32,
  eval_batches: 8,
  optimizer: 'sgd',
  momentum: 0.9,
  depth: 56,
  lr: 3e-3,
  warmup: 0,
  steps: 200,
  log_every: 10,
};
const REVERSE_8 = {
  task: 'reverse',
  block: 'transformer',
  width: 16,
  expansion: 2,
  heads: 4,
  seq: 4,
  vocab: 8,
  batch: 16,
  optimizer: 'adam',
  schedule: 'constant',
  eval_batches: 2,
  depth: 8,
  lr: 2e-3,
  warmup: 0,
  steps: 300,
  log_every: 10,
};
const seedsOf = (p) => Array.from({ length: p.seeds }, (_, i) => p.seed0 + i);
const depthsOf = (deepest) =>
  deepest > 96 ? [6, 12, 24, 48, 96, 192] : [6, 12, 24, 48, 96].filter((L) => L <= deepest);
const tf = (p, arch, depth, seed) => ({
  arch,
  block: 'transformer',
  depth,
  width: p.width,
  tokens: p.tokens,
  heads: p.heads,
  causal: p.causal,
  seed,
  expansion: p.expansion ?? 1,
  final_norm: arch === 'post_ln' ? 'none' : 'layernorm',
});
function firstAt(weights, q) {
  const sum = weights.reduce((a, b) => a + b);
  let cum = 0;
  for (let k = 0; k < weights.length; k++) if ((cum += weights[k]) >= q * sum) return k;
  return weights.length - 1;
}

// For each panel: {key: number} as the page's table keys them, and the verdict
// those numbers give under the criteria the page states.
const INDEPENDENT = {
  theorem1(p) {
    const out = {};
    for (const arch of ['post_ln', 'pre_ln']) {
      const x = [],
        y = [];
      for (const seed of seedsOf(p))
        for (const L of depthsOf(p.deepest)) {
          x.push(Math.log(L));
          y.push(Math.log(it.rn.simulate(tf(p, arch, L, seed)).results[arch].w2_grad_norm[L - 1]));
        }
      out[`${arch}_slope`] = slope(x, y);
    }
    const ok = [Math.abs(out.post_ln_slope) <= 0.15, Math.abs(out.pre_ln_slope + 0.5) <= 0.15];
    return { values: out, oks: ok };
  },
  figure3(p, view) {
    const w = view.weight;
    const norms = { post_ln: [0, 0, 0, 0, 0, 0], pre_ln: [0, 0, 0, 0, 0, 0] };
    for (const seed of seedsOf(p))
      for (const arch of ['post_ln', 'pre_ln']) {
        const r = it.rn.simulate(tf(p, arch, 6, seed)).results[arch];
        for (let l = 0; l < 6; l++) {
          const keys = w === 'all' ? ['wq', 'wk', 'wv', 'wo', 'w1', 'w2'] : [w];
          norms[arch][l] += Math.sqrt(keys.reduce((s, k) => s + r[`${k}_grad_norm`][l] ** 2, 0)) / p.seeds;
        }
      }
    const post = norms.post_ln[5] / norms.post_ln[0],
      pre = norms.pre_ln[5] / norms.pre_ln[0];
    return { values: { post_ratio: post, pre_ratio: pre }, oks: [post >= 1.2, pre >= 1 / 1.5 && pre <= 1.5] };
  },
  lemma2(p) {
    const L = p.depth;
    const m = new Array(L + 1).fill(0);
    for (const seed of seedsOf(p)) {
      const r = it.rn.simulate({
        arch: ['pre_ln'],
        depth: L,
        width: p.width,
        tokens: p.tokens,
        gain: Math.SQRT1_2,
        seed,
      }).results.pre_ln;
      r.stream_rms.forEach((v, l) => {
        m[l] += (v * v) / p.seeds;
      });
    }
    const s = slope(
      m.map((_, l) => l),
      m,
    );
    const worst = Math.max(...m.map((v, l) => Math.abs(v / (1 + l / 2) - 1)));
    return { values: { slope: s, worst }, oks: [Math.abs(s - 0.5) <= 0.05, worst <= 0.1] };
  },
  deepnet(p) {
    const r = it.rn.simulate({
      arch: ['deepnorm', 'post_ln'],
      block: 'transformer',
      depth: p.depth,
      width: p.width,
      tokens: p.tokens,
      heads: p.heads,
      causal: p.causal,
      final_norm: 'none',
      seed: p.seed,
    }).results;
    const v = {
      deepnorm_grad_norm: maxOverMin(r.deepnorm.grad_norm),
      deepnorm_stream_rms: maxOverMin(r.deepnorm.stream_rms),
      post_ln_grad_norm: maxOverMin(r.post_ln.grad_norm),
      post_ln_stream_rms: maxOverMin(r.post_ln.stream_rms),
    };
    return {
      values: v,
      // the paper's claim only: Post-LN's stream (1 by construction) is shown, not judged
      oks: [v.deepnorm_grad_norm <= 2, v.deepnorm_stream_rms <= 2, v.post_ln_grad_norm > 2],
      unjudged: ['post_ln_stream_rms'],
    };
  },
  gpt2(p) {
    const depths = depthsOf(p.deepest);
    const ratio = { gpt2: depths.map(() => 0), pre_ln: depths.map(() => 0) };
    for (const seed of seedsOf(p))
      depths.forEach((L, i) => {
        const r = it.rn.simulate({ ...tf(p, 'pre_ln', L, seed), arch: ['gpt2', 'pre_ln'] }).results;
        for (const a of ['gpt2', 'pre_ln']) ratio[a][i] += r[a].stream_rms[L] / r[a].stream_rms[0] / p.seeds;
      });
    const lx = depths.map(Math.log);
    const v = {
      gpt2_worst: Math.max(...ratio.gpt2.map((x) => Math.max(x, 1 / x))),
      gpt2_slope: slope(lx, ratio.gpt2.map(Math.log)),
      pre_slope: slope(lx, ratio.pre_ln.map(Math.log)),
    };
    return {
      values: v,
      oks: [v.gpt2_worst <= 1.5, Math.abs(v.gpt2_slope) <= 0.1, Math.abs(v.pre_slope - 0.5) <= 0.15],
    };
  },
  veit(p) {
    const r = it.rn.pathGradients({
      arch: ['pre_ln', 'residual'],
      depth: p.depth,
      width: p.width,
      tokens: p.tokens,
      seed: p.seed,
      samples: p.samples,
      path_seed: p.path_seed,
    }).results;
    const k95 = firstAt(Array.from(r.pre_ln.total), 0.95);
    return {
      values: { pre_k95: k95, res_k95: firstAt(Array.from(r.residual.total), 0.95) },
      oks: [k95 < r.pre_ln.units / 2],
    };
  },
  rezero(p) {
    const L = p.depth;
    const r = it.rn.simulate({ ...tf(p, 'rezero', L, p.seed), arch: ['rezero', 'pre_ln'], final_norm: 'none' }).results;
    const off = (a, ref) => Math.max(...Array.from(a, (v) => Math.abs(v / ref - 1)));
    const v = {
      rezero_grad: off(r.rezero.grad_norm, r.rezero.grad_norm[L]),
      rezero_stream: off(r.rezero.stream_rms, r.rezero.stream_rms[0]),
      pre_ln_grad: off(r.pre_ln.grad_norm, r.pre_ln.grad_norm[L]),
    };
    // trained: the lab's ReZero claim, teacher regression at 56 MLP blocks, each run to its end
    const end = {};
    let task;
    for (const arch of ['plain', 'residual', 'rezero']) {
      const tr = it.rn.trainer({ ...TEACHER_56, arch });
      const logs = tr.step(200);
      task = tr.task;
      end[arch] = logs[logs.length - 1].heldout_loss;
      tr.delete();
    }
    const half = (task.optimal ?? 0) + 0.5 * (task.chance - (task.optimal ?? 0));
    const finite = (x) => (Number.isFinite(x) ? x : Infinity);
    v.trained_rezero = finite(end.rezero);
    v.trained_plain = finite(end.plain);
    v.trained_residual = finite(end.residual);
    return {
      values: v,
      oks: [
        v.rezero_grad <= 1e-6,
        v.rezero_stream <= 1e-6,
        v.trained_rezero < half,
        !(v.trained_plain <= 0.9 * task.chance),
        !(v.trained_residual < half),
      ],
      unjudged: ['pre_ln_grad'],
    };
  },
  lns(p) {
    const depths = depthsOf(p.deepest).filter((L) => L >= 12);
    const variance = { pre_ln: depths.map(() => 0), lns: depths.map(() => 0) };
    for (const seed of seedsOf(p))
      depths.forEach((L, i) => {
        const r = it.rn.simulate({ ...tf(p, 'pre_ln', L, seed), arch: ['pre_ln', 'lns'] }).results;
        for (const a of ['pre_ln', 'lns']) variance[a][i] += (r[a].stream_rms[L] / r[a].stream_rms[0]) ** 2 / p.seeds;
      });
    const lx = depths.map(Math.log);
    const v = {
      lns_slope: slope(lx, variance.lns.map(Math.log)),
      pre_ln_slope: slope(lx, variance.pre_ln.map(Math.log)),
      lns_over_pre: Math.max(...variance.lns.map((x, i) => x / variance.pre_ln[i])),
    };
    return { values: v, oks: [v.lns_slope <= 0.5 * v.pre_ln_slope, v.lns_over_pre < 1], unjudged: ['pre_ln_slope'] };
  },
  mixln(p) {
    const keys = ['wq', 'wk', 'wv', 'wo', 'w1', 'w2'];
    const norms = {};
    for (const arch of ['post_ln', 'pre_ln', 'mix_ln']) {
      norms[arch] = new Array(p.depth).fill(0);
      for (const seed of seedsOf(p)) {
        const r = it.rn.simulate({ ...tf(p, arch, p.depth, seed) }).results[arch];
        for (let l = 0; l < p.depth; l++)
          norms[arch][l] += Math.sqrt(keys.reduce((s, k) => s + r[`${k}_grad_norm`][l] ** 2, 0)) / p.seeds;
      }
    }
    const v = Object.fromEntries(Object.entries(norms).map(([a, n]) => [`${a}_spread`, maxOverMin(n)]));
    v.mix_over_post_ln = v.mix_ln_spread / v.post_ln_spread;
    v.mix_over_pre_ln = v.mix_ln_spread / v.pre_ln_spread;
    // after training: the lab's Late layers runs of the three, largest over smallest block gradient at the end
    for (const [key, arch, warmup] of [
      ['post_ln_warmup', 'post_ln', 100],
      ['pre_ln', 'pre_ln', 0],
      ['mix_ln', 'mix_ln', 0],
    ]) {
      const tr = it.rn.trainer({ ...REVERSE_8, arch, warmup });
      const logs = tr.step(300);
      v[`trained_${key}_spread`] = maxOverMin(Array.from(logs[logs.length - 1].w_grad_norm));
      tr.delete();
    }
    v.trained_mix_over_post_ln_warmup = v.trained_mix_ln_spread / v.trained_post_ln_warmup_spread;
    v.trained_mix_over_pre_ln = v.trained_mix_ln_spread / v.trained_pre_ln_spread;
    return {
      values: v,
      oks: [
        v.mix_over_post_ln <= 0.9,
        v.mix_over_pre_ln <= 0.9,
        v.trained_mix_over_post_ln_warmup < 1,
        v.trained_mix_over_pre_ln < 1,
      ],
      unjudged: [
        'post_ln_spread',
        'pre_ln_spread',
        'mix_ln_spread',
        'trained_post_ln_warmup_spread',
        'trained_pre_ln_spread',
        'trained_mix_ln_spread',
      ],
    };
  },
  layerscale(p) {
    const eps = p.depth <= 18 ? 0.1 : p.depth <= 24 ? 1e-5 : 1e-6;
    const r = it.rn.simulate({ ...tf(p, 'layerscale', p.depth, p.seed), arch: ['layerscale', 'pre_ln'] }).results;
    const over = Array.from(r.layerscale.update_ratio, (x) => x / eps);
    const v = {
      ls_about_eps: Math.max(...over.map((x) => Math.max(x, 1 / x))),
      ls_first: r.layerscale.attn_update_ratio[0] / (eps * r.pre_ln.attn_update_ratio[0]),
      pre_ln_range: Math.min(...r.pre_ln.update_ratio),
    };
    // trained: the lab's Late layers run of LayerScale (8 blocks: eps = 0.1), its lesion and gates
    const tr = it.rn.trainer({ ...REVERSE_8, arch: 'layerscale' });
    tr.step(300);
    const lesion = tr.lesion(),
      gates = tr.gates();
    tr.delete();
    const mid = (a) => {
      const x = [...a].sort((m, n) => m - n);
      return x.length % 2 ? x[x.length >> 1] : (x[x.length / 2 - 1] + x[x.length / 2]) / 2;
    };
    v.trained_init_about_eps = Math.max(...Array.from(lesion.contribution_init, (x) => Math.max(x / 0.1, 0.1 / x)));
    v.trained_end_over_eps = mid(Array.from(lesion.contribution, (x) => x / 0.1));
    v.trained_gate_over_eps = mid(Array.from(gates.magnitude, (x) => x / 0.1));
    return {
      values: v,
      oks: [v.ls_about_eps <= 2, Math.abs(v.ls_first - 1) <= 1e-4, v.trained_init_about_eps <= 2],
      unjudged: ['pre_ln_range', 'trained_end_over_eps', 'trained_gate_over_eps'],
    };
  },
  // The lab's Late layers run of DenseFormer as the panel's setting states it: its stack at init
  // against Pre-LN's, the first training step of both, then the run and its trained weights.
  dwa(p) {
    const L = p.depth;
    const train = {
      task: 'reverse',
      seq: 4,
      vocab: 8,
      block: 'transformer',
      width: 16,
      expansion: 2,
      heads: 4,
      batch: 16,
      optimizer: 'adam',
      lr: 2e-3,
      warmup: 0,
      schedule: 'constant',
      steps: 300,
      log_every: 10,
      eval_batches: 2,
      depth: L,
      seed: p.seed,
    };
    let simulate = 0;
    const sim = it.rn.simulate({
      arch: ['dwa', 'pre_ln'],
      block: 'transformer',
      depth: L,
      width: 16,
      tokens: 8,
      expansion: 2,
      heads: 4,
      activation: 'gelu',
      causal: true,
      final_norm: 'layernorm',
      seed: p.seed,
    }).results;
    for (const [k, a] of Object.entries(sim.dwa))
      if (ArrayBuffer.isView(a)) a.forEach((v, i) => (simulate = Math.max(simulate, Math.abs(v - sim.pre_ln[k][i]))));
    const first = {};
    for (const arch of ['dwa', 'pre_ln']) {
      const tr = it.rn.trainer({ ...train, arch, log_every: 1 });
      first[arch] = tr.step(1)[0];
      tr.delete();
    }
    let step = Math.abs(first.dwa.train_loss - first.pre_ln.train_loss);
    for (const k of ['grad_norm', 'stream_rms', 'w_grad_norm', 'update_ratio', 'contribution'])
      first.dwa[k].forEach((v, i) => (step = Math.max(step, Math.abs(v - first.pre_ln[k][i]))));
    const tr = it.rn.trainer({ ...train, arch: 'dwa' });
    const logs = tr.step(train.steps);
    const w = tr.dwaWeights();
    tr.delete();
    const late = [];
    for (let l = Math.floor(L / 2) + 1; l <= L; l++) late.push(l);
    let reuse = 0,
      emb = 0,
      others = [];
    for (const l of late) {
      const row = w[l - 1];
      reuse += row.slice(0, l - 1).reduce((a, x) => a + Math.abs(x), 0) / Math.abs(row[l]) / late.length;
      emb += Math.abs(row[0]) / late.length;
      others = others.concat(Array.from(row.slice(1, l), Math.abs));
    }
    const v = {
      init_simulate: simulate,
      init_first_step: step,
      init_mix_grad: Math.sqrt(first.dwa.grad_norm_global ** 2 - first.pre_ln.grad_norm_global ** 2),
      late_reuse: reuse,
      late_embedding: emb / (others.reduce((a, x) => a + x, 0) / others.length),
      trained_loss: logs[logs.length - 1].heldout_loss,
    };
    return {
      values: v,
      oks: [v.init_simulate === 0, v.init_first_step === 0, v.late_reuse >= 0.1, v.late_embedding > 1],
      unjudged: ['init_mix_grad', 'trained_loss'],
      weights: w,
    };
  },
  // Why not BatchNorm as the panel's setting states it: reverse up to 6 of 8 symbols padded from 2, two
  // Pre-LN transformer blocks, d = 16, 200 steps; LayerNorm and BatchNorm (pads masked) at batch 2 to 64,
  // BatchNorm with the pads counted at batch 8; the last step's held-out losses.
  batchnorm(p) {
    const train = {
      task: 'reverse',
      seq: 6,
      seq_min: 2,
      vocab: 8,
      block: 'transformer',
      arch: 'pre_ln',
      depth: 2,
      width: 16,
      expansion: 2,
      heads: 4,
      optimizer: 'adam',
      lr: 2e-3,
      warmup: 0,
      schedule: 'constant',
      steps: 200,
      log_every: 200,
      eval_batches: 2,
      seed: p.seed,
    };
    const last = (c) => {
      const tr = it.rn.trainer({ ...train, ...c });
      const logs = tr.step(train.steps);
      tr.delete();
      return logs[logs.length - 1];
    };
    const batches = [2, 4, 8, 16, 32, 64];
    const ln = batches.map((batch) => last({ batch, norm: 'auto' }));
    const bn = batches.map((batch) => last({ batch, norm: 'batchnorm', bn_pads: 'mask' }));
    const counted = last({ batch: 8, norm: 'batchnorm', bn_pads: 'count' });
    const ratio = (logs) =>
      Math.max(...logs.map((l) => l.heldout_loss_eval_mode)) / Math.min(...logs.map((l) => l.heldout_loss_eval_mode));
    const b8 = bn[2],
      l8 = ln[2];
    const rel = (i) => bn[i].heldout_loss_eval_mode / ln[i].heldout_loss_eval_mode;
    const v = {
      sweep: ratio(bn) / ratio(ln),
      small_batch: rel(0) / rel(batches.length - 1),
      one_seq: b8.heldout_loss_one_seq / b8.heldout_loss_eval_mode - 1,
      layernorm_modes: Math.max(
        Math.abs(l8.heldout_loss_train_mode - l8.heldout_loss_eval_mode),
        Math.abs(l8.heldout_loss_one_seq - l8.heldout_loss_eval_mode),
      ),
      pads: counted.heldout_loss_eval_mode / b8.heldout_loss_eval_mode - 1,
    };
    return {
      values: v,
      oks: [v.sweep > 1, v.small_batch > 1, v.one_seq >= 0.05, v.layernorm_modes <= 1e-9, Math.abs(v.pads) >= 0.01],
    };
  },
};

/** DenseFormer's matrix on the page: the rows it holds, its table's cells, its caption, against the test's trainer's weights `w`. */
async function checkDwaMatrix(page, w) {
  const L = w.length;
  const m = await page.evaluate(() => {
    const s = document.querySelector('[data-panel="dwa"]');
    return {
      rows: window.__papers.results.dwa.matrix,
      cells: [...s.querySelectorAll('.learned-dwa-table tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent),
      ),
      canvases: s.querySelectorAll('.learned-matrix canvas').length,
      drawn: [...s.querySelectorAll('.learned-matrix canvas')].map((c) => c.width * c.height),
      captions: [...s.querySelectorAll('.after-sentences li')].map((li) => li.textContent),
      ticks: [...s.querySelectorAll('.heat-tick')].map((t) => t.textContent),
    };
  });
  assert.deepEqual(
    m.rows,
    w.map((row) => Array.from(row)),
    'the engine’s weights',
  );
  assert.deepEqual(
    m.cells,
    w.map((row) => Array.from({ length: L + 1 }, (_, j) => (j < row.length ? fmtPlain(row[j]) : ''))),
  );
  assert.equal(m.canvases, 1);
  assert.ok(m.drawn[0] > 1, 'the matrix is drawn');
  assert.deepEqual(m.captions, [dwaCaption('DenseFormer after 300 steps', w)]);
  assert.equal(m.ticks.length, 3);
  // the keyboard reads a cell: the last block's own weight, then its weight on the embedding
  await page.focus('[data-panel="dwa"] .learned-matrix');
  await page.keyboard.press('End');
  const readout = () => page.textContent('[data-panel="dwa"] .heatmap-readout');
  assert.match(await readout(), new RegExp(`block ${L} takes .* of its own output`));
  await page.keyboard.press('Home');
  assert.match(await readout(), new RegExp(`block ${L} takes .* of the embedding h₀`));
  await page.keyboard.press('Escape');
}

// RMSNorm against LayerNorm as the panel's setting states it: reverse 4 of 8 symbols, two transformer blocks,
// d = 16, Adam at 2e-3 for 300 steps, seeds seed0 .. seed0 + 4; the last step's held-out loss of each. The
// quality row only: the times are the page's own measurement (checked from its numbers by their own test).
INDEPENDENT.rmsnorm = (p) => {
  const last = (arch, seed) => {
    const tr = it.rn.trainer({ ...REVERSE_8, depth: 2, log_every: 300, arch, seed });
    const logs = tr.step(300);
    tr.delete();
    return logs[logs.length - 1].heldout_loss;
  };
  const seeds = Array.from({ length: 5 }, (_, i) => p.seed0 + i);
  const ln = seeds.map((seed) => last('pre_ln', seed));
  const rms = seeds.map((seed) => last('pre_rms', seed));
  const mean = (v) => v.reduce((a, b) => a + b) / v.length;
  const sd = (v) => Math.sqrt(v.reduce((a, x) => a + (x - mean(v)) ** 2, 0) / (v.length - 1));
  const quality = mean(rms) - mean(ln);
  return {
    values: { quality },
    oks: [Math.abs(quality) <= Math.max(sd(ln), sd(rms))],
    unjudged: ['forward', 'backward'],
  };
};

const verdictOf = (oks) => (oks.every(Boolean) ? 'holds' : oks.some(Boolean) ? 'partly' : 'fails');

function checkPanel(id, shown) {
  const mine = INDEPENDENT[id](shown.params, shown.view);
  const rows = Object.fromEntries(shown.rows.map((r) => [r.key, r]));
  for (const [key, v] of Object.entries(mine.values)) {
    assert.ok(rows[key], `${id}: the page shows ${key}`);
    const tol = 1e-9 * Math.max(1, Math.abs(v));
    assert.ok(
      Math.abs(rows[key].value - v) <= tol || rows[key].value === v,
      `${id}.${key}: page ${rows[key].value}, wasm ${v}`,
    );
  }
  for (const key of mine.unjudged ?? []) assert.equal(rows[key].ok, null, `${id}.${key}: shown without a mark`);
  assert.equal(shown.verdict, verdictOf(mine.oks), `${id}: verdict`);
  return mine;
}

// ---------------------------------------------------------------- tests

test('papers.html under a strict CSP and a sub-path: no console message, thirteen panels, verdicts that match the engine', () =>
  served({ base: '/course/week-3/', csp: STRICT_CSP }, async (url) => {
    const page = await openPapers(url);
    const dom = await page.evaluate(
      (ids) =>
        ids.map((id) => {
          const s = document.querySelector(`[data-panel="${id}"]`);
          return {
            id,
            verdict: s.dataset.verdict,
            canvases: s.querySelectorAll('.chart canvas').length,
            charts: s.querySelectorAll('.chart').length,
            measured: [...s.querySelectorAll('.measured td.num')].map((td) => td.textContent),
            caption: s.querySelector('.verdict')?.textContent ?? '',
            claim: s.querySelector('.claim')?.textContent ?? '',
            cite: s.querySelector('.cite')?.textContent ?? '',
            setting: s.querySelector('.setting')?.textContent ?? '',
            // legend swatches whose line has no colour (a series key without a swatch class)
            uncoloured: [...s.querySelectorAll('.swatch line')]
              .filter((l) => getComputedStyle(l).stroke === 'none')
              .map((l) => l.closest('svg').getAttribute('class')),
            swatches: s.querySelectorAll('.swatch line').length,
          };
        }),
      PANELS,
    );
    const shown = await page.evaluate(() => window.__papers.results);
    for (const d of dom) {
      assert.notEqual(d.verdict, 'pending', d.id);
      assert.equal(d.canvases, d.charts, `${d.id}: every chart drawn`);
      assert.ok(d.measured.length >= 2 && d.measured.every((t) => /\d/.test(t)), `${d.id}: ${d.measured}`);
      assert.ok(d.caption.length > 100, `${d.id}: ${d.caption}`);
      for (const part of ['claim', 'cite', 'setting']) assert.ok(d[part].length > 40, `${d.id}: ${part}`);
      assert.deepEqual(d.uncoloured, [], `${d.id}: every legend swatch has a colour (of ${d.swatches})`);
      assert.equal(shown[d.id].verdict, d.verdict);
      const mine = checkPanel(d.id, shown[d.id]);
      if (['rezero', 'mixln', 'layerscale', 'dwa', 'batchnorm'].includes(d.id))
        assert.deepEqual(
          shown[d.id].rows.map((r) => r.key).sort(),
          Object.keys(mine.values).sort(),
          `${d.id}: every row checked`,
        );
      if (d.id === 'dwa') await checkDwaMatrix(page, mine.weights);
    }
    // How long the panels that train took in their workers, and the whole page (reported, not asserted)
    const times = ['rezero', 'mixln', 'layerscale', 'dwa', 'batchnorm', 'rmsnorm'].map(
      (id) => `${id} ${(shown[id].ms / 1000).toFixed(2)} s`,
    );
    console.log(`# papers page, panels that train: ${times.join(', ')}; ${await page.textContent('#status')}`);
    // The header's navigation, as on the other pages.
    const nav = await page.evaluate(() =>
      [...document.querySelectorAll('.site-nav a')].map((a) => [
        a.getAttribute('href'),
        a.getAttribute('aria-current'),
      ]),
    );
    assert.deepEqual(nav, [
      ['./', null],
      ['./quiz.html', null],
      ['./quiz.html#norm', null],
      ['./papers.html', 'page'],
      ['./train.html', null],
    ]);
    // No inline style anywhere (the CSP would refuse it, and say so on the console); uPlot and
    // DenseFormer's matrix size their canvases and place their ticks through the CSSOM, which it allows.
    assert.equal(
      await page.evaluate(
        () =>
          document.querySelectorAll('[style]:not(.uplot *):not(.uplot):not(.learned-matrix *):not(.heat-ticks *)')
            .length,
      ),
      0,
    );
    await page.screenshot({ path: `${SHOTS}/papers-desktop.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

// The RMSNorm panel's times are measured in the page's worker, so the test cannot compute them again: its
// rows must say what the page's own numbers (the time chart's data table, ms per call at each width) say.
test('the RMSNorm panel: a verdict, and timing rows that are the ratios of the times it shows', () =>
  served({}, async (url) => {
    const page = await openPapers(url);
    await page.waitForFunction(() => window.__papers.results.rmsnorm?.verdict);
    const shown = await page.evaluate(() => window.__papers.results.rmsnorm);
    checkPanel('rmsnorm', shown);
    const dom = await page.evaluate(() => {
      const s = document.querySelector('[data-panel="rmsnorm"]');
      const tables = [...s.querySelectorAll('.paper-data table')].map((t) => ({
        head: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
        rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
      }));
      const rows = Object.fromEntries(
        [...s.querySelectorAll('.measured td[data-key]')].map((td) => [td.dataset.key, td.textContent]),
      );
      return { verdict: s.dataset.verdict, tables, rows, caption: s.querySelector('.verdict').textContent };
    });
    assert.ok(['holds', 'partly', 'fails'].includes(dom.verdict), dom.verdict);
    assert.equal(dom.verdict, shown.verdict);
    const time = dom.tables.find((t) => t.head[0] === 'width d');
    assert.ok(time, 'the time chart’s numbers');
    const col = (label) => time.head.indexOf(label);
    const ms = (label) => time.rows.map((r) => Number(r[col(label)]));
    for (const label of ['LayerNorm forward', 'RMSNorm forward', 'LayerNorm backward', 'RMSNorm backward'])
      assert.ok(
        ms(label).every((v) => Number.isFinite(v) && v > 0),
        `${label}: ${ms(label)}`,
      );
    // each timing row's percentages, one per width, from the table's times (4 significant digits; the
    // row rounds to whole percents)
    for (const key of ['forward', 'backward']) {
      assert.match(dom.rows[key] ?? '', /^[−+]\d+%(, [−+]\d+%)*$/, `${key}: its row`);
      const pcts = dom.rows[key].split(', ').map((t) => Number(t.replace('−', '-').replace('%', '')) / 100);
      const ln = ms(`LayerNorm ${key}`),
        rms = ms(`RMSNorm ${key}`);
      assert.equal(pcts.length, ln.length);
      pcts.forEach((pct, i) =>
        assert.ok(Math.abs(rms[i] / ln[i] - 1 - pct) <= 0.005 + 0.002, `${key} d=${time.rows[i][0]}: ${pct}`),
      );
      assert.equal(shown.rows.find((r) => r.key === key).ok, null, `${key}: reported, not judged`);
    }
    // the caption quotes d = 512's times as the table holds them
    assert.ok(time.rows.some((r) => r[0] === '512'));
    assert.match(dom.caption, /at d = 512 \(128 tokens, medians of 21 interleaved samples\)/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a control recomputes its panel, and the new verdict still matches the engine', () =>
  served({}, async (url) => {
    const page = await openPapers(url);
    let renders = await page.evaluate(() => window.__papers.renders);
    await page.selectOption('#theorem1-seeds', '4');
    await page.waitForFunction(
      (n) => window.__papers.renders > n && window.__papers.results.theorem1.params.seeds === 4,
      renders,
    );
    checkPanel('theorem1', await page.evaluate(() => window.__papers.results.theorem1));
    // Figure 3's weight picker changes what is shown, not what is computed.
    renders = await page.evaluate(() => window.__papers.renders);
    await page.selectOption('#figure3-weight', 'w1');
    await page.waitForFunction(
      (n) => window.__papers.renders > n && window.__papers.results.figure3.view.weight === 'w1',
      renders,
    );
    checkPanel('figure3', await page.evaluate(() => window.__papers.results.figure3));
    // A bad seed is marked, not run.
    await page.fill('#deepnet-seed', '-3');
    await page.locator('#deepnet-seed').dispatchEvent('change');
    assert.equal(await page.getAttribute('#deepnet-seed', 'aria-invalid'), 'true');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('360 px wide in the dark theme: no horizontal scroll, readable panels; the toggle switches to light', () =>
  served({}, async (url) => {
    const page = await openPapers(url, { viewport: { width: 360, height: 780 }, colorScheme: 'dark' });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `page is ${width}px wide at 360`);
    for (const id of PANELS) {
      const box = await page.locator(`[data-panel="${id}"] .chart`).first().boundingBox();
      assert.ok(box.width >= 200 && box.x >= 0 && box.x + box.width <= 360, `${id}: chart at ${JSON.stringify(box)}`);
    }
    await page.locator(`[data-panel="veit"]`).screenshot({ path: `${SHOTS}/papers-phone-dark-veit.png` });
    await page.screenshot({ path: `${SHOTS}/papers-phone-dark.png`, fullPage: true });
    const renders = await page.evaluate(() => window.__papers.renders);
    await page.click('#theme-toggle');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    await page.waitForFunction((n) => window.__papers.renders >= n + 6, renders); // every panel redrawn
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('the four-arch transformer recompute (L = 96, d = 64, T = 16, 4 heads) is measured and shown (reported, not asserted)', () =>
  served({}, async (url) => {
    const page = await openPapers(url);
    await page.waitForFunction(() => window.__papers.perf);
    // Speed is the benchmark's business (npm run bench), not a test's: a shared
    // CI machine must not fail the suite on time. Measured up to three times
    // while above the 50 ms budget, and reported.
    const medians = [await page.evaluate(() => window.__papers.perf.median)];
    while (medians.length < 3 && Math.min(...medians) >= 50)
      medians.push((await page.evaluate(() => window.__papers.measure())).median);
    const perf = await page.evaluate(() => window.__papers.perf);
    console.log(
      `# papers page: four-arch transformer recompute, median of 15: ${medians.map((m) => m.toFixed(1)).join(', ')} ms (fastest ${perf.min.toFixed(1)} ms)`,
    );
    assert.ok(
      medians.every((m) => Number.isFinite(m) && m > 0),
      `medians ${medians.join(', ')} ms`,
    );
    const shown = await page.textContent('#speed-result');
    assert.match(shown, /median \d+\.\d ms/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

// The five answers to the open question, each panel on its own, at 1280 and 360 px in both
// themes from one load: the page is never wider than the window, a panel's table and caption
// stay inside it, and the canvas follows its chart box (DenseFormer's matrix its box too).
test('the answers\u2019 panels at 1280 and 360 px, light and dark: inside the window, charts redrawn', () =>
  served({}, async (url) => {
    const page = await openPapers(url, { colorScheme: 'light' });
    const ANSWERS = ['rezero', 'lns', 'mixln', 'layerscale', 'dwa'];
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: width > 400 ? 900 : 780 });
      for (const theme of ['light', 'dark']) {
        if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) {
          const renders = await page.evaluate(() => window.__papers.renders);
          await page.click('#theme-toggle');
          await page.waitForFunction(([n, k]) => window.__papers.renders >= n + k, [renders, PANELS.length]);
        }
        await layoutSettled(page, '[data-panel] .chart, [data-panel] .learned-matrix');
        for (const id of ANSWERS) {
          const fit = await page.evaluate((pid) => {
            const s = document.querySelector(`[data-panel="${pid}"]`);
            const r = s.getBoundingClientRect();
            const charts = [...s.querySelectorAll('.chart, .learned-matrix')].map((c) => {
              const b = c.getBoundingClientRect(),
                canvas = c.querySelector('canvas').getBoundingClientRect();
              return { box: [b.left, b.right], canvas: [canvas.left, canvas.right] };
            });
            return { page: document.documentElement.scrollWidth, left: r.left, right: r.right, charts };
          }, id);
          assert.ok(
            fit.page <= width && fit.left >= 0 && fit.right <= width,
            `${id} ${width} ${theme}: ${JSON.stringify(fit)}`,
          );
          for (const c of fit.charts)
            assert.ok(
              c.canvas[0] >= c.box[0] - 1 && c.canvas[1] <= c.box[1] + 1,
              `${id} ${width}: ${JSON.stringify(c)}`,
            );
          await page
            .locator(`[data-panel="${id}"]`)
            .screenshot({ path: `${SHOTS}/papers-${id}-${width}-${theme}.png` });
        }
      }
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
