// The current config as one object, and the declared table of controls.
//
// The ranges and defaults mirror the engine's field table (core/src/config.cpp,
// `rn.fields` in wasm/resnorm.js). The page never loads the engine itself (it
// runs in the worker), so the table is restated here; the engine still checks
// every value and its error message is what the page shows.
import { ARCHS, sortArchs } from './archs.js';

export const CONTROLS = {
  arch: { kind: 'choice_list', choices: ARCHS.map((a) => a.key), default: ['plain', 'residual', 'post_ln', 'pre_ln'] },
  depth: { kind: 'integer', min: 1, max: 1024, sliderMax: 96, step: 1, default: 96, label: 'Depth L', unit: 'layers' },
  gain: { kind: 'real', min: 0, max: 4, sliderMin: 0.5, sliderMax: 1.5, step: 0.01, marks: [0.8, 1.0, 1.2], default: 1.0, label: 'Gain g' },
  width: { kind: 'integer', min: 2, max: 512, step: 1, default: 64, label: 'Width d' },
  tokens: { kind: 'integer', min: 1, max: 64, step: 1, default: 8, label: 'Tokens T' },
  expansion: { kind: 'choice', choices: [1, 2, 4], default: 1, label: 'Expansion e',
    names: { 1: '1 (m = d)', 2: '2 (m = 2d)', 4: '4 (m = 4d)' } },
  activation: { kind: 'choice', choices: ['relu', 'gelu', 'tanh', 'linear'], default: 'relu', label: 'Activation φ',
    names: { relu: 'ReLU', gelu: 'GELU', tanh: 'tanh', linear: 'linear' } },
  init: { kind: 'choice', choices: ['gaussian', 'orthogonal'], default: 'gaussian', label: 'Init',
    names: { gaussian: 'Gaussian', orthogonal: 'orthogonal' } },
  final_norm: { kind: 'choice', choices: ['none', 'layernorm', 'rmsnorm'], default: 'none', label: 'Final norm',
    names: { none: 'none', layernorm: 'LayerNorm', rmsnorm: 'RMSNorm' } },
  seed: { kind: 'uint32', min: 0, max: 4294967295, step: 1, default: 0, label: 'Seed' },
};

export const FIELDS = Object.keys(CONTROLS);

export function defaultConfig() {
  return Object.fromEntries(FIELDS.map((k) => [k, structuredClone(CONTROLS[k].default)]));
}

/** A tiny store: one config object, replaced (never mutated) on every change. */
export function createStore(initial = defaultConfig()) {
  let config = Object.freeze({ ...initial, arch: sortArchs(initial.arch) });
  const listeners = new Set();
  return {
    get: () => config,
    /** Merges `patch` into the config; listeners run only if something changed. */
    set(patch) {
      const next = { ...config, ...patch };
      if (patch.arch) next.arch = sortArchs(patch.arch);
      if (sameConfig(next, config)) return;
      config = Object.freeze(next);
      listeners.forEach((fn) => fn(config));
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

function sameConfig(a, b) {
  return FIELDS.every((k) => (k === 'arch' ? a.arch.join() === b.arch.join() : Object.is(a[k], b[k])));
}

// ---- The config in the URL fragment (#depth=50&gain=0.8&arch=plain,pre_ln), so
// a view can be linked. Only fields that differ from the defaults are written;
// anything unreadable is ignored (the default stays).

export function configToHash(config) {
  const dflt = defaultConfig();
  const params = new URLSearchParams();
  for (const k of FIELDS) {
    const v = k === 'arch' ? config.arch.join(',') : String(config[k]);
    const d = k === 'arch' ? dflt.arch.join(',') : String(dflt[k]);
    if (v !== d) params.set(k, v);
  }
  const s = params.toString().replaceAll('%2C', ',');
  return s ? `#${s}` : '';
}

export function configFromHash(hash) {
  const config = defaultConfig();
  let params;
  try {
    params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  } catch {
    return config;
  }
  for (const [k, raw] of params) {
    const c = CONTROLS[k];
    if (!c || raw.length > 200) continue;
    if (c.kind === 'choice_list') {
      const list = raw.split(',').filter((v) => c.choices.includes(v));
      if (list.length) config.arch = sortArchs(list);
    } else if (c.kind === 'choice') {
      const v = c.choices.find((ch) => String(ch) === raw);
      if (v !== undefined) config[k] = v;
    } else {
      const v = Number(raw);
      const whole = c.kind !== 'real';
      if (raw.trim() !== '' && Number.isFinite(v) && v >= c.min && v <= c.max && (!whole || Number.isInteger(v))) config[k] = v;
    }
  }
  return config;
}
