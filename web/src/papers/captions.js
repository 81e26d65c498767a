// The sentence under each panel, written from the numbers (pure: text only, no
// DOM), so it says whether the claim holds at the settings that ran.
import { decimals, fixed, fmtFactor, significant } from '../shared/format.js';
import { sourceName } from '../shared/dwa-weights.js';
import { FIG3_WEIGHTS, sci, summarize } from './repro.js';

export const VERDICT_TEXT = { holds: 'Holds', partly: 'Holds in part', fails: 'Does not hold' };

const LEAD = {
  holds: 'The claim holds at these settings.',
  partly: 'The claim holds only in part at these settings.',
  fails: 'The claim does not hold at these settings.',
};

const argmin = (a) => a.indexOf(Math.min(...a));
const argmax = (a) => a.indexOf(Math.max(...a));
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
    case 'rezero': {
      const { grad, stream, preGrad, preBottom } = s.facts;
      const L = p.depth;
      text =
        `With α = 0 in all ${2 * L} sublayers of the ${L} blocks, every branch is multiplied by zero: the stream ` +
        `stays h₀ (largest |RMS(h_l)/RMS(h₀) − 1| = ${stream === 0 ? '0' : decimals(stream)}) and the gradient ` +
        `reaching every layer is the top's (largest |g_l/g_L − 1| = ${grad === 0 ? '0' : decimals(grad)}). ` +
        `Pre-LN, on the same weights, departs from the top's gradient by up to ${decimals(preGrad)} ` +
        `(layer 0 receives ${decimals(preBottom)}× the top's): its branches add their Jacobians to the identity. ` +
        'The identity is where ReZero starts, not where it stays: the gradient of each α is the stream gradient ' +
        'against the branch output, which is not zero, so α moves at the first step. ';
      if (d.trained) {
        const { lab, trainedDepth: n, steps } = s.facts;
        const [z, plain, res] = lab.checks;
        text +=
          `Trained, as the training lab\u2019s ReZero preset trains them (teacher regression, ${n} MLP blocks of ` +
          `width ${d.trained.rezero.config.width}, ${steps} steps of SGD with momentum): ${lab.caption} ` +
          (z.holds && plain.holds
            ? `So the deep ReZero stack trains where the plain stack of the same depth does not`
            : z.holds
              ? 'ReZero trains, but so does the plain stack of the same depth here'
              : 'ReZero does not train here') +
          (res.holds
            ? ', and the residual stack without its gates does not train either.'
            : ', while the residual stack without its gates trains too.');
      }
      break;
    }
    case 'lns': {
      const v = d.variance;
      const last = d.depths.length - 1;
      text =
        `Over L = ${d.depths.join(', ')} (${p.seeds} seed${p.seeds > 1 ? 's' : ''}), Pre-LN's top variance grows ` +
        `from ${decimals(v.pre_ln[0])}× to ${decimals(v.pre_ln[last])}× the input's (log–log slope ` +
        `${fixed(d.fit.pre_ln.slope, 2)}; Var ∝ L would be 1) and LNS's from ${decimals(v.lns[0])}× to ` +
        `${decimals(v.lns[last])}× (slope ${fixed(d.fit.lns.slope, 2)}); at L = ${d.depths[last]} LNS's is ` +
        `${fixed(s.facts.ratios[last], 2)}× Pre-LN's. Each branch of block l reads its LayerNorm's output divided ` +
        'by √l, so what block l adds to the stream shrinks with l instead of staying unit-size. At initialization ' +
        'Pre-LN’s variance grows linearly (as Lemma 2 has it for MLP blocks), the lower end of the paper’s ' +
        'Θ(L) to exp(L).';
      break;
    }
    case 'mixln': {
      const { spread: sp, cv } = s.facts;
      const n = d.norms;
      const NAME = { post_ln: 'Post-LN', pre_ln: 'Pre-LN', mix_ln: 'Mix-LN' };
      const beaten = ['post_ln', 'pre_ln'].filter((a) => sp.mix_ln <= 0.9 * sp[a]).map((a) => NAME[a]);
      const where = (a) => `smallest at block ${argmin(n[a]) + 1}, largest at ${argmax(n[a]) + 1}`;
      text =
        `Over the ${p.depth} blocks (mean of ${p.seeds} seed${p.seeds > 1 ? 's' : ''}), the gradient of each block's ` +
        `weights spans ${fmtFactor(sp.post_ln)} in Post-LN (CV ${fixed(cv.post_ln, 2)}; ${where('post_ln')}), ` +
        `${fmtFactor(sp.pre_ln)} in Pre-LN (CV ${fixed(cv.pre_ln, 2)}; ${where('pre_ln')}) and ` +
        `${fmtFactor(sp.mix_ln)} in Mix-LN (CV ${fixed(cv.mix_ln, 2)}; ${where('mix_ln')}), whose first ` +
        `${d.early} blocks are Post-LN. `;
      text +=
        beaten.length === 2
          ? 'Mix-LN’s are the most uniform of the three.'
          : beaten.length === 1
            ? `Mix-LN’s are more uniform than ${beaten[0]}’s only.`
            : 'Mix-LN’s are not more uniform than either.';
      if (sp.post_ln < sp.mix_ln)
        text +=
          ' Above its Post-LN blocks Mix-LN is Pre-LN, whose block gradients fall as the stream grows (as in Figure ' +
          '3’s panel), while at this width Post-LN’s stay nearly level: at initialization Post-LN is the uniform one.';
      if (d.trained) {
        const ts = s.facts.trainedSpread;
        const T = d.trained;
        const names = s.facts.names;
        const better = ['post_ln_warmup', 'pre_ln'].filter((k) => ts.mix_ln < ts[k]).map((k) => names[k]);
        text +=
          ` After training (the training lab\u2019s Late layers runs: reverse ${T.mix_ln.config.seq} of ` +
          `${T.mix_ln.config.vocab} symbols, ${s.facts.trainedDepth} blocks of width ${T.mix_ln.config.width}, ` +
          `${s.facts.steps} steps), the same max/min at the last step is ${fmtFactor(ts.post_ln_warmup)} for ` +
          `${names.post_ln_warmup}, ${fmtFactor(ts.pre_ln)} for Pre-LN and ${fmtFactor(ts.mix_ln)} for Mix-LN: ` +
          (better.length === 2
            ? 'Mix-LN’s are the most uniform after training too.'
            : better.length === 1
              ? `Mix-LN’s are more uniform than ${better[0]}’s only.`
              : 'after training Mix-LN’s block gradients are the least uniform of the three, as the lab’s Late layers verdict finds.');
      }
      break;
    }
    case 'layerscale': {
      const { eps, lo, hi, preLo, preHi } = s.facts;
      const first = s.rows.find((r) => r.key === 'ls_first').value;
      text =
        `With λ = ε = ${sci(eps)} at L = ${p.depth} (CaiT's rule: 0.1 up to 18 blocks, 10⁻⁵ up to 24, 10⁻⁶ ` +
        `deeper), every block's update ratio ‖u_l‖/‖h_(l−1)‖ is ${fixed(lo, 2)}–${fixed(hi, 2)} times ε: λ scales ` +
        'every branch, whose output at initialization is about the size of the stream it reads, and LayerScale’s ' +
        `stream stays near h₀. Pre-LN's ratios on the same weights run from ${decimals(preHi)} down to ` +
        `${decimals(preLo)}, falling as its stream grows. In block 1 both read h₀, and LayerScale's attention ` +
        `ratio is ${fixed(first, 6)} × ε × Pre-LN's. `;
      if (d.trained) {
        const t = s.facts.trained;
        text +=
          `Trained, in the training lab\u2019s Late layers run of LayerScale (${t.depth} blocks, ε = ${sci(t.eps)}; ` +
          `held-out loss ${significant(t.loss, 3)} after ${t.steps} steps, chance ${fixed(t.chance, 2)}), the update ` +
          `ratios start at ${fixed(t.initLo, 2)}–${fixed(t.initHi, 2)} × ε and end at ${fixed(t.endLo, 2)}–` +
          `${fixed(t.endHi, 2)} × ε (median ${fixed(t.endMedian, 2)}×): ` +
          (t.endMedian >= 1.1
            ? 'the blocks come to add more of the stream than λ first let them'
            : t.endMedian <= 1 / 1.1
              ? 'the blocks come to add less of the stream than at initialization'
              : 'the blocks add about as much of the stream as at initialization') +
          (t.gateMedian < t.endMedian
            ? `; the gates move less: each unit's mean |λ| ends at a median ${fixed(t.gateMedian, 2)}× ε ` +
              `(${fixed(t.gateLo, 2)}–${fixed(t.gateHi, 2)}), so the rest of the change is in the branches and the ` +
              'stream they are measured against.'
            : `; each unit's mean |λ| ends at a median ${fixed(t.gateMedian, 2)}× ε ` +
              `(${fixed(t.gateLo, 2)}–${fixed(t.gateHi, 2)}).`);
      }
      break;
    }
    case 'dwa': {
      const { init, trained } = d;
      const f = s.facts;
      const L = f.L;
      const c = trained.config;
      const signed = (v) => significant(v, 2).replace('-', '\u2212');
      const n = init.simulate.count,
        m = init.firstStep.count - 1;
      text =
        init.simulate.max === 0 && init.firstStep.max === 0
          ? `At initialization every averaging weight is 0 except w_(l,l) = 1, so each average is its own block's ` +
            `output: DenseFormer and Pre-LN (${L} blocks, seed ${p.seed}) agree to the bit on all ${n} per-layer ` +
            `numbers of the engine's analysis and, in the first training step, on the loss and all ${m} per-layer ` +
            'numbers it logs. '
          : `At initialization DenseFormer and Pre-LN (${L} blocks, seed ${p.seed}) differ by up to ` +
            `${decimals(init.simulate.max)} over the ${n} per-layer numbers of the engine's analysis and by up to ` +
            `${decimals(init.firstStep.max)} over the first training step's loss and ${m} per-layer numbers: ` +
            'DenseFormer does not start exactly as Pre-LN here. ';
      text +=
        `Only the global gradient norm differs (${decimals(init.gradGlobal.dwa)} against ` +
        `${decimals(init.gradGlobal.pre_ln)}): it includes the averaging weights' own gradient, ` +
        `${decimals(init.mixGrad)}, which moves them off the identity at the first step. ` +
        `After ${trained.steps} steps of reversing ${c.seq} of ${c.vocab} symbols (held-out loss ` +
        `${significant(trained.heldout_loss, 3)}, chance ${fixed(trained.chance, 2)}) the diagonal stays between ` +
        `${fixed(f.diagLo, 2)} and ${fixed(f.diagHi, 2)}; blocks ${f.from}–${L} take on average ` +
        `${fixed(f.reuse, 2)} of their own weight from layers two or more back, and their weights on the ` +
        `embedding are on average ${fixed(f.embedding, 2)}× as large as those on their other earlier layers. `;
      const e = f.embeddingWeights;
      const range = `${signed(Math.min(...e))} to ${signed(Math.max(...e))}`;
      text += e.every((w) => w < 0)
        ? `Those weights on h₀ are all negative (${range}): the late blocks subtract part of the embedding. `
        : e.every((w) => w > 0)
          ? `Those weights on h₀ are all positive (${range}): the late blocks add the embedding back. `
          : `Those weights on h₀ have both signs (${range}). `;
      if (f.off)
        text += `The largest weight off the diagonal is ${signed(f.off.w)} (block ${f.off.l} reading ${sourceName(f.off.l, f.off.j)}). `;
      if (trained.outcome !== 'trained')
        text += `The run did not train (${trained.outcome}), so its weights say little about the claim. `;
      text +=
        `The training lab\u2019s Late layers preset trains ${L === 8 ? 'this same run' : 'this run at 8 blocks'} ` +
        'beside Pre-LN and the other answers, and skips each block in turn.';
      break;
    }
    default:
      throw new RangeError(`unknown reproduction: ${id}`);
  }
  return { verdict: s.verdict, lead: LEAD[s.verdict], text, summary: s };
}
