// The reproductions of the papers page (the six of the article's papers, then
// five of the answers to its open question), as text: each panel's title and the
// choices its controls offer, the criteria, and summarize(id, result, view),
// which turns a result of ../engine/experiments.js (computed in the engine
// worker) into the measured-vs-claimed rows and the verdict the caption states.
// No DOM: the page, the Node tests and the browser test all use this module,
// and tests/core/test_papers.cpp checks the same claims in C++ with the same
// settings and criteria (the trained halves of ReZero, Mix-LN, LayerScale and
// DenseFormer: the training lab's ReZero and Late layers presets,
// tests/core/test_reproductions.cpp, judged as the lab judges them).
//
// Verdicts: 'holds' (every criterion met), 'partly' (some), 'fails' (none).
import { DEFAULTS } from '../engine/experiments.js';
import { decimals, fixed, fmtFactor, percent, powerOfTen, significant } from '../shared/format.js';
import { dwaFacts } from '../shared/dwa-weights.js';
import { gradSpread, halfway, median, verdict as presetVerdict } from '../shared/train-verdicts.js';

/** A power of ten below 0.01 as 10⁻⁶, any other number as decimals() writes it. */
export function sci(v) {
  const e = Math.round(Math.log10(v));
  return v < 0.01 && Math.abs(v / 10 ** e - 1) < 1e-9 ? powerOfTen(e) : decimals(v);
}

// Each panel's parameters: defaults and the choices its controls offer; `article`: one of the
// article's six papers (the others answer its open question); `trains`: its computation trains
// the lab's runs (a second or more), so the page starts it once the others have their verdicts.
export const PANELS = {
  theorem1: {
    article: true,
    title: 'Xiong et al. (2020), Theorem 1',
    defaults: DEFAULTS.theorem1,
    choices: { seeds: [2, 4, 8, 16], deepest: [48, 96, 192] },
  },
  figure3: {
    article: true,
    title: 'Xiong et al. (2020), Figure 3',
    defaults: DEFAULTS.figure3,
    choices: { width: [64, 128, 256, 512], seeds: [1, 2, 4] },
  },
  lemma2: {
    article: true,
    title: 'Xiong et al. (2020), Lemma 2',
    defaults: DEFAULTS.lemma2,
    choices: { depth: [12, 24, 48, 96], seeds: [8, 16, 32, 64] },
  },
  deepnet: {
    article: true,
    title: 'Wang et al. (2022), DeepNet',
    defaults: DEFAULTS.deepnet,
    choices: { depth: [100, 200, 500, 1000] },
  },
  gpt2: {
    article: true,
    title: 'Radford et al. (2019), GPT-2',
    defaults: DEFAULTS.gpt2,
    choices: { seeds: [1, 2, 4, 8], deepest: [96, 192] },
  },
  veit: {
    article: true,
    title: 'Veit et al. (2016), Figure 6',
    defaults: DEFAULTS.veit,
    choices: { depth: [18, 36, 54], samples: [16, 32, 64] },
  },
  rezero: {
    trains: true,
    title: 'Bachlechner et al. (2020), ReZero',
    defaults: DEFAULTS.rezero,
    choices: { depth: [12, 48, 96, 192] },
  },
  lns: {
    title: 'Sun et al. (2025), LayerNorm Scaling',
    defaults: DEFAULTS.lns,
    choices: { seeds: [1, 2, 4, 8], deepest: [48, 96, 192] },
  },
  mixln: {
    trains: true,
    title: 'Li et al. (2024), Mix-LN',
    defaults: DEFAULTS.mixln,
    choices: { depth: [12, 24, 48], seeds: [1, 2, 4, 8] },
  },
  layerscale: {
    trains: true,
    title: 'Touvron et al. (2021), LayerScale',
    defaults: DEFAULTS.layerscale,
    choices: { depth: [12, 18, 24, 36] },
  },
  dwa: {
    trains: true,
    title: 'Pagliardini et al. (2024), DenseFormer',
    defaults: DEFAULTS.dwa,
    choices: { depth: [4, 8, 12] },
  },
};

export const PANEL_IDS = Object.keys(PANELS);

/** The article's six papers (PANELS' `article`); the rest answer its open question. */
export const ARTICLE_PANELS = PANEL_IDS.filter((id) => PANELS[id].article);

/** The panels whose computation trains (PANELS' `trains`). */
export const TRAINING_PANELS = PANEL_IDS.filter((id) => PANELS[id].trains);

// The weights Figure 3's panel can show; 'all' is the norm of the gradient of
// every weight of the block together.
export const FIG3_WEIGHTS = {
  all: 'all weights of the block',
  w1: 'W₁ (FFN, first)',
  w2: 'W₂ (FFN, second)',
  wq: 'W_Q',
  wk: 'W_K',
  wv: 'W_V',
  wo: 'W_O',
};

// Criteria, shared by the captions and the tests.
export const CRITERIA = {
  theorem1: { post_ln: { claimed: 0, tol: 0.15 }, pre_ln: { claimed: -0.5, tol: 0.15 } },
  figure3: { rising: 1.2, flat: 1.5 }, // Post-LN top/bottom >= 1.2; Pre-LN within 1/1.5..1.5
  lemma2: { slope: 0.5, slopeTol: 0.05, worst: 0.1 },
  deepnet: { small: 2 }, // "within a small factor": max/min over layers <= 2
  gpt2: { near: 1.5, flatSlope: 0.1, preSlope: 0.5, preTol: 0.15 },
  veit: {}, // 95% of the gradient from paths shorter than U/2
  rezero: { exact: 1e-6 }, // every |g_l / g_L - 1| and |RMS h_l / RMS h_0 - 1| <= 1e-6 (float32 sums of zeros)
  lns: { slopeShare: 0.5 }, // LNS's log-log slope of Var(h_L)/Var(h_0) at most half Pre-LN's, and below it at every L
  mixln: { margin: 0.9 }, // Mix-LN's max/min of the block gradients at most 0.9x Post-LN's and 0.9x Pre-LN's
  layerscale: { about: 2, same: 1e-4 }, // every block's ratio / eps within 1/2..2; block 1's attention unit exactly eps x Pre-LN's
  // at init DenseFormer's numbers are Pre-LN's to the bit; trained, the late blocks (l > L/2) take at
  // least a tenth of their own weight from layers two or more back, and more from the embedding
  // than from each of their other earlier layers (dwa-weights.js's dwaFacts)
  dwa: { reuse: 0.1, embedding: 1 },
};

export function spread(values) {
  let lo = Infinity,
    hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return hi / lo; // Infinity when a value is 0
}

// ---------------------------------------------------------------- verdicts

/** Path-length quantiles of a distribution over k = 0..U: the first k where the cumulative share reaches q. */
export function quantileLength(weights, q) {
  const sum = weights.reduce((s, v) => s + v, 0);
  let cum = 0;
  for (let k = 0; k < weights.length; k++) {
    cum += weights[k];
    if (cum >= q * sum) return k;
  }
  return weights.length - 1;
}

export function pathSummary(r) {
  const U = r.units;
  let peak = 0;
  for (let k = 0; k <= U; k++) if (r.total[k] > r.total[peak]) peak = k;
  const sum = r.total.reduce((s, v) => s + v, 0);
  const shorter = r.total.reduce((s, v, k) => (k < U / 2 ? s + v : s), 0) / sum;
  return {
    k05: quantileLength(r.total, 0.05),
    k95: quantileLength(r.total, 0.95),
    peak,
    shorter,
    count05: quantileLength(r.count, 0.05),
    count95: quantileLength(r.count, 0.95),
  };
}

/** Coefficient of variation, the standard deviation over the mean (population SD). */
export function variation(values) {
  const m = values.reduce((s, v) => s + v, 0) / values.length;
  const v = values.reduce((s, x) => s + (x - m) ** 2, 0) / values.length;
  return Math.sqrt(v) / m;
}

/** The largest |v / ref - 1| over `values`. */
export const worstDeviation = (values, ref) => values.reduce((m, v) => Math.max(m, Math.abs(v / ref - 1)), 0);

/** How far the values stray from 1, as a factor: max over values of max(v, 1/v). */
export const worstFactor = (values) => values.reduce((m, v) => Math.max(m, v, 1 / v), 1);

const verdictOf = (oks) => (oks.every(Boolean) ? 'holds' : oks.some(Boolean) ? 'partly' : 'fails');

/**
 * The rows of the measured-vs-claimed table and the verdict:
 * {rows: [{key, label, measured, claimed, criterion, ok, value}], verdict, facts}.
 * `value` is the raw number (for tests); `measured`/`claimed` are display text.
 * `facts` holds the numbers the caption quotes. `view` picks what a panel shows
 * (Figure 3: which weight).
 */
export function summarize(id, result, view = {}) {
  const d = result.data;
  const p = result.params;
  const C = CRITERIA[id];
  const rows = [];
  let facts = { params: p };
  switch (id) {
    case 'theorem1': {
      for (const arch of ['post_ln', 'pre_ln']) {
        const s = d.fit[arch].slope;
        const { claimed, tol } = C[arch];
        rows.push({
          key: `${arch}_slope`,
          label: `${arch === 'post_ln' ? 'Post-LN' : 'Pre-LN'}: slope of log ‖∂L/∂W₂‖ over log L`,
          value: s,
          measured: fixed(s, 2),
          claimed: `${claimed === 0 ? '0' : fixed(claimed, 1)} ± ${tol}`,
          ok: Math.abs(s - claimed) <= tol,
        });
      }
      break;
    }
    case 'figure3': {
      const w = view.weight ?? 'all';
      const post = d.norms.post_ln[w],
        pre = d.norms.pre_ln[w];
      const rPost = post[5] / post[0],
        rPre = pre[5] / pre[0];
      facts = { ...facts, weight: w, post, pre, rPost, rPre };
      rows.push({
        key: 'post_ratio',
        label: 'Post-LN: layer 6 / layer 1',
        value: rPost,
        measured: `${fixed(rPost, 2)}×`,
        claimed: `rises (≥ ${C.rising}×)`,
        ok: rPost >= C.rising,
      });
      rows.push({
        key: 'pre_ratio',
        label: 'Pre-LN: layer 6 / layer 1',
        value: rPre,
        measured: `${fixed(rPre, 2)}×`,
        claimed: `roughly flat (${fixed(1 / C.flat, 2)}–${C.flat}×)`,
        ok: rPre >= 1 / C.flat && rPre <= C.flat,
      });
      break;
    }
    case 'lemma2': {
      const worst = d.pre.reduce((m, v, l) => Math.max(m, Math.abs(v / (1 + l / 2) - 1)), 0);
      rows.push({
        key: 'slope',
        label: 'Pre-LN: fitted slope of E‖x_l‖²/d over l',
        value: d.fit.slope,
        measured: fixed(d.fit.slope, 3),
        claimed: `0.5 ± ${C.slopeTol}`,
        ok: Math.abs(d.fit.slope - C.slope) <= C.slopeTol,
      });
      rows.push({
        key: 'worst',
        label: 'Pre-LN: largest deviation from 1 + l/2',
        value: worst,
        measured: percent(worst),
        claimed: `0 (≤ ${percent(C.worst)})`,
        ok: worst <= C.worst,
      });
      break;
    }
    case 'deepnet': {
      // The claim: DeepNorm's gradient and stream stay within a small factor
      // over the layers, Post-LN's gradient does not. Post-LN's stream is a row
      // of this page's own, shown for contrast and not judged: every Post-LN
      // block ends in a LayerNorm, so its stream RMS is 1 by construction.
      for (const arch of ['deepnorm', 'post_ln']) {
        const name = arch === 'deepnorm' ? 'DeepNorm' : 'Post-LN';
        const want = arch === 'deepnorm'; // DeepNorm within the factor, Post-LN not
        for (const [metric, label] of [
          ['grad_norm', 'gradient'],
          ['stream_rms', 'stream RMS'],
        ]) {
          const s = spread(d[arch][metric]);
          const claim = want || metric === 'grad_norm';
          rows.push({
            key: `${arch}_${metric}`,
            label: `${name}: ${label}, max/min over layers`,
            value: s,
            measured: fmtFactor(s),
            claimed: !claim
              ? '— (1 by construction; not the paper\u2019s claim)'
              : want
                ? `≤ ${C.small}×`
                : `> ${C.small}×`,
            ok: !claim ? null : want ? s <= C.small : s > C.small,
          });
        }
      }
      break;
    }
    case 'gpt2': {
      const worst = Math.max(...d.ratio.gpt2.map((r) => Math.max(r, 1 / r)));
      const sG = d.fit.gpt2.slope,
        sP = d.fit.pre_ln.slope;
      rows.push({
        key: 'gpt2_worst',
        label: 'GPT-2 init: top RMS / input RMS, farthest from 1',
        value: worst,
        measured: `${fixed(worst, 2)}×`,
        claimed: `near 1 (≤ ${C.near}×)`,
        ok: worst <= C.near,
      });
      rows.push({
        key: 'gpt2_slope',
        label: 'GPT-2 init: slope of log(top/input) over log L',
        value: sG,
        measured: fixed(sG, 2),
        claimed: `0 ± ${C.flatSlope}`,
        ok: Math.abs(sG) <= C.flatSlope,
      });
      rows.push({
        key: 'pre_slope',
        label: 'Pre-LN: slope of log(top/input) over log L',
        value: sP,
        measured: fixed(sP, 2),
        claimed: `0.5 ± ${C.preTol}`,
        ok: Math.abs(sP - C.preSlope) <= C.preTol,
      });
      break;
    }
    case 'veit': {
      const pre = pathSummary(d.pre_ln),
        res = pathSummary(d.residual);
      const U = d.pre_ln.units;
      rows.push({
        key: 'pre_k95',
        label: 'Pre-LN: 95% of the gradient from paths of length ≤',
        value: pre.k95,
        measured: String(pre.k95),
        claimed: `< ${U / 2} (the mean path length)`,
        ok: pre.k95 < U / 2,
      });
      rows.push({
        key: 'pre_range',
        label: 'Pre-LN: lengths carrying the central 90%',
        value: pre.k05,
        measured: `${pre.k05}–${pre.k95}`,
        claimed:
          U === 54
            ? '5–17 (of 54)'
            : `5–17 of 54, i.e. ${Math.round((5 * U) / 54)}–${Math.round((17 * U) / 54)} of ${U}`,
        ok: null,
      });
      rows.push({
        key: 'paths_range',
        label: 'Paths: lengths of the central 90% of all paths',
        value: pre.count05,
        measured: `${pre.count05}–${pre.count95}`,
        claimed: 'binomial, centred on U/2',
        ok: null,
      });
      rows.push({
        key: 'res_k95',
        label: 'Unnormalized residual (contrast): 95% of the gradient from paths ≤',
        value: res.k95,
        measured: String(res.k95),
        claimed: '— (not the paper\u2019s setting)',
        ok: null,
      });
      return { rows, verdict: pre.k95 < U / 2 ? 'holds' : 'fails', facts: { pre, res, U } };
    }
    case 'rezero': {
      const z = d.rezero,
        pre = d.pre_ln;
      const L = p.depth;
      const grad = worstDeviation(z.grad_norm, z.grad_norm[L]);
      const stream = worstDeviation(z.stream_rms, z.stream_rms[0]);
      const preGrad = worstDeviation(pre.grad_norm, pre.grad_norm[L]);
      facts = { ...facts, grad, stream, preGrad, preBottom: pre.rel_grad[0] };
      rows.push({
        key: 'rezero_grad',
        label: 'ReZero: largest |g_l / g_L − 1| over the layers',
        value: grad,
        measured: grad === 0 ? '0' : decimals(grad),
        claimed: `0 (≤ ${sci(C.exact)})`,
        ok: grad <= C.exact,
      });
      rows.push({
        key: 'rezero_stream',
        label: 'ReZero: largest |RMS(h_l) / RMS(h_0) − 1|',
        value: stream,
        measured: stream === 0 ? '0' : decimals(stream),
        claimed: `0, the identity (≤ ${sci(C.exact)})`,
        ok: stream <= C.exact,
      });
      rows.push({
        key: 'pre_ln_grad',
        label: 'Pre-LN (contrast): largest |g_l / g_L − 1|',
        value: preGrad,
        measured: decimals(preGrad),
        claimed: '— (the highway plus every branch)',
        ok: null,
      });
      // trained: the lab's ReZero preset, judged by the lab's own checks (shared/train-verdicts.js)
      if (d.trained) {
        const T = d.trained;
        const lab = presetVerdict('rezero', T);
        const [zCheck, plainCheck, resCheck] = lab.checks;
        const n = T.rezero.config.depth,
          steps = T.rezero.config.steps;
        const chance = T.rezero.task.chance;
        const last = (k) => T[k].logs.at(-1).heldout_loss;
        facts = { ...facts, lab, trainedDepth: n, steps, chance, line: halfway(T.rezero.task) };
        rows.push({
          key: 'trained_rezero',
          label: `Trained (the lab’s ReZero preset: ${n} MLP blocks, ${steps} steps): ReZero’s held-out loss (chance ${significant(chance, 3)})`,
          value: last('rezero'),
          measured: zCheck.measured,
          claimed: `trains (< ${significant(facts.line, 3)}, halfway from chance to the optimum)`,
          ok: zCheck.holds,
        });
        rows.push({
          key: 'trained_plain',
          label: `The plain stack, ${n} layers, same training: held-out loss`,
          value: last('plain'),
          measured: plainCheck.measured,
          claimed: `does not train (> ${significant(0.9 * chance, 3)}, within 10% of chance)`,
          ok: plainCheck.holds,
        });
        rows.push({
          key: 'trained_residual',
          label: `The residual stack without a norm, ${n} blocks: held-out loss`,
          value: Number.isFinite(last('residual')) ? last('residual') : Infinity, // a loss that is not finite as ∞
          measured: resCheck.measured,
          claimed: 'does not train (not below halfway)',
          ok: resCheck.holds,
        });
      }
      break;
    }
    case 'lns': {
      const sL = d.fit.lns.slope,
        sP = d.fit.pre_ln.slope;
      const ratios = d.variance.lns.map((v, i) => v / d.variance.pre_ln[i]);
      const worst = Math.max(...ratios);
      facts = { ...facts, ratios, worst };
      rows.push({
        key: 'lns_slope',
        label: 'LNS: slope of log(Var h_L / Var h_0) over log L',
        value: sL,
        measured: fixed(sL, 2),
        claimed: `≤ ${fixed(C.slopeShare * sP, 2)} (half of Pre-LN’s)`,
        ok: sL <= C.slopeShare * sP,
      });
      rows.push({
        key: 'pre_ln_slope',
        label: 'Pre-LN: slope of log(Var h_L / Var h_0) over log L',
        value: sP,
        measured: fixed(sP, 2),
        claimed: '— (the growth LNS is to bound; 1 is Var ∝ L)',
        ok: null,
      });
      rows.push({
        key: 'lns_over_pre',
        label: 'LNS’s top variance over Pre-LN’s, largest over the depths',
        value: worst,
        measured: `${fixed(worst, 2)}×`,
        claimed: '< 1 at every depth',
        ok: worst < 1,
      });
      break;
    }
    case 'mixln': {
      const s = Object.fromEntries(Object.entries(d.norms).map(([a, v]) => [a, spread(v)]));
      const cv = Object.fromEntries(Object.entries(d.norms).map(([a, v]) => [a, variation(v)]));
      facts = { ...facts, spread: s, cv };
      for (const [arch, name] of [
        ['post_ln', 'Post-LN'],
        ['pre_ln', 'Pre-LN'],
        ['mix_ln', 'Mix-LN'],
      ])
        rows.push({
          key: `${arch}_spread`,
          label: `${name}: max/min of the block gradients (CV ${fixed(cv[arch], 2)})`,
          value: s[arch],
          measured: fmtFactor(s[arch]),
          claimed: arch === 'mix_ln' ? '— (judged in the two rows below)' : '—',
          ok: null,
        });
      for (const [arch, name] of [
        ['post_ln', 'Post-LN'],
        ['pre_ln', 'Pre-LN'],
      ]) {
        const r = s.mix_ln / s[arch];
        rows.push({
          key: `mix_over_${arch}`,
          label: `Mix-LN’s max/min over ${name}’s`,
          value: r,
          measured: `${fixed(r, 3)}×`,
          claimed: `≤ ${C.margin} (more uniform by 10% or more)`,
          ok: r <= C.margin,
        });
      }
      // after training: the lab's Late layers runs, the same measure at their last logged step
      // (shared/train-verdicts.js's gradSpread) and the lab's check (Mix-LN's below both)
      if (d.trained) {
        const T = d.trained;
        const ts = Object.fromEntries(Object.entries(T).map(([k, run]) => [k, gradSpread(run)]));
        const steps = T.mix_ln.logs.at(-1).step;
        const names = {
          post_ln_warmup: `Post-LN (warmup ${T.post_ln_warmup.config.warmup})`,
          pre_ln: 'Pre-LN',
          mix_ln: 'Mix-LN',
        };
        facts = { ...facts, trainedSpread: ts, steps, trainedDepth: T.mix_ln.config.depth, names };
        for (const k of ['post_ln_warmup', 'pre_ln', 'mix_ln'])
          rows.push({
            key: `trained_${k}_spread`,
            label: `After training (the lab’s Late layers run, ${T[k].config.depth} blocks, step ${steps}), ${names[k]}: max/min of the block gradients`,
            value: ts[k],
            measured: fmtFactor(ts[k]),
            claimed: k === 'mix_ln' ? '— (judged in the two rows below)' : '—',
            ok: null,
          });
        for (const k of ['post_ln_warmup', 'pre_ln']) {
          const r = ts.mix_ln / ts[k];
          rows.push({
            key: `trained_mix_over_${k}`,
            label: `After training: Mix-LN’s max/min over ${names[k]}’s`,
            value: r,
            measured: `${fixed(r, 3)}×`,
            claimed: '< 1 (more uniform, the lab’s check)',
            ok: r < 1,
          });
        }
      }
      break;
    }
    case 'layerscale': {
      const eps = d.epsilon;
      const ls = d.layerscale.update_ratio.map((v) => v / eps);
      const pre = d.pre_ln.update_ratio;
      const first = d.layerscale.attn_update_ratio[0] / (eps * d.pre_ln.attn_update_ratio[0]);
      const worst = worstFactor(ls);
      facts = {
        ...facts,
        eps,
        ls,
        lo: Math.min(...ls),
        hi: Math.max(...ls),
        preLo: Math.min(...pre),
        preHi: Math.max(...pre),
      };
      rows.push({
        key: 'ls_about_eps',
        label: `LayerScale: update ratio / ε (ε = ${sci(eps)}), farthest from 1 over the blocks (${fixed(facts.lo, 2)}–${fixed(facts.hi, 2)})`,
        value: worst,
        measured: `${fixed(worst, 2)}×`,
        claimed: `about 1 (≤ ${C.about}×)`,
        ok: worst <= C.about,
      });
      rows.push({
        key: 'ls_first',
        label: 'Block 1’s attention: LayerScale’s ratio over ε × Pre-LN’s',
        value: first,
        measured: fixed(first, 6),
        claimed: `1 (same input and weights; ± ${sci(C.same)})`,
        ok: Math.abs(first - 1) <= C.same,
      });
      rows.push({
        key: 'pre_ln_range',
        label: 'Pre-LN (contrast): update ratio, lowest–highest over the blocks',
        value: facts.preLo,
        measured: `${decimals(facts.preLo)}–${decimals(facts.preHi)}`,
        claimed: '— (ε = 1 in effect)',
        ok: null,
      });
      // trained: the lab's Late layers run of LayerScale, its lesion's contributions ‖u_l‖/‖h_(l−1)‖
      // (the update ratio above) at init and at the end, and its gates λ
      if (d.trained) {
        const T = d.trained.layerscale;
        const eps0 = T.gates.init[0];
        const initOver = Array.from(T.lesion.contribution_init, (v) => v / eps0);
        const endOver = Array.from(T.lesion.contribution, (v) => v / eps0);
        const gateOver = Array.from(T.gates.magnitude, (v, k) => v / T.gates.init[k]);
        const n = T.config.depth,
          steps = T.logs.at(-1).step;
        const trained = {
          eps: eps0,
          depth: n,
          steps,
          loss: T.logs.at(-1).heldout_loss,
          chance: T.task.chance,
          initWorst: worstFactor(initOver),
          initLo: Math.min(...initOver),
          initHi: Math.max(...initOver),
          endMedian: median(endOver),
          endLo: Math.min(...endOver),
          endHi: Math.max(...endOver),
          gateMedian: median(gateOver),
          gateLo: Math.min(...gateOver),
          gateHi: Math.max(...gateOver),
          units: gateOver.length,
        };
        facts = { ...facts, trained };
        rows.push({
          key: 'trained_init_about_eps',
          label: `The lab’s Late layers run (${n} blocks, d = ${T.config.width}, ε = ${sci(eps0)}) at initialization: update ratio / ε, farthest from 1 (${fixed(trained.initLo, 2)}–${fixed(trained.initHi, 2)})`,
          value: trained.initWorst,
          measured: `${fixed(trained.initWorst, 2)}×`,
          claimed: `about 1 (≤ ${C.about}×)`,
          ok: trained.initWorst <= C.about,
        });
        rows.push({
          key: 'trained_end_over_eps',
          label: `The same run after ${steps} steps: update ratio / ε, median over the blocks (${fixed(trained.endLo, 2)}–${fixed(trained.endHi, 2)})`,
          value: trained.endMedian,
          measured: `${fixed(trained.endMedian, 2)}×`,
          claimed: '— (how it moves with training)',
          ok: null,
        });
        rows.push({
          key: 'trained_gate_over_eps',
          label: `Its gates after ${steps} steps: mean |λ| of each of the ${trained.units} units over ε, median (${fixed(trained.gateLo, 2)}–${fixed(trained.gateHi, 2)})`,
          value: trained.gateMedian,
          measured: `${fixed(trained.gateMedian, 2)}×`,
          claimed: '— (λ = ε at init)',
          ok: null,
        });
      }
      break;
    }
    case 'dwa': {
      const { init, trained } = d;
      const L = trained.weights.length;
      const f = dwaFacts(trained.weights);
      facts = { ...facts, ...f, L };
      const zero = (v) => (v === 0 ? '0' : decimals(v));
      rows.push({
        key: 'init_simulate',
        label: `At initialization: largest |DenseFormer − Pre-LN| over the ${init.simulate.count} per-layer numbers of the engine’s analysis (gradient, stream RMS, update ratios, six weight gradients)`,
        value: init.simulate.max,
        measured: zero(init.simulate.max),
        claimed: '0, exactly (w_(l,l) = 1, every other w = 0)',
        ok: init.simulate.max === 0,
      });
      rows.push({
        key: 'init_first_step',
        label: `The first training step: largest |difference| of the loss and the ${init.firstStep.count - 1} per-layer numbers it logs`,
        value: init.firstStep.max,
        measured: zero(init.firstStep.max),
        claimed: '0, exactly',
        ok: init.firstStep.max === 0,
      });
      rows.push({
        key: 'init_mix_grad',
        label: 'The averaging weights’ own gradient at that step, √(‖g‖² of DenseFormer − ‖g‖² of Pre-LN)',
        value: init.mixGrad,
        measured: decimals(init.mixGrad),
        claimed: '— (not 0: what moves them off the identity)',
        ok: null,
      });
      rows.push({
        key: 'late_reuse',
        label: `After ${trained.steps} steps, blocks ${f.from}–${L}: weight on layers two or more back over the weight on themselves, Σ_(j≤l−2) |w_(l,j)| / |w_(l,l)|, mean`,
        value: f.reuse,
        measured: fixed(f.reuse, 3),
        claimed: `≥ ${C.reuse} (distant layers reused)`,
        ok: f.reuse >= C.reuse,
      });
      rows.push({
        key: 'late_embedding',
        label: `Blocks ${f.from}–${L}: mean |w_(l,0)| (the embedding) over the mean |w_(l,j)| of their other earlier layers`,
        value: f.embedding,
        measured: `${fixed(f.embedding, 2)}×`,
        claimed: `> ${C.embedding} (the embedding read most)`,
        ok: f.embedding > C.embedding,
      });
      rows.push({
        key: 'trained_loss',
        label: `DenseFormer’s held-out loss after ${trained.steps} steps (chance ${fixed(trained.chance, 2)})`,
        value: trained.heldout_loss,
        measured: significant(trained.heldout_loss, 3),
        claimed: '— (it must train for its weights to say anything)',
        ok: null,
      });
      break;
    }
    default:
      throw new RangeError(`unknown reproduction: ${id}`);
  }
  return { rows, verdict: verdictOf(rows.filter((r) => r.ok !== null).map((r) => r.ok)), facts };
}
