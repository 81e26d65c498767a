// The explorer's first paint, computed at build time by the same wasm engine
// the page runs: the default scene's result (the config a page without a
// fragment shows), shipped inside the explorer's bundle as the virtual module
// `virtual:resnorm-first-paint`, so the charts are drawn before the engine
// worker has even loaded; the live answer replaces it when it comes
// (explorer/first-paint.js decodes it). Every array is its Float64Array's
// bytes in base64, so the shipped numbers are bit for bit the engine's
// (tests/node/shared/first-paint.test.js checks them against rn.simulate).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadResnorm } from '../../wasm/resnorm.js';
import { parseHash } from '../src/shared/state.js';

const WASM = fileURLToPath(new URL('../../wasm/dist/resnorm_wasm.wasm', import.meta.url));
export const FIRST_PAINT_ID = 'virtual:resnorm-first-paint';

const base64 = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

/** {config, results: {arch: {array: base64 | value}}} for the explorer's default config. */
export async function firstPaintData() {
  const rn = await loadResnorm({ wasmBinary: readFileSync(WASM) });
  const config = parseHash('', { groups: ['config'] }).config;
  const out = rn.simulate(config);
  const results = {};
  for (const [arch, r] of Object.entries(out.results))
    results[arch] = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, ArrayBuffer.isView(v) ? base64(v) : v]));
  rn.dispose();
  return { config: out.config, results };
}

export function firstPaintPlugin() {
  let source = null;
  return {
    name: 'resnorm-first-paint',
    resolveId: (id) => (id === FIRST_PAINT_ID ? `\0${FIRST_PAINT_ID}` : null),
    async load(id) {
      if (id !== `\0${FIRST_PAINT_ID}`) return null;
      source ??= `export default ${JSON.stringify(await firstPaintData())};\n`;
      return source;
    },
  };
}
