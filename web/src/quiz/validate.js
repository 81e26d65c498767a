// Validator for the quiz question bank (web/src/quiz/bank.json).
//
// validateBank(bank, schema) returns an array of error strings; an empty array means valid.
// It never throws on bad input. Two layers:
//   1. A small JSON Schema subset: type, required, properties, enum, items, minItems, pattern,
//      additionalProperties. Any other keyword in the schema is reported as an error (so nobody
//      adds "minimum" believing it is enforced); the annotations $schema, $id, title, description
//      and $comment are ignored.
//   2. Semantic checks the subset cannot express: unique ids, id/section/type consistency,
//      `answer` boolean iff type is true-false, setting values within the engine's ranges (and its
//      memory budget), training settings (`train`) that the training lab's link reads back as
//      given, known check ids whose preconditions the setting or the training settings meet,
//      balanced math delimiters in the text fields, and an experiment for every item that makes a
//      claim (CLAIM_TAGS).
// No dependencies: runs in the browser and in Node.

import { CONFIG_FIELDS, ENGINE_ARCHS } from '../shared/fields.js';
import { TRAIN_TABLE } from '../shared/train-fields.js';
import { readField, writeField } from '../shared/state.js';
import { TRAIN_CHECKS, TRAIN_CHECK_IDS, trainSettings } from './train-checks.js';
import { CLAIM_BY_ID, CLAIM_IDS } from '../claims/lab/index.js';

export const SUPPORTED_KEYWORDS = Object.freeze([
  'type',
  'required',
  'properties',
  'enum',
  'items',
  'minItems',
  'pattern',
  'additionalProperties',
]);
export const ANNOTATION_KEYWORDS = Object.freeze(['$schema', '$id', 'title', 'description', '$comment']);

export const SECTIONS = Object.freeze({
  'true-false': { prefix: 'tf', type: 'true-false', solutionSource: 'source' },
  'spot-the-error': { prefix: 'err', type: 'find-error', solutionSource: 'source' },
  why: { prefix: 'why', type: 'open', solutionSource: 'source' },
  'edge-cases': { prefix: 'edge', type: 'open', solutionSource: 'source' },
  recall: { prefix: 'recall', type: 'open', solutionSource: 'source' },
  'rapid-fire': { prefix: 'rapid', type: 'open', solutionSource: 'ours' },
});

// The engine's architectures and its fields' ranges, choices and defaults, from the
// engine's own field table (shared/fields.js).
export const ARCHS = Object.freeze([...ENGINE_ARCHS]);
const fieldsOfKind = (kinds) => Object.entries(CONFIG_FIELDS).filter(([, f]) => kinds.includes(f.kind));
export const SETTING_RANGES = Object.freeze(
  Object.fromEntries(
    fieldsOfKind(['integer', 'uint32', 'real']).map(([k, f]) => [
      k,
      { integer: f.kind !== 'real', min: f.min, max: f.max },
    ]),
  ),
);
export const SETTING_CHOICES = Object.freeze(
  Object.fromEntries(fieldsOfKind(['choice']).map(([k, f]) => [k, f.choices])),
);
export const SETTING_DEFAULTS = Object.freeze({
  width: CONFIG_FIELDS.width.default,
  expansion: CONFIG_FIELDS.expansion.default,
});
// The engine keeps every layer's weights: 2 L d m must stay at or below 64 Mi.
export const WEIGHT_BUDGET = 64 * 1024 * 1024;

export const PANELS = Object.freeze(['norm']);

/**
 * What makes an item a claim about gradients, norms or training: a tag among these (every topic
 * tag of the schema is one). Such an item must have an experiment: a simulation setting, the norm
 * panel, or the training lab's settings.
 */
export const CLAIM_TAGS = Object.freeze(['residuals', 'layernorm', 'placement', 'warmup', 'rmsnorm', 'init']);
export const makesClaim = (item) => Array.isArray(item.tags) && item.tags.some((t) => CLAIM_TAGS.includes(t));

/** Archs whose block has a bare identity path (h + ...): gradient exactly 1 at gain 0. */
export const IDENTITY_ARCHS = Object.freeze(['residual', 'pre_ln', 'pre_rms', 'sandwich', 'gpt2']);

// Each check id with the precondition an experiment must meet for the check to make sense.
// `need` returns null when the experiment fits, else a short reason.
// A precondition from parts: the archs the setting must hold, then a test of the gain and its reason.
const needs =
  (archs, gainOk = () => true, gainWhy = '') =>
  (p) =>
    !archs.every((a) => p.arch.includes(a))
      ? `needs ${archs.join(' and ')} in arch`
      : !gainOk(p.gain)
        ? `needs ${gainWhy}`
        : null;
const positive = (g) => g > 0;
export const CHECKS = Object.freeze({
  'gain0-identity': {
    kind: 'setting',
    need: (p) =>
      p.gain !== 0
        ? 'needs gain 0'
        : !p.arch.some((a) => IDENTITY_ARCHS.includes(a))
          ? `needs one of ${IDENTITY_ARCHS.join(', ')} in arch`
          : null,
  },
  'plain-explodes': { kind: 'setting', need: needs(['plain'], (g) => g > 1, 'gain > 1') },
  'plain-vanishes': { kind: 'setting', need: needs(['plain'], (g) => g < 1, 'gain < 1') },
  'preln-stream-grows': { kind: 'setting', need: needs(['pre_ln', 'post_ln'], positive, 'gain > 0') },
  'postln-norms-sum': { kind: 'setting', need: needs(['post_ln', 'sandwich'], positive, 'gain > 0') },
  'postln-damps': { kind: 'setting', need: needs(['residual', 'post_ln'], positive, 'gain > 0') },
  // the 1/sqrt(L) scaling gives each branch variance 1/L only when the branch itself has unit gain
  'gpt2-variance-two': { kind: 'setting', need: needs(['gpt2'], (g) => g === 1, 'gain 1') },
  'postln-uneven': { kind: 'setting', need: needs(['post_ln']) },
  'layernorm-constant': { kind: 'panel', need: () => null },
});
export const CHECK_IDS = Object.freeze(Object.keys(CHECKS));

export const TEXT_FIELDS = Object.freeze(['prompt', 'solution', 'explanation']);

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
// A value as JSON for error messages ("\"x\"", "[1,2]"), or as a string when JSON cannot say it.
const show = (v) => {
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
};

function typeMatches(value, type) {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return false;
  }
}

function describeType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const TYPE_NAMES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];

// Walk the schema itself: unknown keywords and malformed keyword values are errors.
function checkSchema(schema, where, errors) {
  if (!isObject(schema)) {
    errors.push(`schema ${where}: must be an object`);
    return;
  }
  for (const key of Object.keys(schema)) {
    if (!SUPPORTED_KEYWORDS.includes(key) && !ANNOTATION_KEYWORDS.includes(key)) {
      errors.push(`schema ${where}: unsupported keyword "${key}"`);
    }
  }
  if ('type' in schema) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    for (const t of types) if (!TYPE_NAMES.includes(t)) errors.push(`schema ${where}.type: unknown type ${show(t)}`);
  }
  if (
    'required' in schema &&
    !(Array.isArray(schema.required) && schema.required.every((k) => typeof k === 'string'))
  ) {
    errors.push(`schema ${where}.required: must be an array of strings`);
  }
  if ('enum' in schema && !Array.isArray(schema.enum)) errors.push(`schema ${where}.enum: must be an array`);
  if ('minItems' in schema && !(Number.isInteger(schema.minItems) && schema.minItems >= 0)) {
    errors.push(`schema ${where}.minItems: must be a non-negative integer`);
  }
  if ('pattern' in schema) {
    try {
      new RegExp(schema.pattern, 'u');
    } catch {
      errors.push(`schema ${where}.pattern: invalid regular expression ${show(schema.pattern)}`);
    }
  }
  if ('properties' in schema) {
    if (!isObject(schema.properties)) errors.push(`schema ${where}.properties: must be an object`);
    else for (const [k, sub] of Object.entries(schema.properties)) checkSchema(sub, `${where}.properties.${k}`, errors);
  }
  if ('items' in schema) checkSchema(schema.items, `${where}.items`, errors);
  if ('additionalProperties' in schema && typeof schema.additionalProperties !== 'boolean') {
    checkSchema(schema.additionalProperties, `${where}.additionalProperties`, errors);
  }
}

// Validate `value` against the supported subset. Assumes checkSchema found the schema well formed.
export function validateSchema(value, schema, path = '$', errors = []) {
  if (!isObject(schema)) return errors;
  if ('type' in schema) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(value, t))) {
      errors.push(`${path}: expected ${types.join(' or ')}, got ${describeType(value)}`);
      return errors; // the other keywords would only repeat the same problem
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => show(e) === show(value))) {
    errors.push(`${path}: ${show(value)} is not one of ${schema.enum.map(show).join(', ')}`);
  }
  if (typeof value === 'string' && typeof schema.pattern === 'string') {
    let re = null;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch {
      re = null;
    }
    if (re && !re.test(value)) errors.push(`${path}: ${show(value)} does not match pattern ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (Number.isInteger(schema.minItems) && value.length < schema.minItems) {
      errors.push(`${path}: expected at least ${schema.minItems} item(s), got ${value.length}`);
    }
    if (isObject(schema.items)) value.forEach((v, i) => validateSchema(v, schema.items, `${path}[${i}]`, errors));
  }
  if (isObject(value)) {
    if (Array.isArray(schema.required)) {
      for (const k of schema.required) {
        if (!Object.prototype.hasOwnProperty.call(value, k)) errors.push(`${path}: missing required property "${k}"`);
      }
    }
    const props = isObject(schema.properties) ? schema.properties : {};
    for (const [k, v] of Object.entries(value)) {
      if (Object.prototype.hasOwnProperty.call(props, k)) {
        validateSchema(v, props[k], `${path}.${k}`, errors);
      } else if (schema.additionalProperties === false) {
        errors.push(`${path}: unexpected property "${k}"`);
      } else if (isObject(schema.additionalProperties)) {
        validateSchema(v, schema.additionalProperties, `${path}.${k}`, errors);
      }
    }
  }
  return errors;
}

// Math delimiters: inline \( ... \) and display \[ ... \] must pair up, in order, without nesting.
// Returns error strings (without a path prefix).
export function mathDelimiterErrors(text) {
  if (typeof text !== 'string') return [];
  const errors = [];
  const re = /\\[()[\]]/g;
  let open = null;
  let m;
  while ((m = re.exec(text)) !== null) {
    const tok = m[0];
    if (tok === '\\(' || tok === '\\[') {
      if (open) errors.push(`${tok} at ${m.index} opens math inside ${open.tok} opened at ${open.at}`);
      open = { tok, at: m.index };
    } else {
      const want = tok === '\\)' ? '\\(' : '\\[';
      if (!open) errors.push(`${tok} at ${m.index} closes math that was never opened`);
      else if (open.tok !== want) errors.push(`${tok} at ${m.index} closes ${open.tok} opened at ${open.at}`);
      open = null;
    }
  }
  if (open) errors.push(`${open.tok} opened at ${open.at} is never closed`);
  return errors;
}

function checkSetting(setting, where, errors) {
  for (const [field, r] of Object.entries(SETTING_RANGES)) {
    if (!(field in setting)) continue;
    const v = setting[field];
    if (typeof v !== 'number' || !Number.isFinite(v) || (r.integer && !Number.isInteger(v)) || v < r.min || v > r.max) {
      errors.push(
        `${where}.${field}: ${show(v)} is out of range (allowed ${r.integer ? 'integer ' : ''}${r.min}..${r.max})`,
      );
    }
  }
  for (const [field, choices] of Object.entries(SETTING_CHOICES)) {
    if (field in setting && !choices.includes(setting[field])) {
      errors.push(`${where}.${field}: ${show(setting[field])} is not one of ${choices.join(', ')}`);
    }
  }
  if (!Array.isArray(setting.arch) || setting.arch.length === 0) {
    errors.push(`${where}.arch: must be a non-empty list of architectures`);
  } else {
    setting.arch.forEach((a, i) => {
      if (!ARCHS.includes(a)) errors.push(`${where}.arch[${i}]: unknown architecture ${show(a)}`);
      else if (setting.arch.indexOf(a) !== i) errors.push(`${where}.arch[${i}]: ${a} is listed twice`);
    });
  }
  const L = setting.depth;
  const d = 'width' in setting ? setting.width : SETTING_DEFAULTS.width;
  const e = 'expansion' in setting ? setting.expansion : SETTING_DEFAULTS.expansion;
  if ([L, d, e].every(Number.isInteger) && 2 * L * d * (e * d) > WEIGHT_BUDGET) {
    const maxDepth = Math.floor(WEIGHT_BUDGET / (2 * d * e * d));
    errors.push(
      `${where}.depth: ${L} exceeds the engine's weight budget at width ${d}, expansion ${e} (allowed 1..${maxDepth})`,
    );
  }
}

function checkExperiment(exp, where, errors) {
  if (!isObject(exp)) {
    errors.push(`${where}: must be an object`);
    return;
  }
  const hasSetting = 'setting' in exp;
  const hasPanel = 'panel' in exp;
  const hasTrain = 'train' in exp;
  if (Number(hasSetting) + Number(hasPanel) + Number(hasTrain) !== 1) {
    errors.push(`${where}: needs exactly one of "setting" or "panel" or "train"`);
  }
  if (hasTrain) checkTrain(exp, where, errors);
  else if ('train_check' in exp) errors.push(`${where}.train_check: needs "train"`);
  if (hasPanel && !PANELS.includes(exp.panel)) errors.push(`${where}.panel: unknown panel ${show(exp.panel)}`);
  if ('claim' in exp && !Object.hasOwn(CLAIM_BY_ID, exp.claim)) {
    errors.push(`${where}.claim: unknown claim of the lab ${show(exp.claim)} (known: ${CLAIM_IDS.join(', ')})`);
  }
  if (hasSetting) {
    if (isObject(exp.setting)) checkSetting(exp.setting, `${where}.setting`, errors);
    else errors.push(`${where}.setting: must be an object`);
  }
  if ('check' in exp) {
    const check = CHECKS[exp.check];
    if (!Object.prototype.hasOwnProperty.call(CHECKS, exp.check) || !check) {
      errors.push(`${where}.check: unknown check id ${show(exp.check)} (known: ${CHECK_IDS.join(', ')})`);
    } else if (check.kind === 'panel') {
      if (!hasPanel) errors.push(`${where}.check: "${exp.check}" is a norm-panel check and needs "panel"`);
    } else if (!hasSetting || !isObject(exp.setting)) {
      errors.push(`${where}.check: "${exp.check}" is checked on a simulation and needs "setting"`);
    } else if (Array.isArray(exp.setting.arch) && typeof exp.setting.gain === 'number') {
      const why = check.need(exp.setting);
      if (why) errors.push(`${where}.check: "${exp.check}" ${why}`);
    }
  }
}

/** An experiment's training settings: each a field of the lab, each value as its link reads it back. */
function checkTrain(exp, where, errors) {
  const train = exp.train;
  if (!isObject(train)) {
    errors.push(`${where}.train: must be an object`);
    return;
  }
  if (!Array.isArray(train.arch)) errors.push(`${where}.train.arch: the architectures to train are needed`);
  for (const [key, value] of Object.entries(train)) {
    if (!Object.hasOwn(TRAIN_TABLE, key)) {
      errors.push(`${where}.train.${key}: not a setting of the training lab`);
      continue;
    }
    const text = Array.isArray(value) || typeof value !== 'object' ? writeField(key, value, TRAIN_TABLE) : '';
    const r = readField(key, text, TRAIN_TABLE);
    if (!r.ok || r.dropped || JSON.stringify(r.value) !== JSON.stringify(value))
      errors.push(
        `${where}.train.${key}: ${show(value)} is not a value the lab takes (${r.reason ?? 'read back differently'})`,
      );
  }
  if (!('train_check' in exp)) return;
  if (!Object.hasOwn(TRAIN_CHECKS, exp.train_check)) {
    errors.push(
      `${where}.train_check: unknown check id ${show(exp.train_check)} (known: ${TRAIN_CHECK_IDS.join(', ')})`,
    );
  } else if (Array.isArray(train.arch)) {
    const why = TRAIN_CHECKS[exp.train_check].need(trainSettings(train));
    if (why) errors.push(`${where}.train_check: "${exp.train_check}" ${why}`);
  }
}

function semanticErrors(bank) {
  const errors = [];
  if (!isObject(bank) || !Array.isArray(bank.items)) return errors;
  const seen = new Map();
  bank.items.forEach((item, i) => {
    if (!isObject(item)) return;
    const where = `$.items[${i}]${typeof item.id === 'string' ? ` (${item.id})` : ''}`;
    if (typeof item.id === 'string') {
      if (seen.has(item.id)) errors.push(`${where}.id: duplicate id, first used by $.items[${seen.get(item.id)}]`);
      else seen.set(item.id, i);
    }
    const sec = SECTIONS[item.section];
    if (sec) {
      if (typeof item.id === 'string' && !item.id.startsWith(`${sec.prefix}-`)) {
        errors.push(`${where}.id: ids in section "${item.section}" start with "${sec.prefix}-"`);
      }
      if (typeof item.type === 'string' && item.type !== sec.type) {
        errors.push(
          `${where}.type: items in section "${item.section}" have type "${sec.type}", got ${show(item.type)}`,
        );
      }
      if (typeof item.solution_source === 'string' && item.solution_source !== sec.solutionSource) {
        errors.push(`${where}.solution_source: section "${item.section}" expects "${sec.solutionSource}"`);
      }
    }
    const hasAnswer = 'answer' in item && item.answer !== null;
    if (item.type === 'true-false') {
      if (typeof item.answer !== 'boolean') errors.push(`${where}.answer: a true-false item needs a boolean answer`);
    } else if (hasAnswer) {
      errors.push(`${where}.answer: only true-false items have an answer (omit it or use null)`);
    }
    if (Array.isArray(item.tags)) {
      item.tags.forEach((t, j) => {
        if (item.tags.indexOf(t) !== j) errors.push(`${where}.tags[${j}]: duplicate tag ${show(t)}`);
      });
    }
    for (const f of TEXT_FIELDS) {
      for (const e of mathDelimiterErrors(item[f])) errors.push(`${where}.${f}: ${e}`);
    }
    if ('experiment' in item) {
      checkExperiment(item.experiment, `${where}.experiment`, errors);
      if (isObject(item.experiment)) {
        for (const e of mathDelimiterErrors(item.experiment.look)) errors.push(`${where}.experiment.look: ${e}`);
      }
    } else if (makesClaim(item)) {
      errors.push(`${where}: makes a claim (tags ${item.tags.join(', ')}) and needs an experiment`);
    }
  });
  return errors;
}

export function validateBank(bank, schema) {
  const errors = [];
  checkSchema(schema, '#', errors);
  if (errors.length > 0) return errors; // a broken schema makes instance errors meaningless
  validateSchema(bank, schema, '$', errors);
  errors.push(...semanticErrors(bank));
  return errors;
}
