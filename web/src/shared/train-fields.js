// The engine's training fields as the web uses them: the engine's own train
// table (engine-train-fields.js, written from `rn.trainFields` by
// web/build/engine-fields.js) with the web's presentation of each field keyed
// by its name, as fields.js does for the simulate table. The lab's link
// (#task=copy&depth=4&arch=post_ln,pre_ln) reads and writes its settings
// through this one table (train/link.js). A field the engine adds appears in
// the link and in the lab's form (under "more") with a generic presentation.
import ENGINE_TRAIN_FIELDS from './engine-train-fields.js';
import { PRESENTATION, webFields } from './fields.js';

/** The sections of the lab's form, in order; a field without one goes to 'more'. */
export const TRAIN_SECTIONS = ['task', 'arch', 'model', 'training', 'more'];

/**
 * Presentation, per engine train field: label, the form's section, and
 * `more` for the fields behind the section's "More settings". Reals take any
 * decimal in their box (`step: 'any'`): learning rates and epsilons are far
 * below a slider's step.
 */
export const TRAIN_PRESENTATION = {
  task: {
    label: 'Task',
    section: 'task',
    names: {
      copy: 'copy',
      reverse: 'reverse',
      sort: 'sort',
      modadd: 'modular addition',
      markov: 'Markov chain',
      teacher: 'teacher (regression)',
    },
  },
  seq: { label: 'Symbols n', section: 'task' },
  seq_min: { label: 'Shortest n (padded)', section: 'task', more: true },
  vocab: { label: 'Vocabulary V', section: 'task' },
  arch: { label: 'Architectures', section: 'arch' },
  block: { ...PRESENTATION.block, section: 'model' },
  depth: { label: 'Depth L', section: 'model' },
  width: { label: 'Width d', section: 'model' },
  heads: { ...PRESENTATION.heads, section: 'model' },
  qk_norm: { ...PRESENTATION.qk_norm, section: 'model' },
  mix_fraction: { ...PRESENTATION.mix_fraction, section: 'model' },
  dyt_alpha: { ...PRESENTATION.dyt_alpha, section: 'model' },
  hc_streams: { ...PRESENTATION.hc_streams, section: 'model' },
  ngpt_alpha: { ...PRESENTATION.ngpt_alpha, section: 'model' },
  sinkhorn_iters: { ...PRESENTATION.sinkhorn_iters, section: 'model' },
  attn_res_blocks: { ...PRESENTATION.attn_res_blocks, section: 'model' },
  expansion: { ...PRESENTATION.expansion, section: 'model', more: true },
  activation: { ...PRESENTATION.activation, section: 'model', more: true },
  init: { ...PRESENTATION.init, section: 'model', more: true },
  gain: { label: 'Gain g', section: 'model', more: true, step: 'any' },
  positions: {
    label: 'Positions',
    section: 'model',
    more: true,
    names: { learned: 'learned', sinusoidal: 'sinusoidal' },
  },
  final_norm: {
    label: 'Final norm',
    section: 'model',
    more: true,
    names: { auto: 'the architecture\u2019s', none: 'none', layernorm: 'LayerNorm', rmsnorm: 'RMSNorm' },
  },
  norm: {
    label: 'Norm kind',
    section: 'model',
    more: true,
    names: { auto: 'the architecture\u2019s', batchnorm: 'BatchNorm' },
  },
  bn_pads: { label: 'BatchNorm: pads', section: 'model', more: true, names: { mask: 'masked', count: 'counted' } },
  bn_momentum: { label: 'BatchNorm momentum', section: 'model', more: true, step: 'any' },
  optimizer: {
    label: 'Optimizer',
    section: 'training',
    names: { sgd: 'SGD with momentum', adam: 'Adam', adamw: 'AdamW' },
  },
  lr: { label: 'Peak learning rate', section: 'training', step: 'any' },
  warmup: { label: 'Warmup steps', section: 'training' },
  schedule: {
    label: 'Schedule',
    section: 'training',
    names: { constant: 'constant', linear: 'linear decay', cosine: 'cosine', inverse_sqrt: 'inverse square root' },
  },
  batch: { label: 'Batch B', section: 'training' },
  steps: { label: 'Steps', section: 'training' },
  seed: { label: 'Seed', section: 'training', reroll: true },
  momentum: { label: 'Momentum', section: 'training', more: true, step: 'any' },
  beta1: { label: 'Adam \u03b2\u2081', section: 'training', more: true, step: 'any' },
  beta2: { label: 'Adam \u03b2\u2082', section: 'training', more: true, step: 'any' },
  eps: { label: 'Adam \u03b5', section: 'training', more: true, step: 'any' },
  weight_decay: { label: 'Weight decay', section: 'training', more: true, step: 'any' },
  clip: { label: 'Gradient clip', section: 'training', more: true, step: 'any' },
  log_every: { label: 'Log every', section: 'training', more: true },
  eval_batches: { label: 'Held-out batches', section: 'training', more: true },
};

/** The order of the lab's form and links: the presented fields first, then any other of the engine's. */
const TRAIN_ORDER = Object.keys(TRAIN_PRESENTATION);

const train = webFields(ENGINE_TRAIN_FIELDS, { presentation: TRAIN_PRESENTATION, order: TRAIN_ORDER, group: 'train' });

/** The engine's train field names, in the web's order. */
export const TRAIN_KEYS = train.keys;

/** The lab's field table (state.js's shape, group 'train'), keyed by name. */
export const TRAIN_TABLE = train.fields;

/** The defaults of every train field, as JS values. */
export const defaultTrainConfig = () =>
  Object.fromEntries(TRAIN_KEYS.map((k) => [k, structuredClone(TRAIN_TABLE[k].default)]));

export { ENGINE_TRAIN_FIELDS };

/**
 * The lab's own settings beyond the engine's, in its form, links and model files: `seeds`, how many
 * independent runs each run of the lab trains, with seeds seed, seed + 1, ... (the CLI's --seed). The
 * engine never sees them (engineSettings).
 */
export const LAB_FIELDS = {
  seeds: {
    group: 'train',
    kind: 'integer',
    min: 1,
    max: 16,
    step: 1,
    default: 1,
    label: 'Seeds',
    section: 'training',
    help: 'independent runs of each setting, with seeds seed, seed + 1, \u2026',
  },
};

/** The lab's fields: the engine's train fields, then its own (LAB_FIELDS). */
export const LAB_KEYS = [...TRAIN_KEYS, ...Object.keys(LAB_FIELDS)];

/** The lab's field table (state.js's shape): TRAIN_TABLE and LAB_FIELDS. */
export const LAB_TABLE = { ...TRAIN_TABLE, ...LAB_FIELDS };

/** The defaults of every field of the lab: the engine's and its own. */
export const defaultLabConfig = () => ({
  ...defaultTrainConfig(),
  ...Object.fromEntries(Object.entries(LAB_FIELDS).map(([k, f]) => [k, f.default])),
});

/** How many seeds a lab config trains (1 when it does not say). */
export const seedsOf = (config) => config?.seeds ?? LAB_FIELDS.seeds.default;

/** The seeds a lab config trains: config.seed + i for i = 0 .. seeds - 1. */
export const seedList = (config) =>
  Array.from({ length: seedsOf(config) }, (_, i) => (config.seed ?? TRAIN_TABLE.seed.default) + i);

/** A lab config as the engine takes it: without the lab's own fields. */
export function engineSettings(config) {
  const out = { ...config };
  for (const k of Object.keys(LAB_FIELDS)) delete out[k];
  return out;
}
