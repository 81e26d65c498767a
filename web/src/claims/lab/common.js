// What the training lab's claims (./<id>.js, listed by ./index.js) share: how a run is read and
// judged, with the rules of the C++ reproductions (tests/core/test_reproductions.cpp): a run
// "trains" when its held-out loss ends below halfway from chance to the optimum, it "fails" when that
// loss is within 10% of chance or not finite, and one run ends "lower" than another when its
// held-out loss is lower. The C++ test also asks each comparison to clear 3 standard errors of the
// held-out items; a trainer reports only the held-out mean, so the page compares the means. Also a
// claim's config and its runs' (claimConfig, runConfigs), its verdict from its judge()
// (claimVerdict), and the sentences the lab writes of any run (runEnd, runOutcome,
// comparisonCaption, depthSentence). Pure functions, no DOM: Node runs them on the CLI's JSON lines
// (fromCli) as the page runs them on its trainers.
//
//   const v = claimVerdict(warmup, { post_ln: run, post_ln_warmup: run, pre_ln: run });
//   v.holds; v.checks; v.caption; v.numbers
//
// A run here is {key, label, logs, task: {chance, optimal}, lesion}: the
// session's run, or fromCli()'s.
import { sortArchs } from '../../shared/archs.js';
import { significant } from '../../shared/format.js';
import { engineSettings } from '../../shared/train-fields.js';

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
 * chance". The claims' runs stay under 1.7 times chance at every logged step (a deep plain
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
 * value, {kind: 'trained', step, text} when it stopped once trained (a claim's run that only has
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
export const lower = (a, b) => a.finite && (!b.finite || a.loss < b.loss);

/** A loss for prose: 3 significant digits, plain decimals down to 10^-4 ("0.0008"), a power of ten below. */
export function prose(v) {
  const a = Math.abs(v);
  if (a >= 1e-4 && a < 1e-3) return v.toPrecision(3).replace(/\.?0+$/, '');
  return significant(v, 3);
}

/** A held-out loss for prose, "not finite" for NaN or infinity. */
export const lossText = (s) => (s.finite ? prose(s.loss) : 'not finite');

/** A held-out loss beside the task's chance loss, for a check that a run stayed near chance. */
export const nearChanceText = (s) => `${lossText(s)}, chance ${significant(s.chance, 3)}`;

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

/** One part of a claim's verdict: what is claimed, whether it holds here, what was measured. */
export const check = (claimed, holds, measured) => ({ claimed, holds: Boolean(holds), measured });

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

/** How many seeds the lab trains a claim on unless told otherwise (seed, seed + 1, ...). */
export const CLAIM_SEEDS = 5;

/**
 * The lab's config of `claim`: the defaults, the claim's settings, CLAIM_SEEDS seeds, and its runs'
 * architectures (in the engine's order, as the settings keep them).
 */
export function claimConfig(claim, defaults) {
  return {
    ...defaults,
    ...claim.config,
    seeds: CLAIM_SEEDS,
    arch: sortArchs([...new Set(claim.runs.map((r) => r.arch))]),
  };
}

/**
 * Each run's config as `resnorm train` takes it: the claim's config (the engine's fields only) with
 * the run's overrides; with `seed`, on that seed.
 */
export function runConfigs(claim, config, seed = config.seed) {
  const on = seed === undefined ? {} : { seed };
  return claim.runs.map((r) => ({ ...engineSettings(config), ...(r.overrides ?? {}), arch: r.arch, ...on }));
}

/**
 * The verdict of `claim` (a module of this folder) on `runs` (keyed by the claim's run keys):
 * {holds, checks: [{claimed, holds, measured}], summary, caption, numbers}, or null while a run has
 * no log yet (or, for a claim that needs them, no lesion).
 */
export function claimVerdict(claim, runs) {
  if (!claim || !runs) return null;
  const s = {};
  for (const r of claim.runs) {
    s[r.key] = summarize(runs[r.key]);
    if (!s[r.key]) return null;
    if (claim.needsLesion && !runs[r.key].lesion) return null;
  }
  const out = claim.judge(s, runs);
  const numbers = { ...Object.fromEntries(claim.runs.map((r) => [`${r.key}.heldout`, s[r.key].loss])) };
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
 * loss below halfway from chance to the optimum), 'chance' (within 10% of chance, as the claims'
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
 * One line on a comparison of the lab's own runs (no claim), from each run's numbers: which
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

// ---- a claim over several seeds: each seed judged by the claim's own judge, then counted

/** Seeds for prose: "3", "1 and 4", "0, 2 and 5". */
export function seedsText(seeds) {
  if (seeds.length <= 1) return seeds.join('');
  return `${seeds.slice(0, -1).join(', ')} and ${seeds.at(-1)}`;
}

/**
 * The lowest and highest held-out loss run `key` ended at over the seeds of `bySeed` (seedsVerdict's),
 * the seeds it was not finite on, and its label: {key, label, min, max, finite, nonfinite: [seeds]}.
 */
export function lossSpread(bySeed, key, label = key) {
  const finite = [];
  const nonfinite = [];
  for (const { seed, runs } of bySeed) {
    const s = summarize(runs[key]);
    if (s?.finite) finite.push(s.loss);
    else nonfinite.push(seed);
  }
  return {
    key,
    label,
    min: finite.length ? Math.min(...finite) : NaN,
    max: finite.length ? Math.max(...finite) : NaN,
    finite: finite.length,
    nonfinite,
  };
}

/** One run's spread for prose: "1.82\u20132.06", "2.08 on every seed", "0.5\u20130.9, not finite on seeds 1 and 3". */
export function spreadText(sp) {
  if (!sp.finite) return 'not finite on any seed';
  const same = prose(sp.min) === prose(sp.max);
  const range = same ? prose(sp.min) : `${prose(sp.min)}\u2013${prose(sp.max)}`;
  const bad = sp.nonfinite.length
    ? `, not finite on seed${sp.nonfinite.length > 1 ? 's' : ''} ${seedsText(sp.nonfinite)}`
    : '';
  return `${range}${same && !bad && sp.finite > 1 ? ' on every seed' : ''}${bad}`;
}

/** "n seeds" in words up to ten: "five seeds (3 to 7)". */
function seedsCount(seeds) {
  const words = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
  const n = seeds.length;
  const count = `${words[n] ?? n} seed${n === 1 ? '' : 's'}`;
  return n > 1 ? `${count} (${seeds[0]} to ${seeds.at(-1)})` : `${count} (${seeds[0]})`;
}

/**
 * The verdict of `claim` over seeds. `bySeed`: one entry per seed, {seed, runs} with `runs` keyed by
 * the claim's run keys (claimVerdict's). Each seed is judged by the claim's own judge; the verdict
 * counts them: {holds (on every seed), held (how many), n, seeds: [{seed, verdict}], checks: [{claimed,
 * held, n, failing: [seeds]}], spread (lossSpread of each run), summary ("Holds on 3 of 5 seeds; not
 * on seeds 2 and 4."), badge, caption (the spread of each run's held-out loss over the seeds), numbers
 * (`<key>.heldout.min`, `.max`, `held`, `n`)}. Null while a seed has no verdict yet. Pure: Node runs it
 * on the CLI's JSON lines (fromCli) as the page on its trainers.
 */
export function seedsVerdict(claim, bySeed) {
  if (!claim || !bySeed?.length) return null;
  const seeds = bySeed.map((b) => claimVerdict(claim, b.runs));
  if (seeds.some((v) => !v)) return null;
  const n = seeds.length;
  const ids = bySeed.map((b) => b.seed);
  const held = seeds.filter((v) => v.holds).length;
  const checks = seeds[0].checks.map((c, i) => {
    const failing = ids.filter((_, j) => !seeds[j].checks[i]?.holds);
    return { claimed: c.claimed, held: n - failing.length, n, failing };
  });
  const spread = claim.runs.map((r) => lossSpread(bySeed, r.key, r.label ?? r.key));
  const notHeld = ids.filter((_, j) => !seeds[j].holds);
  const summary =
    held === n
      ? `Holds on ${n === 1 ? 'its one seed' : `all ${n} seeds`}.`
      : `Holds on ${held} of ${n} seed${n > 1 ? 's' : ''}; not on seed${notHeld.length > 1 ? 's' : ''} ${seedsText(notHeld)}.`;
  const task = bySeed.map((b) => summarize(b.runs[claim.runs[0].key])).find(Boolean);
  const caption =
    `Held-out loss at the end on ${seedsCount(ids)}, lowest to highest (chance ${significant(task.chance, 3)}): ` +
    `${spread.map((sp) => `${sp.label} ${spreadText(sp)}`).join('; ')}.`;
  const numbers = { held, n };
  for (const sp of spread) {
    numbers[`${sp.key}.heldout.min`] = sp.min;
    numbers[`${sp.key}.heldout.max`] = sp.max;
  }
  return {
    holds: held === n,
    held,
    n,
    seeds: ids.map((seed, j) => ({ seed, verdict: seeds[j] })),
    checks,
    spread,
    summary,
    badge: `holds on ${held} of ${n} seeds`,
    caption,
    numbers,
  };
}
