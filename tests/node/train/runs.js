// Hand-made lab runs for the tests of what the lab says about them (verdicts.test.js,
// truth.test.js): the logs a session keeps, without training anything.

export const REVERSE = { chance: Math.log(8), optimal: 0 };
export const TEACHER = { chance: 1, optimal: 0 };

/** A run whose held-out (and training) loss goes through `losses` at steps 10, 20, ...; a NaN is a non-finite step. */
export function run(losses, task = REVERSE, extra = {}) {
  const logs = losses.map((loss, i) => ({
    step: 10 * (i + 1),
    heldout_loss: loss,
    train_loss: loss,
    top_cosine: 0.5,
    first_nonfinite: Number.isFinite(loss) ? null : 10 * (i + 1),
  }));
  return { logs, task, lesion: null, ...extra };
}
