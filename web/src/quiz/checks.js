// Live-experiment checks: a bank item's `experiment.check` names a claim about the engine's numbers,
// and the UI may show "confirmed by the engine" only when runCheck() says so, on the numbers the
// engine produced for that item's setting. A check looks at every number its claim is about, so a
// wrong claim (or a doctored or broken result) comes out 'refuted', never 'confirmed'.
//
// runCheck(id, data) -> {status, measured}
//   status   'confirmed' | 'refuted' | 'not-applicable' (unknown id, setting outside the check's
//            preconditions, a needed arch missing from the results, unusable data)
//   measured one sentence with the actual numbers
//   data     simulation checks: the document rn.simulate(setting) returns ({config, results});
//            'layernorm-constant': {x, gamma, beta, out} with out = rn.normToken('layernorm', x,
//            gamma, beta) (LAYERNORM_PROBE is the input to use).
// Non-finite numbers never confirm a claim, except that an overflow to +Infinity counts as "exploded".
//
// Thresholds (THRESHOLDS below), with the engine's numbers for the bank's settings (default width 64):
//   gain0-identity      for every arch with a bare identity path (residual, pre_ln, pre_rms,
//                       sandwich, gpt2): |grad_norm[l] / grad_norm[L] - 1| < 1e-5 and
//                       |stream_rms[l] / stream_rms[0] - 1| < 1e-5 for every l. At gain 0 every
//                       branch is exactly zero and the skip copies the stream, so the curves are
//                       flat to the bit (measured: exactly 0); 1e-5 leaves room for float32 rounding
//                       in a future engine while any real branch contribution is far above it.
//   plain-explodes      plain grad_norm[0] / grad_norm[L] > 100: "orders of magnitude", the bank's
//                       words (gain 1.2, L = 50 gives 1.6e3).
//   plain-vanishes      plain grad_norm[0] / grad_norm[L] < 0.01 (gain 0.9, L = 50, linear
//                       orthogonal: 0.005; gain 0.8, L = 96: 4e-11); and, when the setting also holds
//                       an arch with an identity path, that arch's gradient never falls below 0.5
//                       of the top value ("about 1 or above", the contrast the items draw).
//   preln-stream-grows  pre_ln stream_rms[L] / stream_rms[0] >= 2, still rising in the second half
//                       (stream_rms[L] >= stream_rms[L/2]); post_ln |stream_rms[l] - 1| < 1e-3 for
//                       every l >= 1 (a LayerNorm output with gamma 1, beta 0 has RMS
//                       sqrt(var / (var + eps)), 1 - 5e-6 for unit variance). Measured: x9.2 at L = 96.
//   postln-norms-sum    the norm of a Post-LN block is on the sum, not on the branch output: post_ln
//                       |stream_rms[l] - 1| < 1e-3 for every l >= 1 (as above), while sandwich, whose
//                       second norm is on the branch output before the add, is not held:
//                       sandwich stream_rms[L] / stream_rms[0] >= 2 (L = 96: x9.2).
//   postln-damps        LayerNorm's division by sigma bounds what would explode: the residual stack
//                       without a norm explodes (stream_rms[L] / stream_rms[0] > 1000 and
//                       grad_norm[0] / grad_norm[L] > 1000; gain 2, L = 48: 6e15 and 1.9e16), while
//                       post_ln's stream is within 1e-3 of 1 after every block and its gradient
//                       spread max_l / min_l grad_norm is at most 10, the complement of
//                       postln-uneven's "more than an order of magnitude" (gain 2, L = 48: x5.3).
//   gpt2-variance-two   the 1/sqrt(L) output scaling (one branch per block here, 1/sqrt(2L) in a
//                       transformer's 2L branches) makes the branches add variance 1 in total, so the
//                       stream ends at the input's variance plus 1: |(stream_rms[L] / stream_rms[0])^2
//                       - 2| <= 0.5, and (stream_rms[l] / stream_rms[0])^2 <= 2.5 at every l (bounded on
//                       the way, not only at the end). Measured at gain 1: 2.05 (L = 8), 2.14 (96),
//                       2.21 (384). When residual is in the setting it must explode (as in
//                       postln-damps), the contrast the item draws. Gain 1 only (a precondition).
//   postln-uneven       post_ln max_l grad_norm / min_l grad_norm > 10: more than an order of
//                       magnitude across depth (512 layers: 42x; 1024: 1.2e4x). At 96 layers the
//                       spread is 3.3x, so a shallow setting is refuted, as the items say it should.
//                       When pre_ln is in the setting, its gradient must not collapse: never below 0.5
//                       of the top value.
//   layernorm-constant  x constant (else not-applicable); var == 0 up to rounding, every output
//                       finite and |y_i - beta_i| <= 1e-12 + |gamma_i| rstd d 1e-15 max(1, |x_i|)
//                       (the rounding of the mean of d equal doubles, amplified by rstd = 1/sqrt(eps)).

import { CHECKS, IDENTITY_ARCHS } from './validate.js';
import { significant } from '../shared/format.js';

export const THRESHOLDS = Object.freeze({
  identityTolerance: 1e-5,
  plainExplodes: 100,
  plainVanishes: 0.01,
  skipFloor: 0.5,
  prelnGrowth: 2,
  postlnUnitTolerance: 1e-3,
  residualExplodes: 1000,
  postlnSpread: 10,
  gpt2Variance: 2,
  gpt2VarianceTolerance: 0.5,
});

export { IDENTITY_ARCHS };

/** The input for the 'layernorm-constant' check: a constant vector, non-trivial gamma and beta. */
export const LAYERNORM_PROBE = Object.freeze({
  kind: 'layernorm',
  x: Object.freeze([3, 3, 3, 3, 3, 3, 3, 3]),
  gamma: Object.freeze([1, 0.5, 2, 1.5, 1, 0.5, 2, 1.5]),
  beta: Object.freeze([0.5, -1, 0, 2, 0.25, -0.5, 1, -2]),
});

const result = (status, measured) => ({ status, measured });
const na = (why) => result('not-applicable', why);
const verdict = (ok, measured) => result(ok ? 'confirmed' : 'refuted', measured);
const isNum = (v) => typeof v === 'number' && !Number.isNaN(v);
const allFinite = (a) => Array.from(a).every(Number.isFinite);

// Per-layer arrays of one arch, or null if missing or malformed.
function series(out, arch) {
  const r = out && out.results && out.results[arch];
  if (!r) return null;
  const g = r.grad_norm;
  const s = r.stream_rms;
  if (!g || !s || typeof g.length !== 'number' || g.length < 2 || s.length !== g.length) return null;
  return { g: Array.from(g), s: Array.from(s), L: g.length - 1 };
}

// Ratio a / b that treats an overflow to +Infinity in a as "huge" (and NaN as NaN).
const ratio = (a, b) => (isNum(a) && isNum(b) && b > 0 ? a / b : NaN);

// min_l g[l] / g[L] for an arch with an identity path (the "does not collapse" contrast).
function floorOf(sr) {
  const top = sr.g[sr.L];
  if (!allFinite(sr.g) || !(top > 0)) return NaN;
  return Math.min(...sr.g.map((v) => v / top));
}

// max_l>=1 |stream_rms[l] - 1|: how far a stream normed after every block is from RMS 1 (NaN if
// any value is not finite).
function unitDeviation(sr) {
  if (!allFinite(sr.s)) return NaN;
  let dev = 0;
  for (let l = 1; l <= sr.L; l++) dev = Math.max(dev, Math.abs(sr.s[l] - 1));
  return dev;
}

// The un-normed residual stack explodes: stream and gradient both grow by more than the threshold.
function residualExplosion(sr) {
  const growth = ratio(sr.s[sr.L], sr.s[0]);
  const grad = ratio(sr.g[0], sr.g[sr.L]);
  const t = THRESHOLDS.residualExplodes;
  return {
    ok: growth > t && grad > t,
    text: `residual over ${sr.L} layers: stream RMS ×${significant(growth)}, grad_norm[0] / grad_norm[${sr.L}] = ${significant(grad)} (exploding needs both > ${significant(t)})`,
  };
}

function contrast(out, archs) {
  const parts = [];
  let ok = true;
  for (const a of archs) {
    const sr = series(out, a);
    if (!sr) continue;
    const f = floorOf(sr);
    const good = f >= THRESHOLDS.skipFloor;
    ok &&= good;
    parts.push(
      `${a} never falls below ${significant(f)} of its top value${good ? '' : ` (needs ≥ ${THRESHOLDS.skipFloor})`}`,
    );
  }
  return { ok, text: parts.length ? `; ${parts.join('; ')}` : '' };
}

const CHECKERS = {
  'gain0-identity'(out) {
    const archs = IDENTITY_ARCHS.filter((a) => series(out, a));
    if (archs.length === 0) return na(`none of ${IDENTITY_ARCHS.join(', ')} is in the results`);
    let worstG = 0;
    let worstS = 0;
    let layers = 0;
    for (const a of archs) {
      const { g, s, L } = series(out, a);
      layers = L + 1;
      for (let l = 0; l <= L; l++) {
        worstG = Math.max(worstG, Math.abs(ratio(g[l], g[L]) - 1));
        worstS = Math.max(worstS, Math.abs(ratio(s[l], s[0]) - 1));
      }
      if (!allFinite(g) || !allFinite(s)) worstG = NaN;
    }
    const tol = THRESHOLDS.identityTolerance;
    const ok = worstG < tol && worstS < tol;
    return verdict(
      ok,
      `${archs.join(', ')} over all ${layers} layers: max |grad_norm[l] / grad_norm[${layers - 1}] − 1| = ${significant(worstG)}, max |stream_rms[l] / stream_rms[0] − 1| = ${significant(worstS)} (identity needs both < ${significant(tol)})`,
    );
  },

  'plain-explodes'(out) {
    const sr = series(out, 'plain');
    if (!sr) return na('plain is not in the results');
    const r = ratio(sr.g[0], sr.g[sr.L]);
    const ok = r > THRESHOLDS.plainExplodes; // +Infinity (overflow) counts, NaN does not
    return verdict(
      ok,
      `plain: grad_norm[0] / grad_norm[${sr.L}] = ${significant(r)} (exploding needs > ${significant(THRESHOLDS.plainExplodes)})`,
    );
  },

  'plain-vanishes'(out) {
    const sr = series(out, 'plain');
    if (!sr) return na('plain is not in the results');
    const r = ratio(sr.g[0], sr.g[sr.L]);
    const c = contrast(out, IDENTITY_ARCHS);
    const ok = Number.isFinite(r) && r < THRESHOLDS.plainVanishes && c.ok;
    return verdict(
      ok,
      `plain: grad_norm[0] / grad_norm[${sr.L}] = ${significant(r)} (vanishing needs < ${significant(THRESHOLDS.plainVanishes)})${c.text}`,
    );
  },

  'preln-stream-grows'(out) {
    const pre = series(out, 'pre_ln');
    const post = series(out, 'post_ln');
    if (!pre || !post) return na('needs pre_ln and post_ln in the results');
    const growth = ratio(pre.s[pre.L], pre.s[0]);
    const half = pre.s[Math.floor(pre.L / 2)];
    const rising = pre.s[pre.L] >= half;
    const dev = unitDeviation(post);
    const ok =
      Number.isFinite(growth) && growth >= THRESHOLDS.prelnGrowth && rising && dev < THRESHOLDS.postlnUnitTolerance;
    return verdict(
      ok,
      `pre_ln stream RMS ${significant(pre.s[0])} → ${significant(half)} (layer ${Math.floor(pre.L / 2)}) → ${significant(pre.s[pre.L])} (layer ${pre.L}), ×${significant(growth)} (growing needs ≥ ×${THRESHOLDS.prelnGrowth} and still rising); post_ln stream RMS within ${significant(dev)} of 1 after every block (needs < ${significant(THRESHOLDS.postlnUnitTolerance)})`,
    );
  },

  'postln-norms-sum'(out) {
    const post = series(out, 'post_ln');
    const sand = series(out, 'sandwich');
    if (!post || !sand) return na('needs post_ln and sandwich in the results');
    const dev = unitDeviation(post);
    const growth = ratio(sand.s[sand.L], sand.s[0]);
    const tol = THRESHOLDS.postlnUnitTolerance;
    const ok = dev < tol && Number.isFinite(growth) && growth >= THRESHOLDS.prelnGrowth;
    return verdict(
      ok,
      `post_ln (norm on the sum) stream RMS within ${significant(dev)} of 1 after every block (needs < ${significant(tol)}); sandwich (norm on the branch output, before the add) stream RMS ×${significant(growth)} over ${sand.L} layers (not held: needs ≥ ×${THRESHOLDS.prelnGrowth})`,
    );
  },

  'postln-damps'(out) {
    const res = series(out, 'residual');
    const post = series(out, 'post_ln');
    if (!res || !post) return na('needs residual and post_ln in the results');
    const boom = residualExplosion(res);
    const dev = unitDeviation(post);
    const spread = allFinite(post.g) && post.g.every((v) => v > 0) ? Math.max(...post.g) / Math.min(...post.g) : NaN;
    const tol = THRESHOLDS.postlnUnitTolerance;
    const ok = boom.ok && dev < tol && spread <= THRESHOLDS.postlnSpread;
    return verdict(
      ok,
      `${boom.text}; post_ln stream RMS within ${significant(dev)} of 1 after every block (needs < ${significant(tol)}), gradient spread ×${significant(spread)} across its ${post.L + 1} layers (bounded needs ≤ ×${THRESHOLDS.postlnSpread})`,
    );
  },

  'gpt2-variance-two'(out) {
    const sr = series(out, 'gpt2');
    if (!sr) return na('gpt2 is not in the results');
    const v = (l) => ratio(sr.s[l], sr.s[0]) ** 2;
    const end = v(sr.L);
    let top = 0;
    for (let l = 0; l <= sr.L; l++) top = Math.max(top, v(l));
    if (!allFinite(sr.s)) top = NaN;
    const { gpt2Variance: target, gpt2VarianceTolerance: tol } = THRESHOLDS;
    let ok = Math.abs(end - target) <= tol && top <= target + tol;
    let tail = '';
    const res = series(out, 'residual');
    if (res) {
      const boom = residualExplosion(res);
      ok &&= boom.ok;
      tail = `; ${boom.text}`;
    }
    return verdict(
      ok,
      `gpt2 over ${sr.L} layers: stream RMS ×${significant(Math.sqrt(end))}, variance ×${significant(end)} of the input's (needs ${target} ± ${tol}), at most ×${significant(top)} on the way (needs ≤ ${target + tol})${tail}`,
    );
  },

  'postln-uneven'(out) {
    const sr = series(out, 'post_ln');
    if (!sr) return na('post_ln is not in the results');
    let spread = NaN;
    let lo = 0;
    let hi = 0;
    if (allFinite(sr.g) && sr.g.every((v) => v > 0)) {
      lo = Math.min(...sr.g);
      hi = Math.max(...sr.g);
      spread = hi / lo;
    }
    const c = contrast(out, ['pre_ln']);
    const ok = spread > THRESHOLDS.postlnSpread && c.ok;
    return verdict(
      ok,
      `post_ln: over ${sr.L + 1} layers the gradient norm ranges from ${significant(lo)} (layer ${sr.g.indexOf(lo)}) to ${significant(hi)} (layer ${sr.g.indexOf(hi)}), a spread of ×${significant(spread)} (uneven needs > ×${THRESHOLDS.postlnSpread})${c.text}`,
    );
  },

  'layernorm-constant'(data) {
    const { x, gamma, beta, out } = data || {};
    if (!x || !gamma || !beta || !out || !out.y) return na('needs the input {x, gamma, beta} and the normToken output');
    const xs = Array.from(x);
    const gs = Array.from(gamma);
    const bs = Array.from(beta);
    const ys = Array.from(out.y);
    const d = xs.length;
    if (d === 0 || gs.length !== d || bs.length !== d || ys.length !== d) return na('input and output lengths differ');
    if (!allFinite(xs) || !xs.every((v) => v === xs[0])) return na('the input is not a constant vector');
    const c = Math.max(1, Math.abs(xs[0]));
    const rstd = Number.isFinite(out.rstd) ? out.rstd : 1 / Math.sqrt(1e-5);
    let worst = 0;
    let within = true;
    for (let i = 0; i < d; i++) {
      const err = Math.abs(ys[i] - bs[i]);
      const tol = 1e-12 + Math.abs(gs[i]) * rstd * d * 1e-15 * c;
      if (!(err <= tol)) within = false;
      worst = Math.max(worst, Number.isNaN(err) ? Infinity : err);
    }
    const varOk = isNum(out.var) && Math.abs(out.var) <= 1e-12 * c * c;
    const ok = within && varOk && allFinite(ys);
    return verdict(
      ok,
      `LayerNorm of a constant vector (${d} features, all ${significant(xs[0])}): variance ${significant(out.var)}, outputs ${allFinite(ys) ? 'all finite' : 'NOT all finite'}, max |y − β| = ${significant(worst)}`,
    );
  },
};

/** The check ids runCheck() knows (the same as validate.js's). */
export const CHECK_IDS = Object.freeze(Object.keys(CHECKERS));

/**
 * Runs one check. Never throws.
 * @param {string} id a check id from the bank
 * @param {object} data see the header: a simulate() document, or {x, gamma, beta, out}
 * @returns {{status: 'confirmed'|'refuted'|'not-applicable', measured: string}}
 */
export function runCheck(id, data) {
  if (typeof id !== 'string' || !Object.prototype.hasOwnProperty.call(CHECKERS, id)) {
    return na(`unknown check ${JSON.stringify(String(id).slice(0, 40))}`);
  }
  try {
    const spec = CHECKS[id];
    if (spec && spec.kind === 'setting') {
      const cfg = data && data.config;
      if (!cfg || !Array.isArray(cfg.arch) || typeof cfg.gain !== 'number') return na('the results carry no config');
      const why = spec.need(cfg);
      if (why) return na(`this check ${why}`);
    }
    return CHECKERS[id](data);
  } catch (e) {
    return na(`the check could not read the results (${e && e.message ? String(e.message).slice(0, 80) : 'error'})`);
  }
}

/**
 * Runs the engine for a bank item and checks its claim. Never throws (an engine error gives
 * 'not-applicable' with the message).
 * @param {object} item a bank item
 * @param {{simulate?: Function, normToken?: Function}} engine functions, possibly async:
 *   simulate(config) -> {config, results} (or the worker client's {out: {config, results}});
 *   normToken(kind, x, gamma, beta) -> {y, mean, var, rstd} (rn.normToken)
 * @returns {Promise<{status, measured}>}
 */
export async function checkItem(item, { simulate, normToken } = {}) {
  const exp = item && item.experiment;
  if (!exp || !exp.check) return na('this item has no check');
  try {
    if (exp.check === 'layernorm-constant') {
      if (typeof normToken !== 'function') return na('no normToken function was given');
      const { kind, x, gamma, beta } = LAYERNORM_PROBE;
      const out = await normToken(kind, x, gamma, beta);
      return runCheck(exp.check, { x, gamma, beta, out });
    }
    if (!exp.setting) return na('this item has no setting');
    if (typeof simulate !== 'function') return na('no simulate function was given');
    const out = await simulate(exp.setting);
    return runCheck(exp.check, out && out.results ? out : out && out.out);
  } catch (e) {
    return na(`the engine could not run it: ${e && e.message ? String(e.message).slice(0, 120) : 'error'}`);
  }
}
