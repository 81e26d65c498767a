// The engine's config fields as the web uses them: the engine's own table
// (engine-fields.js, written from `rn.fields` by web/build/engine-fields.js)
// with the web's presentation of each field keyed by its name: label, slider
// range and marks, display names of choices, where the explorer's form puts
// it, the architectures it belongs to. A field the engine adds appears everywhere
// (links, controls, embed attributes, exports) with a generic presentation:
// its name as the label, a number box or a menu, the engine's help text as the hint.
import ENGINE_FIELDS from './engine-fields.js';

/**
 * Presentation, per engine field. `choices` narrows an integer field to the
 * values the engine accepts (its table gives expansion and heads as ranges
 * whose allowed values are "1, 2 or 4" and "1, 2, 4 or 8"); tests check that
 * the engine accepts each of them and refuses the others. `section` 'model'
 * puts the field in the explorer's "Model" group, 'arch' in the architectures'
 * place (after the depth, the gain and the starting points, so the sliders the page's
 * introduction names are on its first screen). `archs` names the architectures
 * that read the field: its control is shown only while one of them is
 * chosen (fieldApplies), and the printed settings and captions name it only then.
 */
export const PRESENTATION = {
  arch: { label: 'Architectures', section: 'arch' },
  depth: { label: 'Depth L', unit: 'layers', sliderMax: 96, step: 1, exact: 'exact number of blocks' },
  gain: { label: 'Gain g', sliderMin: 0.5, sliderMax: 1.5, step: 0.01, marks: [0.8, 1.0, 1.2], digits: 2 },
  width: { label: 'Width d', section: 'model' },
  tokens: { label: 'Tokens T', section: 'model' },
  expansion: {
    label: 'Expansion e',
    section: 'model',
    choices: [1, 2, 4],
    names: { 1: '1 (m = d)', 2: '2 (m = 2d)', 4: '4 (m = 4d)' },
  },
  activation: {
    label: 'Activation φ',
    section: 'model',
    names: { relu: 'ReLU', gelu: 'GELU', tanh: 'tanh', linear: 'linear' },
  },
  init: { label: 'Init', section: 'model', names: { gaussian: 'Gaussian', orthogonal: 'orthogonal' } },
  final_norm: {
    label: 'Final norm',
    section: 'model',
    names: { none: 'none', layernorm: 'LayerNorm', rmsnorm: 'RMSNorm' },
  },
  seed: { label: 'Seed', section: 'model', reroll: true },
  block: {
    label: 'Block',
    section: 'model',
    names: { mlp: 'MLP', transformer: 'transformer' },
  },
  heads: { label: 'Heads', section: 'model', choices: [1, 2, 4, 8] },
  causal: { label: 'Causal mask', section: 'model', names: { true: 'causal', false: 'none' } },
  qk_norm: { label: 'QK-norm', section: 'model', names: { none: 'none', layernorm: 'LayerNorm' } },
  mix_fraction: { label: 'Mix-LN Post-LN share', section: 'model', step: 0.05, archs: ['mix_ln'] },
  dyt_alpha: { label: 'DyT α₀', section: 'model', step: 0.05, archs: ['dyt'] },
  hc_streams: { label: 'HC streams n', section: 'model', archs: ['hyper', 'mhc'] },
  ngpt_alpha: { label: 'nGPT α init', section: 'model', step: 0.01, archs: ['ngpt'] },
  sinkhorn_iters: { label: 'mHC Sinkhorn iterations', section: 'model', archs: ['mhc'] },
  attn_res_blocks: { label: 'AttnRes blocks N (0: Full)', section: 'model', archs: ['attn_res'] },
};

/**
 * Whether a field (of a table in state.js's shape) matters for `config`: a
 * field of some architectures (`archs`) only while one of them is in config.arch.
 */
export const fieldApplies = (field, config) => !field.archs || field.archs.some((a) => config.arch.includes(a));

/**
 * A real field's value as the controls, the printed settings and the captions show it: with the
 * field's digits (2 unless it says), or in full where those would round it (0.125 reads 0.125,
 * not 0.13), so no view shows another number than the engine is given.
 */
export function realText(field, v) {
  const t = v.toFixed(field.digits ?? 2);
  return Number(t) === v ? t : String(v);
}

/** The order of the web's forms and links: the presented fields first, then any other of the engine's. */
const ORDER = ['arch', 'depth', 'gain', 'width', 'tokens', 'expansion', 'activation', 'init', 'final_norm', 'seed'];

// An engine choice field of exactly "true" and "false" holds a boolean.
const isBoolean = (f) =>
  f.kind === 'choice' && f.choices.length === 2 && f.choices.every((c) => c === 'true' || c === 'false');

function defaultOf(f, choices) {
  if (f.kind === 'choice_list') return f.default.split(',');
  if (isBoolean(f)) return f.default === 'true';
  if (f.kind === 'choice') return f.default;
  const v = Number(f.default);
  return choices ? (choices.find((c) => c === v) ?? v) : v;
}

/** One engine field as state.js's table holds it, with `presentation` keyed by field name. */
function webField(f, presentation, group) {
  const p = presentation[f.name] ?? {};
  const base = { group, label: p.label ?? f.name.replaceAll('_', ' '), help: f.help, engine: f };
  if (f.kind === 'choice_list')
    return { ...base, ...p, kind: 'choice_list', choices: [...f.choices], default: defaultOf(f) };
  if (f.kind === 'choice') {
    const choices = isBoolean(f) ? [true, false] : [...f.choices];
    return { ...base, ...p, kind: 'choice', choices, default: defaultOf(f) };
  }
  if (p.choices) return { ...base, ...p, kind: 'choice', choices: [...p.choices], default: defaultOf(f, p.choices) };
  const step = f.kind === 'real' ? 0.01 : 1;
  return { step, ...base, ...p, kind: f.kind, min: f.min, max: f.max, default: defaultOf(f) };
}

/**
 * An engine field table (`rn.fields`, `rn.trainFields`) as state.js's fields
 * of one `group`: {keys, fields}, the keys in `order` first, then any other
 * of the engine's; `presentation` keyed by field name as PRESENTATION is.
 */
export function webFields(engineFields, { presentation, order, group }) {
  const byName = Object.fromEntries(engineFields.map((f) => [f.name, f]));
  const keys = [
    ...order.filter((k) => byName[k]),
    ...engineFields.map((f) => f.name).filter((k) => !order.includes(k)),
  ];
  return { keys, fields: Object.fromEntries(keys.map((k) => [k, webField(byName[k], presentation, group)])) };
}

const config = webFields(ENGINE_FIELDS, { presentation: PRESENTATION, order: ORDER, group: 'config' });

/** The engine's config field names, in the web's order. */
export const CONFIG_KEYS = config.keys;

/** The config fields of state.js's table, keyed by name. */
export const CONFIG_FIELDS = config.fields;

/** The engine's architectures (arch's choices), in the engine's order. */
export const ENGINE_ARCHS = [...ENGINE_FIELDS.find((f) => f.name === 'arch').choices];

export { ENGINE_FIELDS };
