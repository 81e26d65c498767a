// The current numbers as files: CSV (config in `#` header lines, one row per
// layer) and JSON (the config and every array, as the CLI writes them). Pure
// functions of the engine's output document; no DOM.

import { fixed } from '../../shared/format.js';
import { configText, csvCell, jsonNumber, numberText } from '../../shared/export-text.js';

export const FORMAT = 'resnorm-export';
export const VERSION = 1;

// The per-layer arrays are every array of an arch's results, in the engine's
// order: those of L+1 entries are per layer (layers 0..L), those of L per
// block (blocks 1..L, written on row l = block l). Transformer blocks add six.
const isArray = (v) => v != null && typeof v === 'object' && typeof v.length === 'number';

/** The array-valued keys of one arch's results, in the engine's order. */
export const arraysOf = (result) => Object.keys(result).filter((k) => isArray(result[k]));

/**
 * CSV: `# key,value` lines for the config (and the link), then a header row
 * `layer,<arch>.<array>,...` and one row per layer l = 0..L.
 */
export function toCsv(out, { link = '' } = {}) {
  const archs = Object.keys(out.results);
  const L = out.config.depth;
  const lines = [
    '# resnorm: per-layer numbers at initialization (update_ratio and w*_grad_norm of block l on row l)',
    '# overflow (a value beyond float32 range and every value computed from one) is written Infinity',
  ];
  if (link) lines.push(`# link,${csvCell(link)}`);
  for (const [k, v] of Object.entries(out.config)) lines.push(`# ${k},${csvCell(configText(v))}`);
  const cols = archs.flatMap((a) => arraysOf(out.results[a]).map((k) => [a, k]));
  lines.push(['layer', ...cols.map(([a, k]) => `${a}.${k}`)].join(','));
  for (let l = 0; l <= L; l++) {
    const row = [String(l)];
    for (const [a, k] of cols) {
      const arr = out.results[a][k];
      const i = arr.length === L + 1 ? l : l - 1;
      row.push(i >= 0 && i < arr.length ? numberText(arr[i]) : '');
    }
    lines.push(row.join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** JSON: {format, version, link, config, results}; overflow (Infinity) is null, as in the CLI's JSON. */
export function toJson(out, { link = '' } = {}) {
  const results = {};
  for (const [arch, r] of Object.entries(out.results)) {
    const o = {};
    for (const [k, v] of Object.entries(r)) {
      if (isArray(v)) o[k] = Array.from(v, jsonNumber);
      else o[k] = v;
    }
    results[arch] = o;
  }
  return `${JSON.stringify({ format: FORMAT, version: VERSION, link, config: out.config, results }, null, 1)}\n`;
}

/** A file name that says what is in it: resnorm-d96-g1.00-s0.csv */
export function fileBase(config) {
  return `resnorm-d${config.depth}-g${fixed(config.gain, 2)}-s${config.seed}`;
}
