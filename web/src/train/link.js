// The training lab's link (#task=copy&depth=4&arch=post_ln,pre_ln, or #preset=warmup&seed=1): every
// train field of shared/train-fields.js, read and written through state.js, the claim of the
// lab (claims/lab/) whose settings and runs a link can name, and the claim's setting (quick or
// deep, claims/lab/setting.js). Pure, no DOM: the lab, its embed, an assignment and the quiz's
// train checks read and write the same links.
//
//   trainFromHash('#preset=depth&setting=deep')   // {config, preset: 'depth', setting: 'deep', notices, anchor}
//   trainToHash(config, 'depth', 'deep')           // '#preset=depth&setting=deep'
//   trainFromHash('#claim=depth')                  // `claim` is read as `preset`
import { parseHash, stateToHash } from '../shared/state.js';
import { LAB_TABLE, defaultLabConfig } from '../shared/train-fields.js';
import { CLAIM_BY_ID, CLAIM_IDS, SETTINGS, claimAt, claimConfig, hasDeep } from '../claims/lab/index.js';

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
  setting: {
    group: 'lab',
    kind: 'choice',
    choices: SETTINGS,
    default: 'quick',
    label: 'Claim setting',
  },
  ...LAB_TABLE,
};

/** The setting `claim` (an id) is at: 'deep' only for a claim with a deep setting of its own. */
export const settingOf = (claim, setting) => (setting === 'deep' && hasDeep(CLAIM_BY_ID[claim]) ? 'deep' : 'quick');

/** The claim `claim` (an id) at `setting`, or null for 'none'. */
const claimOf = (claim, setting) =>
  CLAIM_BY_ID[claim] ? claimAt(CLAIM_BY_ID[claim], settingOf(claim, setting)) : null;

/**
 * `table` (the lab's link table unless another, such as the embedded lab's) with the defaults of
 * `claim`'s settings at `setting`; the table itself for 'none'.
 */
export function claimTable(claim, table = TRAIN_LINK_TABLE, setting = 'quick') {
  const c = claimOf(claim, setting);
  if (!c) return table;
  const base = claimConfig(c, defaultLabConfig());
  return Object.fromEntries(Object.entries(table).map(([k, f]) => [k, k in base ? { ...f, default: base[k] } : f]));
}

/**
 * The settings a parsed link means: with a claim, the claim's settings (at `setting`) and over them
 * those the link gave (`given`, parseEntries's); without one, `train` as read.
 */
export function claimSettings(train, given, claim, setting = 'quick') {
  const c = claimOf(claim, setting);
  if (!c) return train;
  const base = claimConfig(c, defaultLabConfig());
  return { ...base, ...Object.fromEntries(given.filter((k) => Object.hasOwn(train, k)).map((k) => [k, train[k]])) };
}

/** A link's `claim` is its `preset`: the lab's links write `preset`, and `claim` is the word a reader may type. */
const claimAlias = (key) => (key === 'claim' ? 'preset' : key);

/**
 * The lab's fragment: {config, preset, setting, notices, anchor}, every value read through
 * TRAIN_LINK_TABLE; `preset` is the claim's id ('none': none), `setting` its setting ('quick'
 * unless the link says 'deep' of a claim that has a deep setting), and with a claim the fields the
 * link does not give are the claim's at that setting.
 */
export function trainFromHash(hash) {
  const r = parseHash(hash, { groups: ['train', 'lab'], table: TRAIN_LINK_TABLE, alias: claimAlias });
  const claim = r.lab.preset;
  const setting = settingOf(claim, r.lab.setting);
  if (r.lab.setting !== setting)
    r.notices.push({
      field: 'setting',
      value: r.lab.setting,
      reason: CLAIM_BY_ID[claim]
        ? `the ${CLAIM_BY_ID[claim].title} claim has no deep setting (its quick one is at the paper\u2019s depth); quick is used`
        : 'a setting of a claim, and the link names none (preset=<claim>); not used',
    });
  return {
    config: claimSettings(r.train, r.given, claim, setting),
    preset: claim,
    setting,
    notices: r.notices,
    anchor: r.anchor,
  };
}

/**
 * The lab's config as a fragment: the fields that differ from their defaults (from the claim's
 * settings at `setting` when `claim` names one, which the fragment then names as `preset=`, and
 * `setting=deep` for a deep one); '' when none do.
 */
export function trainToHash(config, claim = 'none', setting = 'quick') {
  const at = CLAIM_BY_ID[claim] ? settingOf(claim, setting) : 'quick';
  return stateToHash(
    { train: config, lab: { preset: claim, setting: at } },
    { groups: ['train', 'lab'], table: claimTable(claim, TRAIN_LINK_TABLE, at) },
  );
}
