// The embedded lab's fields (embed.html#mode=train&..., <resnorm-train>):
// every training field (shared/train-fields.js), the claim, and the
// embed's own view fields, one table read through state.js, and the links
// they make. Pure: the Embed dialog's snippets (snippets.js) and the Node
// tests use it too.
import { FIELDS_TABLE, parseEntries, parseHash, stateToHash } from '../shared/state.js';
import { TRAIN_KEYS, TRAIN_TABLE } from '../shared/train-fields.js';
import { TRAIN_LINK_TABLE, claimSettings, claimTable, trainToHash } from '../train/link.js';

/** What `controls` and `lock` name: every setting, and `preset`, the claims' buttons (named as the link's claim). */
export const TRAIN_CONTROLS = [...TRAIN_KEYS, 'preset'];

const controlSet = (label, dflt) => ({
  group: 'view',
  kind: 'set',
  choices: TRAIN_CONTROLS,
  default: dflt,
  label,
  words: { all: TRAIN_CONTROLS, none: [] },
  // every field but one is longer than a link's value may be (state.js's LIMITS)
  maxLength: TRAIN_CONTROLS.join(',').length,
});

/** The embedded lab's view fields: which embed (mode), the settings shown and fixed, the theme. */
export const TRAIN_VIEW_TABLE = {
  mode: FIELDS_TABLE.mode,
  controls: controlSet('Controls shown', [...TRAIN_CONTROLS]),
  lock: controlSet('Controls locked', []),
  theme: FIELDS_TABLE.theme,
};

/**
 * Every field an embedded lab reads: mode first (a link says at once which embed it is), the claim
 * (`preset`, group 'lab', as the lab's own link has it), the training fields (group 'train') and the view's.
 */
export const TRAIN_EMBED_TABLE = {
  mode: TRAIN_VIEW_TABLE.mode,
  preset: TRAIN_LINK_TABLE.preset,
  ...TRAIN_TABLE,
  ...TRAIN_VIEW_TABLE,
};

const GROUPS = ['train', 'lab', 'view'];

/**
 * A parsed embed's settings: with a claim, its settings under those the link or the attributes gave.
 * An embed has no Seeds setting (the lab's own, shared/train-fields.js's LAB_FIELDS): it trains one seed.
 */
const withClaim = (r) => {
  const train = claimSettings(r.train, r.given, r.lab.preset);
  delete train.seeds;
  return { ...r, train };
};

/** [key, raw] pairs (an element's attributes) as {train, lab: {preset}, view, notices, given}. */
export const trainEmbedEntries = (entries, options = {}) =>
  withClaim(parseEntries(entries, { ...options, groups: GROUPS, table: TRAIN_EMBED_TABLE }));

/** embed.html's fragment for the lab: {train, lab: {preset}, view, notices, anchor}. */
export const trainEmbedFromHash = (hash) => withClaim(parseHash(hash, { groups: GROUPS, table: TRAIN_EMBED_TABLE }));

/**
 * What the claims' buttons are in an embed of `view` ({controls, lock}): 'live' (the
 * reader picks one), 'fixed' (the chosen one shown, pressed and disabled) or 'hidden'. A claim
 * sets every setting, so its buttons are live only while the reader may change every setting:
 * with any setting fixed or hidden they are fixed, and a claim cannot replace the author's setup.
 */
export function claimsMode({ controls, lock }) {
  if (!controls.includes('preset')) return 'hidden';
  if (lock.includes('preset')) return 'fixed';
  return TRAIN_KEYS.every((k) => controls.includes(k) && !lock.includes(k)) ? 'live' : 'fixed';
}

/** The table of an embed of `claim`: the defaults are the claim's settings. */
export const trainEmbedTable = (claim = 'none') => claimTable(claim, TRAIN_EMBED_TABLE);

/**
 * The embed's fragment: mode=train, the claim, then the settings and view fields that differ from
 * their defaults (the claim's settings when it names one).
 */
export const trainEmbedHash = (config, view = {}, claim = 'none') =>
  stateToHash(
    { train: config, lab: { preset: claim }, view: { ...view, mode: 'train' } },
    { groups: GROUPS, table: trainEmbedTable(claim) },
  );

/** The full lab's URL for a config and its claim. */
export const labLink = (siteUrl, config, claim = 'none') =>
  new URL(`train.html${trainToHash(config, claim)}`, siteUrl).href;
