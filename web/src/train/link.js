// The training lab's link (#task=copy&depth=4&arch=post_ln,pre_ln, or #preset=warmup&seed=1): every
// train field of shared/train-fields.js, read and written through state.js, and the claim of the
// lab (claims/lab/) whose settings and runs a link can name. Pure, no DOM: the lab, its embed, an
// assignment and the quiz's train checks read and write the same links.
//
//   trainFromHash('#preset=warmup&seed=1')   // {config, preset: 'warmup', notices, anchor}
//   trainToHash(config, 'warmup')            // '#preset=warmup&seed=1'
import { parseHash, stateToHash } from '../shared/state.js';
import { LAB_TABLE, defaultLabConfig } from '../shared/train-fields.js';
import { CLAIM_BY_ID, CLAIM_IDS, claimConfig } from '../claims/lab/index.js';

/**
 * The lab's link table: the train fields, the lab's own (seeds) and the claim a link names (#preset=warmup&seed=1: the
 * claim's settings, with the seed changed). The parameter is named `preset`, as the lab's links
 * and embeds have always written it, so every link and embed attribute already out there keeps
 * opening its claim.
 */
export const TRAIN_LINK_TABLE = {
  preset: {
    group: 'lab',
    kind: 'choice',
    choices: ['none', ...CLAIM_IDS],
    default: 'none',
    label: 'Paper claim',
  },
  ...LAB_TABLE,
};

/**
 * `table` (the lab's link table unless another, such as the embedded lab's) with the defaults of
 * `claim`'s settings; the table itself for 'none'.
 */
export function claimTable(claim, table = TRAIN_LINK_TABLE) {
  const c = CLAIM_BY_ID[claim];
  if (!c) return table;
  const base = claimConfig(c, defaultLabConfig());
  return Object.fromEntries(Object.entries(table).map(([k, f]) => [k, k in base ? { ...f, default: base[k] } : f]));
}

/**
 * The settings a parsed link means: with a claim, the claim's settings and over them those the
 * link gave (`given`, parseEntries's); without one, `train` as read.
 */
export function claimSettings(train, given, claim) {
  const c = CLAIM_BY_ID[claim];
  if (!c) return train;
  const base = claimConfig(c, defaultLabConfig());
  return { ...base, ...Object.fromEntries(given.filter((k) => Object.hasOwn(train, k)).map((k) => [k, train[k]])) };
}

/**
 * The lab's fragment: {config, preset, notices, anchor}, every value read through
 * TRAIN_LINK_TABLE; `preset` is the claim's id ('none': none), and with a claim the fields the
 * link does not give are the claim's.
 */
export function trainFromHash(hash) {
  const r = parseHash(hash, { groups: ['train', 'lab'], table: TRAIN_LINK_TABLE });
  const claim = r.lab.preset;
  return { config: claimSettings(r.train, r.given, claim), preset: claim, notices: r.notices, anchor: r.anchor };
}

/**
 * The lab's config as a fragment: the fields that differ from their defaults (from the claim's
 * settings when `claim` names one, which the fragment then names as `preset=`); '' when none do.
 */
export const trainToHash = (config, claim = 'none') =>
  stateToHash({ train: config, lab: { preset: claim } }, { groups: ['train', 'lab'], table: claimTable(claim) });
