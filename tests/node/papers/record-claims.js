// Writes claims-recorded.json's entries for the claims named on the command line from the code as it
// is: what tests/node/papers/claims.test.js then holds each claim to. For a new claim, or after a change
// of its table or caption that is meant (read the diff of the JSON before committing it).
//   node tests/node/papers/record-claims.js <id>...
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { loadWasm } from '../helpers.js';
import { reproduce } from '../../../web/src/engine/experiments.js';
import { PANEL_IDS, summarize } from '../../../web/src/papers/repro.js';
import { caption } from '../../../web/src/papers/captions.js';
import { record, variants } from './claims-variants.js';

const FILE = new URL('./claims-recorded.json', import.meta.url);
const ids = process.argv.slice(2);
const unknown = ids.filter((id) => !PANEL_IDS.includes(id));
if (ids.length === 0 || unknown.length) {
  console.error(`usage: node tests/node/papers/record-claims.js <id>... (ids: ${PANEL_IDS.join(', ')})`);
  process.exit(2);
}
const recorded = JSON.parse(readFileSync(FILE, 'utf8'));
const rn = await loadWasm();
for (const id of ids)
  recorded[id] = variants(id, reproduce(rn, id)).map(({ name, result, view }) => ({
    name,
    ...record(summarize, caption, id, result, view),
  }));
// in the page's order
const ordered = Object.fromEntries(PANEL_IDS.filter((id) => id in recorded).map((id) => [id, recorded[id]]));
// as `npm run format` leaves it
const options = await prettier.resolveConfig(fileURLToPath(FILE));
writeFileSync(FILE, await prettier.format(JSON.stringify(ordered), { ...options, parser: 'json' }));
console.log(`recorded ${ids.join(', ')}`);
