// A lab claim at one of its settings: 'quick', the small setting the lab runs by default (the
// module's own config, runs and judge), or 'deep', the paper's depth with the quick setting's
// recipe (the module's `deep`: see index.js for its shape). A claim whose quick setting is already
// at the paper's depth has a `deep` without a config, and is the same at both. Pure data, no DOM.
//
//   const c = claimAt(CLAIM_BY_ID.depth, 'deep');
//   claimConfig(c, defaults); c.runs; claimVerdict(c, runs);

/** The settings a claim is offered at, in the order a control lists them. */
export const SETTINGS = ['quick', 'deep'];

/** Whether `claim` has a deep setting of its own (not the quick one again). */
export const hasDeep = (claim) => Boolean(claim?.deep?.config);

/**
 * `claim` at `setting` ('quick' or 'deep'): an object with every part of the claim module, its
 * config, runs, judge and setting (the words) those of the setting. The quick setting, and the deep
 * one of a claim without its own, is the module itself.
 */
export function claimAt(claim, setting = 'quick') {
  if (!SETTINGS.includes(setting))
    throw new RangeError(`setting: must be one of ${SETTINGS.join(', ')}, got ${setting}`);
  if (setting === 'quick' || !hasDeep(claim)) return claim;
  const d = claim.deep;
  return {
    ...claim,
    config: d.config,
    runs: d.runs ?? claim.runs,
    judge: d.judge ?? claim.judge,
    setting: d.setting,
  };
}
