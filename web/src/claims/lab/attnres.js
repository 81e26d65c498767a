// The training lab's claim of the Kimi Team (2026), Attention Residuals: a stack whose every unit
// reads a learned softmax over the embedding and every earlier output keeps its output magnitudes
// and its gradients more uniform across depth than Pre-norm's sum. Pre-LN, Pre-RMS (AttnRes's own
// norm kind) and AttnRes on the same task and seed; uniformity as the largest over the smallest
// across depth (as Li et al. 2024 and common.js's gradSpread measure it), of the stream's RMS at
// the block boundaries h_0..h_L and of each block's weight gradient, at the first logged step and
// the last. The weight gradient, not the logs' grad_norm at h_l: AttnRes's h_l is the aggregate
// block l + 1 reads and its gradient flows through that block only (docs/model.md), not the whole
// stream's gradient Pre-LN logs there. Its settings and runs, and judge(): the checks and the
// caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>). */
export const id = 'attnres';

/** The citation its button shows. */
export const cite = 'Kimi Team 2026';

/** Its button's title. */
export const title = 'Attention Residuals';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Kimi Team 2026, Attention Residuals';

/** The claim, in words. */
export const claim =
  'Reading a learned softmax over every earlier layer instead of adding to one stream keeps output magnitudes and gradients more uniform across depth than Pre-norm.';

/** The small setting that reproduces it, in words. */
export const setting = 'reverse 4 of 8 symbols, 6 transformer blocks, Adam at 4\u00d710\u207b\u00b3, 300 steps';

/** Its settings, over the lab's defaults (claimConfig). */
export const config = { ...REVERSE_TASK, depth: 6, lr: 4e-3, warmup: 0, steps: 300, log_every: 10 };

/**
 * What its checks measure, for the head of the panel's table of checks: '', each part names its
 * own (a held-out loss, or a largest over smallest across depth).
 */
export const measured = '';

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** Its runs: Pre-LN, Pre-RMS and AttnRes (session.js's run specs). */
export const runs = [
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN' },
  { key: 'pre_rms', arch: 'pre_rms', label: 'Pre-RMS' },
  { key: 'attn_res', arch: 'attn_res', label: 'AttnRes' },
];

/** The largest over the smallest of a logged array (NaN when empty, not finite or not positive). */
export function spread(values) {
  const v = Array.from(values ?? [], (x) => (x === null || x === undefined ? NaN : Number(x)));
  if (!v.length || !v.every((x) => Number.isFinite(x) && x > 0)) return NaN;
  return Math.max(...v) / Math.min(...v);
}

/** A run's spreads at one logged step: the stream's RMS over h_0..h_L and the blocks' weight gradients, and the top over the bottom. */
const spreadsAt = (log) => ({
  step: log?.step ?? NaN,
  stream: spread(log?.stream_rms),
  grad: spread(log?.w_grad_norm),
  topOverBottom: log?.stream_rms?.length ? Number(log.stream_rms.at(-1)) / Number(log.stream_rms[0]) : NaN,
});

/** A spread for prose: "2.2\u00d7", or "not finite". */
const times = (x) => (Number.isFinite(x) ? `${significant(x, 3)}\u00d7` : 'not finite');

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key) and the
 * runs themselves (their first and last logs): {checks, caption, numbers}; claimVerdict() adds the
 * rest.
 */
export function judge(s, r) {
  const at = {};
  for (const { key } of runs) at[key] = { first: spreadsAt(r[key].logs[0]), last: spreadsAt(r[key].logs.at(-1)) };
  const a = at.attn_res;
  const firstStep = a.first.step;
  const lastStep = a.last.step;
  const below = (when, what) => a[when][what] < at.pre_ln[when][what] && a[when][what] < at.pre_rms[when][what];
  const measured = (when, what) =>
    `largest over smallest: AttnRes ${times(a[when][what])}, Pre-LN ${times(at.pre_ln[when][what])}, Pre-RMS ${times(at.pre_rms[when][what])}`;
  const trained = runs.every(({ key }) => s[key].trained);
  const parts = [
    [
      'first',
      'stream',
      `the stream\u2019s RMS across h_0..h_L is more uniform (largest over smallest) at step ${firstStep}`,
    ],
    ['last', 'stream', `the stream\u2019s RMS across h_0..h_L is more uniform at the end (step ${lastStep})`],
    [
      'first',
      'grad',
      `the blocks\u2019 weight gradients are more uniform (largest over smallest) at step ${firstStep}`,
    ],
    ['last', 'grad', `the blocks\u2019 weight gradients are more uniform at the end (step ${lastStep})`],
  ];
  const numbers = {};
  for (const { key } of runs)
    for (const when of ['first', 'last'])
      for (const what of ['stream', 'grad', 'topOverBottom']) numbers[`${key}.${what}.${when}`] = at[key][when][what];
  return {
    checks: [
      check(
        'every run trains (held-out loss below halfway from chance)',
        trained,
        `held-out loss: ${runs.map(({ key, label }) => `${label} ${lossText(s[key])}`).join(', ')}`,
      ),
      ...parts.map(([when, what, text]) =>
        check(`AttnRes: ${text} than Pre-LN\u2019s and Pre-RMS\u2019s`, below(when, what), measured(when, what)),
      ),
    ],
    caption:
      `Largest over smallest across depth, at step ${firstStep} and at the end (step ${lastStep}): the stream\u2019s RMS ` +
      `${runs.map(({ key, label }) => `${label} ${times(at[key].first.stream)} and ${times(at[key].last.stream)}`).join(', ')}; ` +
      `the blocks\u2019 weight gradients ` +
      `${runs.map(({ key, label }) => `${label} ${times(at[key].first.grad)} and ${times(at[key].last.grad)}`).join(', ')}. ` +
      `The stream\u2019s RMS at the top over the bottom at the end: ` +
      `${runs.map(({ key, label }) => `${label} ${Number.isFinite(at[key].last.topOverBottom) ? significant(at[key].last.topOverBottom, 3) : 'not finite'}`).join(', ')}. ` +
      `Held-out loss at the end: ${runs.map(({ key, label }) => `${label} ${lossText(s[key])}`).join(', ')}.`,
    numbers,
  };
}

/**
 * Its deep setting (index.js): the quick recipe at 24 blocks, four times the quick setting's 6. No
 * run names a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting: 'reverse 4 of 8 symbols, 24 transformer blocks, Adam at 4\u00d710\u207b\u00b3, 300 steps',
  config: { ...config, depth: 24 },
};
