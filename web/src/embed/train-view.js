// The embedded lab's fields (embed.html#mode=train&..., <resnorm-train>):
// every training field (shared/train-fields.js) and the embed's own view
// fields, one table read through state.js, and the links they make. Pure:
// the Embed dialog's snippets (snippets.js) and the Node tests use it too.
import { FIELDS_TABLE, parseEntries, parseHash, stateToHash } from '../shared/state.js';
import { TRAIN_KEYS, TRAIN_TABLE, trainToHash } from '../shared/train-fields.js';

const controlSet = (label, dflt) => ({
  group: 'view',
  kind: 'set',
  choices: TRAIN_KEYS,
  default: dflt,
  label,
  words: { all: TRAIN_KEYS, none: [] },
  // every field but one is longer than a link's value may be (state.js's LIMITS)
  maxLength: TRAIN_KEYS.join(',').length,
});

/** The embedded lab's view fields: which embed (mode), the settings shown and fixed, the theme. */
export const TRAIN_VIEW_TABLE = {
  mode: FIELDS_TABLE.mode,
  controls: controlSet('Controls shown', [...TRAIN_KEYS]),
  lock: controlSet('Controls locked', []),
  theme: FIELDS_TABLE.theme,
};

/** Every field an embedded lab reads: the training fields (group 'train') and its view's, mode first (a link says at once which embed it is). */
export const TRAIN_EMBED_TABLE = { mode: TRAIN_VIEW_TABLE.mode, ...TRAIN_TABLE, ...TRAIN_VIEW_TABLE };

const GROUPS = ['train', 'view'];

/** [key, raw] pairs (an element's attributes) as {train, view, notices, given}. */
export const trainEmbedEntries = (entries, options = {}) =>
  parseEntries(entries, { ...options, groups: GROUPS, table: TRAIN_EMBED_TABLE });

/** embed.html's fragment for the lab: {train, view, notices, anchor}. */
export const trainEmbedFromHash = (hash) => parseHash(hash, { groups: GROUPS, table: TRAIN_EMBED_TABLE });

/** The embed's fragment: mode=train, then the settings and view fields that differ from their defaults. */
export const trainEmbedHash = (config, view = {}) =>
  stateToHash({ train: config, view: { ...view, mode: 'train' } }, { groups: GROUPS, table: TRAIN_EMBED_TABLE });

/** The full lab's URL for a config. */
export const labLink = (siteUrl, config) => new URL(`train.html${trainToHash(config)}`, siteUrl).href;
