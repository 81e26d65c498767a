// The bank's claims about training: an item whose experiment has `train` (the
// training lab's settings) may name one of these in `train_check`. Each check
// trains the item's settings (and the variant it names, such as the same run
// with warmup) and compares the held-out losses at the last step, against the
// task's chance loss (the loss of guessing). Training takes seconds, not the
// moment a simulation takes, so the quiz page does not run these while the
// reader waits: tests/node/quiz/train-checks.test.js runs every one through
// the engine and asserts it is confirmed, and the page says that the setting
// is checked that way (experiment.js). Pure: no DOM, no engine of its own.
//
//   const r = await runTrainCheck(id, settings, train);   // {status, measured}
//   // train(config) -> {chance, heldout: {arch: held-out loss at the last step}}
import { defaultTrainConfig } from '../shared/train-fields.js';
import { trainToHash } from '../train/link.js';

/**
 * The margins of the checks, as fractions. The engine is deterministic (the same bits natively
 * and in WebAssembly), so a margin is not there for noise in the engine: it keeps a claim from
 * resting on a difference too small to show on the lab's log-scale loss chart.
 */
export const TRAIN_MARGINS = Object.freeze({
  // a run "fails" when its loss at the end is still at least half of the loss of guessing
  fails: 0.5,
  // a run "learns" the task when its loss at the end is at most a tenth of the loss of guessing
  learns: 0.1,
  // warmup "helps" when the run with it ends at no more than 0.7 of the loss without it
  helps: 0.7,
  // one architecture "beats" another when its loss is lower by 3% or more
  beats: 0.97,
});

const M = TRAIN_MARGINS;
const fmt = (v) => (Number.isFinite(v) ? Number(v.toPrecision(3)).toString() : String(v));
const warmupOf = (s) => Math.max(1, Math.round(s.steps / 2));

/** The warm variant of a setting: the same run with warmup over its first half. */
const warm = (s, arch) => ({ ...s, arch: [arch], warmup: warmupOf(s) });

/**
 * Each check: `claim` (what the page says the tests confirm), `need(settings)` (null when the
 * item's settings fit it, else why not; bank validation uses it), `runs(settings)` (the configs
 * to train, by name) and `verdict(losses, chance)`: {ok, measured}.
 */
export const TRAIN_CHECKS = Object.freeze({
  'warmup-rescues-postln': {
    claim: `Post-LN without warmup ends at ${M.fails} or more of the loss of guessing; with warmup over the first half of the steps it ends at ${M.helps} or less of that loss.`,
    need: (s) => (!s.arch.includes('post_ln') ? 'needs post_ln in arch' : s.warmup !== 0 ? 'needs warmup 0' : null),
    runs: (s) => ({ cold: s, warm: warm(s, 'post_ln') }),
    verdict: ({ cold, warm: w }, chance) => ({
      ok: cold.post_ln >= M.fails * chance && w.post_ln <= M.helps * cold.post_ln,
      measured: `Post-LN ${fmt(cold.post_ln)} without warmup, ${fmt(w.post_ln)} with it (guessing: ${fmt(chance)})`,
    }),
  },
  'postln-needs-warmup-preln-not': {
    claim: `Without warmup Post-LN ends at ${M.fails} or more of the loss of guessing while Pre-LN ends at ${M.learns} or less; with warmup Post-LN ends at ${M.helps} or less of its loss without.`,
    need: (s) =>
      !(s.arch.includes('post_ln') && s.arch.includes('pre_ln'))
        ? 'needs post_ln and pre_ln in arch'
        : s.warmup !== 0
          ? 'needs warmup 0'
          : null,
    runs: (s) => ({ cold: s, warm: warm(s, 'post_ln') }),
    verdict: ({ cold, warm: w }, chance) => ({
      ok: cold.post_ln >= M.fails * chance && cold.pre_ln <= M.learns * chance && w.post_ln <= M.helps * cold.post_ln,
      measured: `without warmup Post-LN ${fmt(cold.post_ln)}, Pre-LN ${fmt(cold.pre_ln)}; Post-LN with warmup ${fmt(w.post_ln)} (guessing: ${fmt(chance)})`,
    }),
  },
  'warmup-still-helps-preln': {
    claim: `At this large learning rate Pre-LN with warmup over the first half of the steps ends at ${M.helps} or less of its loss without warmup.`,
    need: (s) => (!s.arch.includes('pre_ln') ? 'needs pre_ln in arch' : s.warmup !== 0 ? 'needs warmup 0' : null),
    runs: (s) => ({ cold: s, warm: warm(s, 'pre_ln') }),
    verdict: ({ cold, warm: w }) => ({
      ok: w.pre_ln <= M.helps * cold.pre_ln,
      measured: `Pre-LN ${fmt(cold.pre_ln)} without warmup, ${fmt(w.pre_ln)} with it`,
    }),
  },
  'postln-beats-preln': {
    claim: `Here Post-LN ends with a held-out loss lower than Pre-LN\u2019s by ${Math.round((1 - M.beats) * 100)}% or more: Pre-LN does not always end lower.`,
    need: (s) =>
      !(s.arch.includes('post_ln') && s.arch.includes('pre_ln')) ? 'needs post_ln and pre_ln in arch' : null,
    runs: (s) => ({ cold: s }),
    verdict: ({ cold }) => ({
      ok: cold.post_ln <= M.beats * cold.pre_ln,
      measured: `Post-LN ${fmt(cold.post_ln)}, Pre-LN ${fmt(cold.pre_ln)}`,
    }),
  },
});
export const TRAIN_CHECK_IDS = Object.freeze(Object.keys(TRAIN_CHECKS));

/** An item's training settings as a whole config: the lab's defaults with the item's values. */
export const trainSettings = (train) => ({ ...defaultTrainConfig(), ...train, arch: [...train.arch] });

/** The training lab's URL for an item's settings, relative to the site's root: './train.html#...'. */
export const labHref = (train) => `./train.html${trainToHash(trainSettings(train))}`;

/**
 * Runs check `id` on an item's `train` settings with `train(config)` (possibly async) giving
 * {chance, heldout: {arch: loss}}: {status: 'confirmed' | 'refuted' | 'not-applicable', measured}.
 */
export async function runTrainCheck(id, train, trainFn) {
  const check = Object.hasOwn(TRAIN_CHECKS, id) ? TRAIN_CHECKS[id] : null;
  if (!check) return { status: 'not-applicable', measured: `unknown check ${String(id).slice(0, 40)}` };
  const settings = trainSettings(train);
  const why = check.need(settings);
  if (why) return { status: 'not-applicable', measured: why };
  const losses = {};
  let chance = null;
  for (const [name, config] of Object.entries(check.runs(settings))) {
    const out = await trainFn(config);
    losses[name] = out.heldout;
    chance = out.chance;
  }
  const { ok, measured } = check.verdict(losses, chance);
  return { status: ok ? 'confirmed' : 'refuted', measured };
}
