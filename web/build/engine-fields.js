// Writes the engine's field tables into web/src/shared/, read from the built
// wasm module: engine-fields.js holds `rn.fields` (every simulate config
// field: name, kind, min, max, allowed, default, help, choices), and
// engine-train-fields.js holds `rn.trainFields` (every training field, in the
// same shape). The web builds its link state, controls, embed attributes and
// exports from them (shared/fields.js, shared/train-fields.js). They are
// modules rather than .json files so that Node and the browser import them
// alike, without import attributes. The files are committed, so the site, the
// dev server and the Node tests work without a wasm build; `npm run build:web`
// rewrites them and tests/node/shared/fields.test.js and train-fields.test.js
// fail while they differ from the engine.
//
//   node web/build/engine-fields.js           writes the files
//   node web/build/engine-fields.js --check   exits 1 if one is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { loadResnorm } from '../../wasm/resnorm.js';

const WASM = fileURLToPath(new URL('../../wasm/dist/resnorm_wasm.wasm', import.meta.url));
const shared = (name) => fileURLToPath(new URL(`../src/shared/${name}`, import.meta.url));
export const FIELDS_FILE = shared('engine-fields.js');
export const TRAIN_FIELDS_FILE = shared('engine-train-fields.js');

/** Each file, the module's property it holds, and what the property is called in the file's head. */
const TABLES = [
  { file: FIELDS_FILE, key: 'fields' },
  { file: TRAIN_FIELDS_FILE, key: 'trainFields' },
];

const head = (key) => `// The engine's field table, \`rn.${key}\` of wasm/resnorm.js, written by
// web/build/engine-fields.js from the built wasm module: do not edit.
`;

/** The module's text for one table (formatted as the tree's formatter would). */
async function tableText(file, key, value) {
  const options = (await resolveConfig(file)) ?? {};
  return format(`${head(key)}export default ${JSON.stringify(value)};\n`, { ...options, filepath: file });
}

/**
 * [{file, key, text}] for every table the built module has; a table the
 * module does not offer (a wasm build from before it existed) is left out,
 * with its file as it is.
 */
export async function engineFieldTexts() {
  const rn = await loadResnorm({ wasmBinary: readFileSync(WASM) });
  const out = [];
  for (const { file, key } of TABLES)
    if (Array.isArray(rn[key])) out.push({ file, key, text: await tableText(file, key, rn[key]) });
  rn.dispose();
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const texts = await engineFieldTexts();
  for (const { key } of TABLES.filter((t) => !texts.some((x) => x.key === t.key)))
    console.warn(`web/build/engine-fields.js: the wasm module has no rn.${key}; its file is left as it is`);
  let stale = false;
  for (const { file, text } of texts) {
    let old = '';
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      /* not written yet */
    }
    if (old === text) continue;
    if (process.argv.includes('--check')) {
      console.error(`${file} differs from the engine's field table: run node web/build/engine-fields.js`);
      stale = true;
    } else writeFileSync(file, text);
  }
  if (stale) process.exit(1);
}
