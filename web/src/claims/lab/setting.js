// A lab claim at one of its settings: 'quick', the small setting the lab runs by default (the
// module's own config, runs and judge), or 'deep', the paper's depth with the quick setting's
// recipe (the module's `deep`: see index.js for its shape). A claim whose quick setting is already
// at the paper's depth has a `deep` without a config, and is the same at both. Pure data, no DOM;
// the lab's words for the choice (deepChange, quickIsDeepText, depthsText) are computed from the
// settings' data and the runs' configs.
//
//   const c = claimAt(CLAIM_BY_ID.depth, 'deep');
//   claimConfig(c, defaults); c.runs; claimVerdict(c, runs);
//   deepChange(CLAIM_BY_ID.depth, defaults)   // '6 and 48 blocks instead of 6 and 18'
import { claimConfig, runConfigs } from './common.js';

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

/** The depths of runs' `configs` in words, ascending, each once: '6 and 48', '24'. */
export function depthsText(configs) {
  const d = [...new Set(configs.map((c) => c.depth))].sort((a, b) => a - b);
  return d.length > 1 ? `${d.slice(0, -1).join(', ')} and ${d.at(-1)}` : String(d[0]);
}

/** The depths of `claim`'s runs (at one setting, claimAt's) over the lab's `defaults`, in words. */
const runDepths = (claim, defaults) => depthsText(runConfigs(claim, claimConfig(claim, defaults)));

/**
 * What the deep setting of `claim` changes from its quick one, in words from both settings' runs
 * and configs over the lab's `defaults` ('6 and 48 blocks instead of 6 and 18'; any other field
 * that differs by its name, 'lr 0.001 instead of 0.004'), or null for a claim without a deep one.
 */
export function deepChange(claim, defaults) {
  if (!hasDeep(claim)) return null;
  const deep = claimAt(claim, 'deep');
  const q = claimConfig(claim, defaults);
  const d = claimConfig(deep, defaults);
  const parts = [`${runDepths(deep, defaults)} blocks instead of ${runDepths(claim, defaults)}`];
  for (const k of Object.keys(d))
    if (k !== 'depth' && k !== 'arch' && JSON.stringify(q[k]) !== JSON.stringify(d[k]))
      parts.push(`${k} ${d[k]} instead of ${q[k]}`);
  return parts.join('; ');
}

/** Why `claim` offers no deep setting, with its quick runs' depths over `defaults`; null when it has one. */
export const quickIsDeepText = (claim, defaults) =>
  hasDeep(claim)
    ? null
    : `No deep setting: the quick one already runs the paper\u2019s depths (${runDepths(claim, defaults)} blocks).`;
