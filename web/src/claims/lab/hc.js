// The training lab's claim of Xie et al. (2025), mHC, against Hyper-Connections (Zhu et al. 2025):
// with n residual streams mixed by a learned matrix M at every unit, HC's mixing composed over
// depth, P = M_U ... M_1, amplifies the streams more and more as training moves M, while mHC's
// doubly stochastic M (Sinkhorn-Knopp) keeps that composite gain near 1; both train, as Pre-LN
// does. Pre-LN, HC and mHC on the same task and seed; its settings and runs, and judge(): the checks
// and the caption from the runs' numbers (each run's held-out loss at the end and the composite
// gain it logged at every logged step, the engine's hc_gain_fwd and hc_gain_bwd).
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, prose } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>). */
export const id = 'hc';

/** The citation its button shows. */
export const cite = 'Xie et al. 2025; Zhu et al. 2025';

/** Its button's title. */
export const title = 'mHC';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Xie et al. 2025, mHC: Manifold-Constrained Hyper-Connections; Zhu et al. 2025, Hyper-Connections';

/** The claim, in words. */
export const claim =
  'Hyper-Connections\u2019 stream mixing, composed over depth, amplifies the signal more as training goes on; mHC\u2019s doubly stochastic mixing keeps that composite gain near 1, and both train.';

/** The small setting that reproduces it, in words. */
export const setting =
  'reverse 4 of 8 symbols, 6 transformer blocks, 4 streams, Adam at 1.2\u00d710\u207b\u00b2, 300 steps';

/** Its settings, over the lab's defaults (claimConfig). */
export const config = { ...REVERSE_TASK, depth: 6, lr: 1.2e-2, warmup: 0, steps: 300, log_every: 10, hc_streams: 4 };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/**
 * The band around 1 that "near 1" means: a composite gain (either direction) in
 * [1 - BAND, 1 + BAND] at every logged step.
 */
export const BAND = 0.05;

/**
 * How close "trains as Pre-LN does" is: the final held-out loss within this share of the task's
 * chance loss of Pre-LN's, either side (the DyT claim's margin).
 */
export const MARGIN = 0.05;

/** Its runs: Pre-LN, Hyper-Connections and mHC (session.js's run specs). */
export const runs = [
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN' },
  { key: 'hyper', arch: 'hyper', label: 'Hyper-Connections' },
  { key: 'mhc', arch: 'mhc', label: 'mHC' },
];

/** The two gains a log carries: the largest absolute row sum (forward) and column sum (backward). */
export const GAIN_KEYS = ['hc_gain_fwd', 'hc_gain_bwd'];

/**
 * A run's composite gain over its logged steps, both directions: {steps, fwd, bwd} (NaN where a
 * value is null, not finite, or absent).
 */
export function gainSeries(run) {
  const logs = run?.logs ?? [];
  const num = (v) => (v === null || v === undefined ? NaN : Number(v));
  return {
    steps: logs.map((l) => l.step),
    fwd: logs.map((l) => num(l.hc_gain_fwd)),
    bwd: logs.map((l) => num(l.hc_gain_bwd)),
  };
}

/**
 * The furthest a run's composite gain got from 1 over training, in either direction and at any
 * logged step, with the largest and the last gain: {dev, peak, last, step} (peak and last of the
 * larger of the two directions); NaN throughout when a logged gain is not finite or none was logged.
 */
export function gainReach(run) {
  const g = gainSeries(run);
  const at = g.steps.map((step, i) => ({ step, v: Math.max(g.fwd[i], g.bwd[i]), lo: Math.min(g.fwd[i], g.bwd[i]) }));
  if (!at.length || at.some((x) => !Number.isFinite(x.v) || !Number.isFinite(x.lo)))
    return { dev: NaN, peak: NaN, last: NaN, step: NaN };
  let top = at[0];
  for (const x of at) if (x.v > top.v) top = x;
  const dev = Math.max(...at.map((x) => Math.max(Math.abs(x.v - 1), Math.abs(x.lo - 1))));
  return { dev, peak: top.v, last: at.at(-1).v, step: top.step };
}

/** A gain for prose: 4 significant digits, "not finite" for NaN. */
const gainText = (v) => (Number.isFinite(v) ? significant(v, 4) : 'not finite');

/** The signed gap of a run's final held-out loss from Pre-LN's, for prose. */
function gapText(s, pre, label) {
  const gap = s.loss - pre.loss;
  if (!Number.isFinite(gap)) return `${label}: not finite`;
  return `${label} ${gap >= 0 ? 'above' : 'below'} by ${prose(Math.abs(gap))}`;
}

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key) and the
 * runs themselves (`trained`, by run key, for their logged gains): {checks, caption, numbers};
 * claimVerdict() adds the rest.
 */
export function judge(s, trained) {
  const { pre_ln: pre, hyper, mhc } = s;
  const hc = gainReach(trained.hyper);
  const m = gainReach(trained.mhc);
  const margin = MARGIN * pre.chance;
  const within = (x) => pre.finite && x.finite && Math.abs(x.loss - pre.loss) <= margin;
  const band = `[${1 - BAND}, ${1 + BAND}]`;
  const reach = (r) =>
    Number.isFinite(r.dev)
      ? `largest ${gainText(r.peak)} (step ${r.step}), at the end ${gainText(r.last)}, furthest from 1 by ${gainText(r.dev)}`
      : 'not finite';
  return {
    checks: [
      check(`mHC\u2019s composite gain stays within ${band} at every logged step`, m.dev <= BAND, reach(m)),
      check(`Hyper-Connections\u2019 composite gain grows beyond ${1 + BAND}`, hc.peak > 1 + BAND, reach(hc)),
      check('Hyper-Connections train', hyper.trained, lossText(hyper)),
      check('mHC trains', mhc.trained, lossText(mhc)),
      check(
        `Hyper-Connections and mHC end within ${significant(margin, 3)} of Pre-LN\u2019s held-out loss (${MARGIN * 100}% of chance)`,
        within(hyper) && within(mhc),
        `${gapText(hyper, pre, 'HC')}, ${gapText(mhc, pre, 'mHC')} (Pre-LN ${lossText(pre)})`,
      ),
    ],
    caption:
      'Composite gain of the stream mixing over depth (the largest absolute row or column sum of the product of ' +
      `every unit\u2019s mixing matrix, mHC\u2019s Amax Gain Magnitude), over training: Hyper-Connections ${reach(hc)}; ` +
      `mHC ${reach(m)}. ` +
      `Held-out loss at the end: Pre-LN ${lossText(pre)}, Hyper-Connections ${lossText(hyper)}, mHC ${lossText(mhc)} ` +
      `(chance ${significant(pre.chance, 3)}).`,
    numbers: {
      'hyper.gain_peak': hc.peak,
      'hyper.gain_last': hc.last,
      'hyper.gain_dev': hc.dev,
      'mhc.gain_peak': m.peak,
      'mhc.gain_last': m.last,
      'mhc.gain_dev': m.dev,
    },
  };
}

/**
 * What its checks measure, for the head of the panel's table of checks: '', each part names its
 * own (a composite gain, or a held-out loss).
 */
export const measured = '';

/**
 * Its deep setting (index.js): the quick recipe at 24 blocks, four times the quick setting's 6. No
 * run names a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting: 'reverse 4 of 8 symbols, 24 transformer blocks, 4 streams, Adam at 1.2\u00d710\u207b\u00b2, 300 steps',
  config: { ...config, depth: 24 },
};
