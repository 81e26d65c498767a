// The sentence under each panel, written from the numbers (pure: text only, no
// DOM), so it says whether the claim holds at the settings that ran.
import { decimals, fixed, fmtFactor } from '../shared/format.js';
import { FIG3_WEIGHTS, summarize } from './repro.js';

export const VERDICT_TEXT = { holds: 'Holds', partly: 'Holds in part', fails: 'Does not hold' };

const LEAD = {
  holds: 'The claim holds at these settings.',
  partly: 'The claim holds only in part at these settings.',
  fails: 'The claim does not hold at these settings.',
};

const trend = (r, up = 1.2) => (r >= up ? 'rises' : r <= 1 / up ? 'falls' : 'stays roughly level');

/** {verdict, lead, text} for a panel's result; `view` as in summarize(). */
export function caption(id, result, view = {}) {
  const s = summarize(id, result, view);
  const d = result.data;
  const p = result.params;
  let text;
  switch (id) {
    case 'theorem1': {
      const first = d.depths[0],
        last = d.depths[d.depths.length - 1];
      const post = d.geomean.post_ln,
        pre = d.geomean.pre_ln;
      text =
        `Over L = ${d.depths.join(', ')} and ${p.seeds} seed${p.seeds > 1 ? 's' : ''}, the last block's ‖∂L/∂W₂‖ ` +
        `fits a log–log slope of ${fixed(d.fit.post_ln.slope, 2)} for Post-LN (claimed 0 ± 0.15) and ${fixed(d.fit.pre_ln.slope, 2)} ` +
        `for Pre-LN (claimed −0.5 ± 0.15): from L = ${first} to ${last}, Post-LN's goes from ${decimals(post[0])} to ` +
        `${decimals(post[post.length - 1])} and Pre-LN's from ${decimals(pre[0])} to ${decimals(pre[pre.length - 1])}. ` +
        'Post-LN\u2019s last block reads and writes a stream of unit RMS at any depth. Pre-LN ends in a LayerNorm ' +
        'that divides by the RMS of a stream grown to about √(1 + cL) (Lemma 2), and the last block\u2019s W₂ gradient ' +
        'is the gradient out of that division times a unit-size activation.';
      break;
    }
    case 'figure3': {
      const { weight: w, post, pre, rPost, rPre } = s.facts;
      text =
        `For ${FIG3_WEIGHTS[w]} at d = ${p.width}, Post-LN's gradient ${trend(rPost)} from ${decimals(post[0])} at layer 1 to ` +
        `${decimals(post[5])} at layer 6 (${fixed(rPost, 2)}×); Pre-LN's ${trend(rPre)}, from ${decimals(pre[0])} to ${decimals(pre[5])} ` +
        `(${fixed(rPre, 2)}×).`;
      if (rPre < 1 / 1.5)
        text +=
          ' In this engine Pre-LN\u2019s gradient falls toward the top instead of staying level: each pre-norm ' +
          'branch reads the stream divided by its RMS, which grows like √(1 + c l) (Lemma 2), so the gradient ' +
          'reaching block l, and with it the block\u2019s weight gradient, shrinks like 1/√(1 + c l). ' +
          'Theorem 1\u2019s 1/√L is the same law read at the last block.';
      if (rPost < 1.2)
        text +=
          ' Post-LN\u2019s rise needs the paper\u2019s width: at small d its per-layer gradients stay level ' +
          '(each LayerNorm\u2019s 1/σ and the branch\u2019s added Jacobian cancel on average); try d = 512.';
      break;
    }
    case 'lemma2': {
      const L = p.depth;
      text =
        `At l = ${L}, Pre-LN's E‖x_l‖²/d is ${fixed(d.pre[L], 2)} against the lemma's 1 + ${L}/2 = ${fixed(1 + L / 2, 1)}; ` +
        `the straight line through all ${L + 1} layers has slope ${fixed(d.fit.slope, 3)} (claimed 1/2) and no layer is ` +
        `more than ${fixed(100 * s.rows[1].value, 1)}% off 1 + l/2 (${p.seeds} seeds). Post-LN's is ` +
        `${fixed(d.post[L], 4)} at every layer after the first: a LayerNorm output has unit mean square, up to ε.`;
      break;
    }
    case 'deepnet': {
      const N = p.depth;
      const row = (k) => s.rows.find((r) => r.key === k).value;
      const g0 = d.post_ln.grad_norm[0] / d.post_ln.grad_norm[N];
      text =
        `With α = (2N)^¼ = ${fixed(d.alpha, 3)} and β = (8N)^−¼ = ${fixed(d.beta, 4)} for N = ${N}, DeepNorm's gradient ` +
        `varies by ${fmtFactor(row('deepnorm_grad_norm'))} over the ${N} blocks and its stream by ` +
        `${fmtFactor(row('deepnorm_stream_rms'))}; Post-LN's gradient spans ${fmtFactor(row('post_ln_grad_norm'))}, ` +
        `layer 0 receiving ${decimals(g0)} of the top's. `;
      text +=
        row('post_ln_stream_rms') <= 2
          ? `Post-LN's stream, though, stays within ${fmtFactor(row('post_ln_stream_rms'))} too: every Post-LN block ends in ` +
            'a LayerNorm, so its stream RMS is 1 by construction. At initialization the stream does not tell the two ' +
            'apart; the gradient does.'
          : `Post-LN's stream spreads over ${fmtFactor(row('post_ln_stream_rms'))}.`;
      break;
    }
    case 'gpt2': {
      const g = d.ratio.gpt2,
        pre = d.ratio.pre_ln;
      const lo = Math.min(...g),
        hi = Math.max(...g);
      text =
        `Scaling W_O and W₂ by 1/√(2L) keeps the top of the stream at ${fixed(lo, 2)}–${fixed(hi, 2)}× the input's RMS for ` +
        `L = ${d.depths[0]} to ${d.depths[d.depths.length - 1]} (log–log slope ${fixed(d.fit.gpt2.slope, 2)}), where Pre-LN's grows from ` +
        `${fixed(pre[0], 2)}× to ${fixed(pre[pre.length - 1], 2)}×, a slope of ${fixed(d.fit.pre_ln.slope, 2)} against √L's 0.5 ` +
        `(${p.seeds} seed${p.seeds > 1 ? 's' : ''}).`;
      break;
    }
    case 'veit': {
      const { pre, res, U } = s.facts;
      text =
        `In the Pre-LN stack of ${U} blocks, 95% of the total gradient magnitude comes from paths of at most ` +
        `${pre.k95} blocks and 90% from lengths ${pre.k05}–${pre.k95}, peaking at ${pre.peak} (Veit et al.: 5–17 of 54), ` +
        `while the paths themselves centre on ${U / 2} (90% of them between ${pre.count05} and ${pre.count95}). ` +
        'Each branch on a path scales its gradient by about 1/RMS of the stream where it reads, so long paths carry ' +
        `almost nothing. Without a norm (the unnormalized residual stack) each branch keeps the gradient's size at ` +
        `initialization, the gradient follows the path count, and 95% of it needs paths up to ${res.k95} blocks: ` +
        'there the claim would not hold. ' +
        `(${p.samples} paths per length: the jagged curve is sampling noise, one path can weigh more than the rest.)`;
      break;
    }
    default:
      throw new RangeError(`unknown reproduction: ${id}`);
  }
  return { verdict: s.verdict, lead: LEAD[s.verdict], text, summary: s };
}
