// Writes web/src/shared/engine-fields.js: the engine's own field table
// (`rn.fields` of wasm/resnorm.js: name, kind, min, max, allowed, default,
// help, choices of every config field), read from the built wasm module. The
// web builds its link state, controls, embed attributes and exports from it
// (shared/fields.js). It is a module rather than a .json file so that Node
// and the browser import it alike, without import attributes. The file is
// committed, so the site, the dev server and
// the Node tests work without a wasm build; `npm run build:web` rewrites it
// and tests/node/shared/fields.test.js fails while it differs from the engine.
//
//   node web/build/engine-fields.js           writes the file
//   node web/build/engine-fields.js --check   exits 1 if it is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { loadResnorm } from '../../wasm/resnorm.js';

const WASM = fileURLToPath(new URL('../../wasm/dist/resnorm_wasm.wasm', import.meta.url));
export const FIELDS_FILE = fileURLToPath(new URL('../src/shared/engine-fields.js', import.meta.url));

const HEAD = `// The engine's field table, \`rn.fields\` of wasm/resnorm.js, written by
// web/build/engine-fields.js from the built wasm module: do not edit.
`;

/** The module's text for the engine's field table (formatted as the tree's formatter would). */
export async function engineFieldsText() {
  const rn = await loadResnorm({ wasmBinary: readFileSync(WASM) });
  const options = (await resolveConfig(FIELDS_FILE)) ?? {};
  return format(`${HEAD}export default ${JSON.stringify(rn.fields)};\n`, { ...options, filepath: FIELDS_FILE });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await engineFieldsText();
  let old = '';
  try {
    old = readFileSync(FIELDS_FILE, 'utf8');
  } catch {
    /* not written yet */
  }
  if (process.argv.includes('--check')) {
    if (old !== text) {
      console.error(`${FIELDS_FILE} differs from the engine's field table: run node web/build/engine-fields.js`);
      process.exit(1);
    }
  } else if (old !== text) writeFileSync(FIELDS_FILE, text);
}
