// The training lab's claim of Loshchilov et al. (2025), nGPT: a transformer whose hidden states and
// weight vectors stay on the unit sphere reaches a given loss in several times fewer steps than
// GPT (the paper: 4 to 20 times fewer). Pre-LN and nGPT on the same task, seed and learning rate,
// nGPT at the paper's alpha init (0.05) and at two others; the target is the held-out loss Pre-LN
// ends at. Its settings and runs, and judge(): the checks and the caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, prose } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>). */
export const id = 'ngpt';

/** The citation its button shows. */
export const cite = 'Loshchilov et al. 2025';

/** Its button's title. */
export const title = 'nGPT';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper =
  'Loshchilov, Hsieh, Sun and Ginsburg 2025, nGPT: Normalized Transformer with Representation Learning on the Hypersphere';

/**
 * "Several times fewer": nGPT reaches the target in at most 1 / FACTOR of Pre-LN's steps, the low
 * end of the paper's 4 to 20.
 */
export const FACTOR = 4;

/** The claim, in words. */
export const claim = `nGPT (hidden states and weight vectors on the unit sphere, learned step sizes alpha) reaches the held-out loss Pre-LN ends at in several times fewer steps (the paper: 4 to 20 times fewer; here: at most 1/${FACTOR} of Pre-LN\u2019s steps).`;

/** The small setting that reproduces it, in words. */
export const setting =
  'reverse 4 of 8 symbols, 6 transformer blocks, Adam at 4\u00d710\u207b\u00b3 without warmup, 300 steps; nGPT with alpha 0.05 at init (the paper\u2019s), 0.01 and 0.25';

/** Its settings, over the lab's defaults (claimConfig): the DyT claim's quick ones. */
export const config = { ...REVERSE_TASK, depth: 6, lr: 4e-3, warmup: 0, steps: 300, log_every: 10 };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** The alpha inits of the nGPT runs, the paper's first. */
export const ALPHAS = [0.05, 0.01, 0.25];

/** Its runs: Pre-LN, and nGPT at each alpha init (session.js's run specs). */
export const runs = [
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN' },
  { key: 'ngpt', arch: 'ngpt', label: 'nGPT, alpha 0.05', overrides: { ngpt_alpha: 0.05 } },
  { key: 'ngpt_low', arch: 'ngpt', label: 'nGPT, alpha 0.01', overrides: { ngpt_alpha: 0.01 } },
  { key: 'ngpt_high', arch: 'ngpt', label: 'nGPT, alpha 0.25', overrides: { ngpt_alpha: 0.25 } },
];

/** The first logged step whose held-out loss is at most `target` (finite), or null when none is. */
export function stepsTo(run, target) {
  if (!Number.isFinite(target)) return null;
  const hit = (run?.logs ?? []).find((l) => l.heldout_loss !== null && Number(l.heldout_loss) <= target);
  return hit ? hit.step : null;
}

/** "step 40", or "not within its 300 steps". */
const stepsText = (steps, s) => (steps === null ? `not within its ${s.step} steps` : `step ${steps}`);

/**
 * The checks of the claim on the runs' summaries `s` (by run key) and the runs themselves (their
 * logs give the steps): {checks, caption, numbers}; claimVerdict() adds the rest.
 */
export function judge(s, runs) {
  const pre = s.pre_ln;
  const target = pre.finite ? pre.loss : NaN;
  const steps = Object.fromEntries(
    Object.keys(s).map((key) => [key, pre.trained ? stepsTo(runs?.[key], target) : null]),
  );
  const ratio = steps.pre_ln !== null && steps.ngpt !== null ? steps.pre_ln / steps.ngpt : NaN;
  const fewer = Number.isFinite(ratio) && ratio >= FACTOR;
  const targetText = pre.finite ? prose(target) : 'none (Pre-LN\u2019s loss is not finite)';
  const ratioText = Number.isFinite(ratio)
    ? `Pre-LN\u2019s steps over nGPT\u2019s ${significant(ratio, 3)}`
    : 'no ratio';
  const alphaText = alphaSteps(s, steps);
  return {
    checks: [
      check('Pre-LN trains (its final loss is the target)', pre.trained, lossText(pre)),
      check('nGPT (alpha 0.05 at init) trains', s.ngpt.trained, lossText(s.ngpt)),
      check(
        `nGPT reaches Pre-LN\u2019s final held-out loss in at most 1/${FACTOR} of Pre-LN\u2019s steps`,
        fewer,
        `target ${targetText}: Pre-LN at ${stepsText(steps.pre_ln, pre)}, nGPT at ${stepsText(steps.ngpt, s.ngpt)}: ${ratioText}`,
      ),
    ],
    caption:
      `Target: the held-out loss Pre-LN ends at, ${targetText}. Steps to reach it (logged every ${logEvery(runs)}): ` +
      `Pre-LN ${stepsText(steps.pre_ln, pre)}; ${alphaText}. ` +
      `Held-out loss at the end: Pre-LN ${lossText(pre)}, nGPT ${lossText(s.ngpt)}; ` +
      `${Number.isFinite(ratio) ? ratioText : 'no ratio of steps (a run did not reach the target)'}, ` +
      `${fewer ? 'at least' : 'short of'} the claim\u2019s ${FACTOR}.`,
    numbers: {
      target,
      ratio,
      'pre_ln.steps': steps.pre_ln ?? NaN,
      'ngpt.steps': steps.ngpt ?? NaN,
      'ngpt_low.steps': steps.ngpt_low ?? NaN,
      'ngpt_high.steps': steps.ngpt_high ?? NaN,
    },
  };
}

/** nGPT's steps at each alpha init, in words. */
function alphaSteps(s, steps) {
  return runs
    .filter((r) => r.arch === 'ngpt')
    .map((r) => `${r.label} ${stepsText(steps[r.key], s[r.key])} (ends at ${lossText(s[r.key])})`)
    .join(', ');
}

/** The runs' logging interval, as the first run's second log says it (the config's log_every). */
function logEvery(runs) {
  const logs = runs?.pre_ln?.logs ?? [];
  return logs.length > 1 ? `${logs[1].step - logs[0].step} steps` : 'step';
}

/**
 * Its deep setting (index.js): the quick recipe at 24 blocks, the depth of the paper's 0.5B models.
 * No run names a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting:
    'reverse 4 of 8 symbols, 24 transformer blocks, Adam at 4\u00d710\u207b\u00b3 without warmup, 300 steps; nGPT with alpha 0.05, 0.01 and 0.25 at init',
  config: { ...config, depth: 24 },
};
