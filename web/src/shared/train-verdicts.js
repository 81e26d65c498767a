// The training lab's verdicts on the paper presets (presets.js), computed from
// the runs in front of the reader with the rules of the C++ reproductions
// (tests/core/test_reproductions.cpp): a run "trains" when its held-out loss
// ends below halfway from chance to the optimum, it "fails" when that loss is
// within 10% of chance or not finite, and one run ends "lower" than another
// when its held-out loss is lower. The C++ test also asks each comparison to
// clear 3 standard errors of the held-out items; a trainer reports only the
// held-out mean, so the page compares the means. Pure functions, no DOM: Node
// runs them on the CLI's JSON lines (fromCli) as the page runs them on its
// trainers.
//
//   const v = verdict('warmup', { post_ln: run, post_ln_warmup: run, pre_ln: run });
//   v.holds; v.checks; v.caption; v.numbers
//
// A run here is {key, label, logs, task: {chance, optimal}, lesion}: the
// session's run, or fromCli()'s.
import { significant } from './format.js';
import { PRESET_BY_ID } from './train-presets.js';

/** A log or lesion value as a number: the CLI's null (not finite) is NaN. */
const num = (v) => (v === null || v === undefined ? NaN : Number(v));

/** The task's "trained" line: halfway from chance to the optimum (0 when the optimum is unknown). */
export function halfway(task) {
  const optimal = Number.isFinite(task?.optimal) ? task.optimal : 0;
  return optimal + 0.5 * (task.chance - optimal);
}

/** A logged step's held-out loss is below the task's halfway line (finite, so a NaN is not). */
export const belowHalfway = (log, task) => Boolean(task) && num(log.heldout_loss) < halfway(task);

/**
 * How many times the task's chance loss a finite loss has to pass to be named "far above
 * chance". The presets' runs stay under 1.7 times chance at every logged step (a deep plain
 * stack's training loss at its worst); a loss ten times chance is a run the learning rate threw
 * off, which the check for non-finite values misses while the numbers stay finite.
 */
export const FAR_ABOVE_CHANCE = 10;

/** What the page says of a run whose loss rose past FAR_ABOVE_CHANCE times chance. */
export const FAR_ABOVE_TEXT = 'the loss rose far above chance: the learning rate is too large';

/**
 * The highest finite loss (held-out or training) a run logged above FAR_ABOVE_CHANCE times the
 * task's chance loss: {step, loss, chance}, or null when it logged none.
 */
export function farAboveChance(run) {
  const chance = run?.task?.chance;
  if (!(chance > 0) || !run.logs?.length) return null;
  let worst = null;
  for (const l of run.logs)
    for (const key of ['heldout_loss', 'train_loss']) {
      const v = num(l[key]);
      if (Number.isFinite(v) && v > FAR_ABOVE_CHANCE * chance && !(worst && worst.loss >= v))
        worst = { step: l.step, loss: v, chance };
    }
  return worst;
}

/**
 * How a run ended before its last step: {kind: 'diverged', step, text} at its first non-finite
 * value, {kind: 'trained', step, text} when it stopped once trained (a preset's run that only has
 * to show it trains), {kind: 'error', step, text} when the engine refused a step; null while it
 * runs or when it ran every step. A session's run (firstNonfinite, trainedAt, error) or a run of
 * logs only.
 */
export function runEnd(run) {
  const stop = run?.logs?.find((l) => l.first_nonfinite !== null && l.first_nonfinite !== undefined);
  const diverged = run?.firstNonfinite ?? stop?.first_nonfinite ?? null;
  if (diverged !== null) return { kind: 'diverged', step: diverged, text: `diverged at step ${diverged}` };
  if (run?.trainedAt !== null && run?.trainedAt !== undefined)
    return { kind: 'trained', step: run.trainedAt, text: `stopped at step ${run.trainedAt} (trained)` };
  if (run?.error) {
    const step = run.logs?.at(-1)?.step ?? 0;
    return { kind: 'error', step, text: `stopped at step ${step} (an error)` };
  }
  return null;
}

/**
 * One architecture's run from the CLI's `--json` lines (parsed objects): its
 * logs, the task's losses, its lesion. With `stopWhenTrained` the logs end at
 * the first one below halfway, where the lab's session stops such a run.
 */
export function fromCli(lines, arch, { key = arch, label = null, stopWhenTrained = false } = {}) {
  const final = lines.find((l) => l.summary);
  const task = final ? { chance: num(final.chance_loss), optimal: num(final.optimal_loss) } : null;
  let logs = lines
    .filter((l) => l.arch === arch && l.step !== undefined)
    .map((l) => ({ ...l, heldout_loss: num(l.heldout_loss), train_loss: num(l.train_loss) }));
  const at = stopWhenTrained ? logs.findIndex((l) => belowHalfway(l, task)) : -1;
  if (at >= 0) logs = logs.slice(0, at + 1);
  const raw = final?.summary?.[arch]?.lesion ?? null;
  const arrays = ['loss', 'increase', 'relative', 'contribution', 'contribution_init'];
  const lesion = raw && {
    base: num(raw.base),
    ...Object.fromEntries(arrays.map((k) => [k, Float64Array.from(raw[k] ?? [], num)])),
  };
  return {
    key,
    arch,
    label,
    config: final?.config ?? null,
    logs,
    task,
    lesion,
  };
}

/** What a verdict reads of one run: its last held-out loss, finite or not, and the thresholds of its task. */
export function summarize(run) {
  const last = run?.logs?.at(-1);
  if (!last || !run.task) return null;
  const loss = num(last.heldout_loss);
  const { chance } = run.task;
  const optimal = Number.isFinite(run.task.optimal) ? run.task.optimal : 0;
  const finite = Number.isFinite(loss) && (last.first_nonfinite === null || last.first_nonfinite === undefined);
  const firstTrained = run.logs.find((l) => belowHalfway(l, run.task));
  return {
    loss,
    finite,
    chance,
    optimal,
    step: last.step,
    // the step of its first non-finite value (the last logged step when only the loss says so)
    divergedAt: finite ? null : (last.first_nonfinite ?? last.step),
    topCosine: num(last.top_cosine),
    trained: finite && loss < halfway(run.task),
    fails: !finite || loss > 0.9 * chance,
    firstTrainedStep: firstTrained ? firstTrained.step : null,
  };
}

/** a ends lower than b: a finite and b not, or a's held-out loss below b's. */
const lower = (a, b) => a.finite && (!b.finite || a.loss < b.loss);

/** A loss for prose: 3 significant digits, plain decimals down to 10^-4 ("0.0008"), a power of ten below. */
export function prose(v) {
  const a = Math.abs(v);
  if (a >= 1e-4 && a < 1e-3) return v.toPrecision(3).replace(/\.?0+$/, '');
  return significant(v, 3);
}

/** A held-out loss for prose, "not finite" for NaN or infinity. */
export const lossText = (s) => (s.finite ? prose(s.loss) : 'not finite');

/** A held-out loss beside the task's chance loss, for a check that a run stayed near chance. */
const nearChanceText = (s) => `${lossText(s)}, chance ${significant(s.chance, 3)}`;

/**
 * What a run that did not train did, for a sentence that may say nothing more of it: "diverged
 * at step N", or "did not train (held-out loss X, chance C)"; null for a run that trained.
 */
export function notTrainedText(s) {
  if (!s || s.trained) return null;
  if (!s.finite) return `diverged at step ${s.divergedAt}`;
  return `did not train (held-out loss ${lossText(s)}, chance ${significant(s.chance, 3)})`;
}

/** The median of a list's finite numbers (NaN for none). */
export function median(values) {
  const x = Array.from(values)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (!x.length) return NaN;
  const m = x.length >> 1;
  return x.length % 2 ? x[m] : 0.5 * (x[m - 1] + x[m]);
}

/**
 * Each removal of a block as the fraction of the way from the trained loss to
 * chance it goes: (lesioned - base) / (chance - base); {fractions, median,
 * largest: {block, loss, fraction}}. Null without a lesion.
 */
export function lesionShares(lesion, chance) {
  if (!lesion || !lesion.loss?.length) return null;
  const fractions = Array.from(lesion.loss, (l) => (l - lesion.base) / (chance - lesion.base));
  let best = 0;
  for (let i = 1; i < fractions.length; i++) if (!(fractions[i] <= fractions[best])) best = i;
  return {
    fractions,
    median: median(fractions),
    medianLoss: median(Array.from(lesion.loss)),
    largest: { block: best + 1, loss: lesion.loss[best], fraction: fractions[best] },
  };
}

/**
 * A removal's share of the way from the trained loss to chance, in words: "0.3 of the way to
 * chance", past chance when it is over 1, below the trained loss when it is negative.
 */
export function shareText(share) {
  if (!Number.isFinite(share)) return 'not measured';
  if (share > 1) return `past chance: ${significant(share, 2)} times the way from the trained loss to chance`;
  if (share < 0) return `below the trained loss: ${significant(share, 2)} of the way to chance`;
  return `${significant(share, 2)} of the way to chance`;
}

const check = (claimed, holds, measured) => ({ claimed, holds: Boolean(holds), measured });

/** The mean of a list of numbers (NaN for none). */
const mean = (x) => (x.length ? x.reduce((a, b) => a + b, 0) / x.length : NaN);

/**
 * How uneven a run's blocks' weight gradients are at its last logged step: the
 * largest block's norm over the smallest's (1: every block alike; NaN
 * without them). Li et al. 2024 (Mix-LN) measure uniformity this way too,
 * across layers; the papers page uses the same at initialization.
 */
export function gradSpread(run) {
  const w = Array.from(run?.logs?.at(-1)?.w_grad_norm ?? [], num);
  return w.length ? Math.max(...w) / Math.min(...w) : NaN;
}

/**
 * How much the last quarter of a trained stack's blocks matters against its
 * first quarter: the mean held-out loss increase when one block of the last
 * floor(L/4) is skipped, over the same for the first floor(L/4) (at least one
 * block each). {early, late, ratio, quarter}, or null without a lesion.
 */
export function lateOverEarly(lesion) {
  const inc = Array.from(lesion?.increase ?? []);
  if (!inc.length) return null;
  const quarter = Math.max(1, Math.floor(inc.length / 4));
  const early = mean(inc.slice(0, quarter));
  const late = mean(inc.slice(-quarter));
  return { early, late, ratio: late / early, quarter };
}

/**
 * How many times Pre-LN's last-over-first-quarter ratio a Late layers run's ratio has to be to
 * count as higher. On seeds 0, 1 and 2 the runs that beat Pre-LN's ratio do so by 1.36 times at
 * the least (DenseFormer, seed 1) and Mix-LN comes within 1.06 times of it (seed 0): a margin
 * between the two gives every run the same answer on each seed; without one, a 6% difference
 * would decide.
 */
export const LATE_MARGIN = 1.25;

/** Per preset: (runs' summaries, runs) -> {checks, caption, numbers}. */
const RULES = {
  warmup(s) {
    const { post_ln: post, post_ln_warmup: warm, pre_ln: pre } = s;
    return {
      checks: [
        check(
          'Post-LN without warmup does not train (above half of chance, or not finite)',
          !post.finite || post.loss > 0.5 * post.chance,
          `${lossText(post)}, half of chance ${significant(0.5 * post.chance, 3)}`,
        ),
        check(
          'with 200 warmup steps Post-LN ends lower',
          lower(warm, post),
          `${lossText(warm)} against ${lossText(post)}`,
        ),
        check('with warmup Post-LN trains', warm.trained, lossText(warm)),
        check('Pre-LN trains without warmup', pre.trained, lossText(pre)),
      ],
      caption:
        `Post-LN without warmup ended at held-out loss ${lossText(post)} (chance ${significant(post.chance, 3)}); ` +
        `with 200 warmup steps ${lossText(warm)}; Pre-LN without warmup ${lossText(pre)}.`,
    };
  },
  depth(s) {
    const { post_ln_6: post6, post_ln: post18, pre_ln: pre, deepnorm: deep, admin } = s;
    const by = (x) =>
      !x.finite
        ? `diverged at step ${x.divergedAt}`
        : x.firstTrainedStep === null
          ? `not below halfway in ${x.step} steps (held-out loss ${lossText(x)})`
          : `step ${x.firstTrainedStep} (${lossText(x)})`;
    return {
      checks: [
        check('Post-LN trains at 6 blocks', post6.trained, lossText(post6)),
        check('Post-LN fails at 18 blocks (within 10% of chance)', post18.fails, nearChanceText(post18)),
        check('Post-LN at 18 blocks fails with every value finite', post18.finite, lossText(post18)),
        check('Pre-LN trains at 18 blocks', pre.trained, lossText(pre)),
        check('DeepNorm trains at 18 blocks', deep.trained, lossText(deep)),
        check('Admin trains at 18 blocks', admin.trained, lossText(admin)),
      ],
      caption:
        `Below halfway from chance to the optimum (held-out loss), by step: Post-LN at 6 blocks ${by(post6)}; ` +
        `at 18 blocks Pre-LN ${by(pre)}, DeepNorm ${by(deep)}, Admin ${by(admin)}. Post-LN at 18 blocks ended at ` +
        `${lossText(post18)} after ${post18.step} steps (chance ${significant(post18.chance, 3)}, top cosine ` +
        `${significant(post18.topCosine, 3)}).`,
    };
  },
  degradation(s) {
    const { plain_20: p20, plain: p56, pre_ln: pre } = s;
    return {
      checks: [
        check(
          'plain at 56 layers ends above plain at 20',
          lower(p20, p56),
          `${lossText(p56)} against ${lossText(p20)}`,
        ),
        check(
          'Pre-LN at 56 layers ends below plain at 20',
          lower(pre, p20),
          `${lossText(pre)} against ${lossText(p20)}`,
        ),
        check(
          'Pre-LN at 56 layers ends below plain at 56',
          lower(pre, p56),
          `${lossText(pre)} against ${lossText(p56)}`,
        ),
      ],
      caption:
        `Plain at 20 layers ended at held-out loss ${lossText(p20)}, plain at 56 layers ${lossText(p56)} ` +
        `(chance ${significant(p56.chance, 3)}, top cosine ${significant(p56.topCosine, 3)}); ` +
        `Pre-LN at 56 layers ${lossText(pre)}.`,
    };
  },
  rezero(s, runs) {
    const { plain, residual, rezero } = s;
    const stop = runs.residual.logs.find((l) => l.first_nonfinite !== null && l.first_nonfinite !== undefined);
    const residualText = residual.finite
      ? lossText(residual)
      : `not finite (from step ${stop?.first_nonfinite ?? '?'})`;
    return {
      checks: [
        check('ReZero trains at 56 blocks', rezero.trained, lossText(rezero)),
        check('plain at 56 layers does not (within 10% of chance)', plain.fails, nearChanceText(plain)),
        check('the residual stack without a norm does not train', !residual.trained, residualText),
      ],
      caption:
        `At 56 blocks ReZero ended at held-out loss ${lossText(rezero)} (chance ${significant(rezero.chance, 3)}); ` +
        `the plain stack at ${lossText(plain)}; the residual stack without a norm or a gate ${residualText}.`,
    };
  },
  late(s, runs, preset) {
    const r = Object.fromEntries(preset.runs.map((p) => [p.key, lateOverEarly(runs[p.key].lesion)]));
    const label = Object.fromEntries(preset.runs.map((p) => [p.key, p.label]));
    // a ratio exists when both quarters cost something: a first quarter that costs nothing (or less) has none
    const has = (k) => r[k] && r[k].early > 0 && r[k].ratio > 0 && Number.isFinite(r[k].ratio);
    const ratio = (k) => (has(k) ? `${significant(r[k].ratio, 2)}` : 'not measured');
    // a run that did not train has no lesion cost worth comparing: the caption says what it did instead
    const costs = (k) =>
      !s[k].finite
        ? `${label[k]} ${notTrainedText(s[k])}`
        : r[k]
          ? `${label[k]} ${significant(r[k].late, 2)} against ${significant(r[k].early, 2)} (${ratio(k)})` +
            (s[k].trained ? '' : ', but it did not train')
          : label[k];
    const spread = Object.fromEntries(['mix_ln', 'post_ln_warmup', 'pre_ln'].map((k) => [k, gradSpread(runs[k])]));
    const pre = r.pre_ln;
    const answers = preset.runs.filter((p) => p.key !== 'pre_ln' && p.key !== 'post_ln_warmup').map((p) => p.key);
    const compared = (k) => s[k].trained && s.pre_ln.trained && has(k) && has('pre_ln');
    const above = answers.filter((k) => compared(k) && r[k].ratio >= LATE_MARGIN * pre.ratio);
    const within = answers.filter((k) => compared(k) && !above.includes(k) && r[k].ratio > pre.ratio);
    const untrained = answers.filter((k) => s[k].finite && !s[k].trained);
    const diverged = answers.filter((k) => !s[k].finite);
    const below = answers.filter((k) => ![...above, ...within, ...untrained, ...diverged].includes(k));
    const names = (keys) => keys.map((k) => label[k]).join(', ');
    const list = (head, keys) => (keys.length ? `; ${head}: ${names(keys)}` : '');
    const measured = (k) =>
      notTrainedText(s[k]) ??
      (s.pre_ln.trained
        ? `ratio ${ratio(k)} against Pre-LN\u2019s ${ratio('pre_ln')}` +
          (has(k) && has('pre_ln') ? ` (${significant(r[k].ratio / pre.ratio, 2)} times)` : '')
        : `Pre-LN ${notTrainedText(s.pre_ln)}`);
    return {
      checks: [
        check(
          'every stack trains first (held-out loss below halfway from chance)',
          preset.runs.every((p) => s[p.key].trained),
          preset.runs.map((p) => `${label[p.key]} ${lossText(s[p.key])}`).join('; '),
        ),
        ...answers.map((k) =>
          check(
            `${label[k]}: its last quarter counts more, for its first, than Pre-LN\u2019s (a ratio at least ${LATE_MARGIN} times Pre-LN\u2019s)`,
            above.includes(k),
            measured(k),
          ),
        ),
        check(
          'Mix-LN: its blocks\u2019 weight gradients end more uniform than Post-LN\u2019s and Pre-LN\u2019s (largest over smallest, last step)',
          spread.mix_ln < spread.post_ln_warmup && spread.mix_ln < spread.pre_ln,
          `${significant(spread.mix_ln, 3)} against ${significant(spread.post_ln_warmup, 3)} and ${significant(spread.pre_ln, 3)}`,
        ),
      ],
      caption:
        `After training, skipping one block of the last quarter raises the held-out loss, on average, by (against ` +
        `one of the first quarter, and the ratio): ${preset.runs.map((p) => costs(p.key)).join('; ')}. ` +
        (!s.pre_ln.trained
          ? `Pre-LN ${notTrainedText(s.pre_ln)}, so no run\u2019s ratio is compared with it.`
          : (above.length
              ? `A higher ratio than Pre-LN\u2019s: ${names(above)}`
              : 'None has a higher ratio than Pre-LN') +
            list('not higher', below) +
            list(`higher by less than the margin (${LATE_MARGIN} times)`, within) +
            list('did not train', untrained) +
            list('diverged', diverged) +
            '.'),
      numbers: {
        ...Object.fromEntries(preset.runs.map((p) => [`${p.key}.late_over_early`, r[p.key]?.ratio])),
        ...Object.fromEntries(Object.entries(spread).map(([k, v]) => [`${k}.grad_spread`, v])),
      },
    };
  },
  lesion(s, runs) {
    const { pre_ln: pre, plain } = s;
    const sp = lesionShares(runs.pre_ln.lesion, pre.chance);
    const sq = lesionShares(runs.plain.lesion, plain.chance);
    // a stack that did not train has no way from its loss to chance for a removal to go
    const share = (x, r) => notTrainedText(r) ?? (x ? significant(x.median, 2) : 'not measured');
    const text = (x, base, r) =>
      notTrainedText(r)
        ? `it ${notTrainedText(r)}, so no removal is measured against it`
        : x
          ? `median ${significant(x.medianLoss, 3)} from ${significant(base, 3)} (${shareText(x.median)}), ` +
            `largest ${significant(x.largest.loss, 3)} (block ${x.largest.block})`
          : 'no lesion';
    return {
      checks: [
        check('both stacks train first', pre.trained && plain.trained, `${lossText(pre)}, ${lossText(plain)}`),
        check(
          'removing the median block of Pre-LN costs little (under 0.1 of the way to chance)',
          pre.trained && sp && sp.median < 0.1,
          share(sp, pre),
        ),
        check(
          'removing the median layer of the plain stack goes most of the way to chance (over 0.7)',
          plain.trained && sq && sq.median > 0.7,
          share(sq, plain),
        ),
      ],
      caption:
        `One block removed from the trained Pre-LN stack: ${text(sp, runs.pre_ln.lesion?.base, pre)}; ` +
        `one layer removed from the plain stack: ${text(sq, runs.plain.lesion?.base, plain)} (chance ${significant(pre.chance, 3)}).`,
      numbers: {
        'pre_ln.lesion_median': sp?.median,
        'plain.lesion_median': sq?.median,
        'pre_ln.lesion_base': runs.pre_ln.lesion?.base,
        'plain.lesion_base': runs.plain.lesion?.base,
      },
    };
  },
};

/**
 * The verdict of preset `id` on `runs` (keyed by the preset's run keys):
 * {holds, checks: [{claimed, holds, measured}], caption, numbers}, or null
 * while a run has no log yet (or, for a preset that needs them, no lesion).
 */
export function verdict(id, runs) {
  const preset = PRESET_BY_ID[id];
  if (!preset || !runs) return null;
  const s = {};
  for (const r of preset.runs) {
    s[r.key] = summarize(runs[r.key]);
    if (!s[r.key]) return null;
    if (preset.needsLesion && !runs[r.key].lesion) return null;
  }
  const out = RULES[id](s, runs, preset);
  const numbers = { ...Object.fromEntries(preset.runs.map((r) => [`${r.key}.heldout`, s[r.key].loss])) };
  Object.assign(numbers, out.numbers ?? {});
  return {
    holds: out.checks.every((c) => c.holds),
    checks: out.checks,
    summary: partsText(out.checks),
    caption: out.caption,
    numbers,
  };
}

/** How many of a verdict's checks hold, naming those that do not: "5 of 7 parts hold; not: ...". */
export function partsText(checks) {
  const failing = checks.filter((c) => !c.holds);
  if (!failing.length) return `All ${checks.length} parts hold.`;
  const held = checks.length - failing.length;
  return `${held} of ${checks.length} part${checks.length > 1 ? 's' : ''} hold${held === 1 ? 's' : ''}; not: ${failing.map((c) => c.claimed).join('; ')}.`;
}

/**
 * Does the network get deeper as it trains? Per run with a lesion: the median
 * block's contribution ||u_l|| / ||h_{l-1}|| at the end and at init, how many
 * blocks grew, and one sentence from those numbers: "deeper" when the median
 * block adds at least 10% more of the stream than at init and most blocks
 * grew, "shallower" when at least 10% less and most blocks shrank, "about the
 * same" between; a median that moved while the blocks split is said to be no
 * clear answer. A plain stack has no skip path, so every layer is on its only
 * path whatever it adds: the sentence says so instead. A run that did not
 * train (or diverged) learned nothing to use its depth for: its sentence says
 * that and draws nothing from its contributions.
 */
export function depthSentence(run, label) {
  const l = run?.lesion;
  if (!l || !l.contribution?.length) return null;
  const now = median(Array.from(l.contribution));
  const init = median(Array.from(l.contribution_init));
  const s = run.logs?.length && run.task ? summarize(run) : null;
  const stopped = notTrainedText(s);
  if (stopped) {
    const moved =
      Number.isFinite(now) && Number.isFinite(init)
        ? ` (the median block adds ${significant(now, 2)} of the stream it reads at the end, ${significant(init, 2)} at initialization)`
        : '';
    return {
      now,
      init,
      ratio: init > 0 ? now / init : NaN,
      deeper: null,
      text: s.finite
        ? `${label}: ${stopped}, so what its blocks add says nothing about how much of its depth it uses${moved}.`
        : `${label}: ${stopped}, so its blocks\u2019 contributions say nothing about its depth.`,
    };
  }
  // ReZero: every gate starts at 0, so every block adds exactly nothing at initialization
  if (Number.isFinite(now) && init === 0)
    return {
      now,
      init,
      ratio: Infinity,
      deeper: now > 0 ? true : null,
      text:
        `${label}: the median block adds ${significant(now, 2)} of the stream it reads at the end, nothing at ` +
        `initialization (its gate starts at 0): ${now > 0 ? 'training made the blocks count' : 'training left them at nothing'}.`,
    };
  if (!Number.isFinite(now) || !Number.isFinite(init) || init <= 0)
    return {
      now,
      init,
      ratio: NaN,
      deeper: null,
      text: `${label}: a block's contribution is not finite, so no answer.`,
    };
  const ratio = now / init;
  const n = l.contribution.length;
  const grew = l.contribution.filter((c, i) => c > l.contribution_init[i]).length;
  const up = ratio >= 1.1;
  const down = ratio <= 1 / 1.1;
  const deeper = up && grew > n / 2 ? true : down && grew < n / 2 ? false : null;
  const what =
    run.arch === 'plain'
      ? 'a plain stack has no skip path, so every layer is on its only path whatever it adds'
      : deeper === true
        ? 'its blocks add more to the stream than at the start, so the network uses more of its depth'
        : deeper === false
          ? 'its blocks add less than at the start: the stream passes through them closer to unchanged, so the network acts shallower'
          : up || down
            ? 'the median block moved, but the blocks split between growing and not: no clear change in how much of its depth it uses'
            : 'its blocks add about as much as at the start: training did not change how much of its depth it uses';
  return {
    now,
    init,
    ratio,
    deeper,
    text:
      `${label}: the median block adds ${significant(now, 2)} of the stream it reads at the end, ` +
      `${significant(init, 2)} at initialization (${significant(ratio, 2)}\u00d7; ${grew} of ${n} blocks grew): ${what}.`,
  };
}

/**
 * How one run of a comparison ended, from its own logs: {kind, text} with kind 'trained' (held-out
 * loss below halfway from chance to the optimum), 'chance' (within 10% of chance, as the presets'
 * "fails"), 'above' (more than 10% above chance), 'partway' (between trained and chance),
 * 'diverged' (a value not finite), 'far' (a finite loss far above chance at some step,
 * farAboveChance) or 'error' (the engine refused a step); null before its first log.
 */
export function runOutcome(run) {
  const end = runEnd(run);
  if (end?.kind === 'error') return { kind: 'error', text: end.text };
  const s = summarize(run);
  if (!s) return null;
  if (!s.finite) return { kind: 'diverged', text: `diverged at step ${s.divergedAt}` };
  const far = farAboveChance(run);
  if (far)
    return {
      kind: 'far',
      text: `rose far above chance (a loss of ${prose(far.loss)} at step ${far.step}) and ended at ${prose(s.loss)}`,
    };
  if (s.trained) return { kind: 'trained', text: `trained (${prose(s.loss)})` };
  if (s.loss > 1.1 * s.chance) return { kind: 'above', text: `ended above chance (${prose(s.loss)})` };
  if (s.fails) return { kind: 'chance', text: `ended at chance (${prose(s.loss)})` };
  return { kind: 'partway', text: `learned part of the task (${prose(s.loss)}, not below halfway)` };
}

/**
 * One line on a comparison of the lab's own runs (no paper preset), from each run's numbers: which
 * trained, which stayed at chance, which diverged. `runs`: the session's runs, each with `label`
 * (or its arch); null while a run has no log. Every run is of the same task, so chance and the
 * halfway line are said once.
 */
export function comparisonCaption(runs) {
  if (!runs?.length) return null;
  const outcomes = runs.map(runOutcome);
  if (outcomes.some((o) => !o)) return null;
  const task = runs.find((r) => r.task)?.task;
  const ends = runs.map((r, i) => `${r.label ?? r.arch} ${outcomes[i].text}`);
  const list = ends.length > 1 ? `${ends.slice(0, -1).join('; ')}; and ${ends.at(-1)}` : ends[0];
  return (
    `Held-out loss at the end (chance ${significant(task.chance, 3)}; below ${significant(halfway(task), 3)} ` +
    `is trained): ${list}.`
  );
}
