// Shared by the Node tests: paths, the native CLI, the wasm module.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadResnorm } from '../../wasm/resnorm.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = `${ROOT}build/native/resnorm`;
export const WASM = `${ROOT}wasm/dist/resnorm_wasm.wasm`;

/** The shipped ES6 build, loaded in Node by handing it the binary. */
export function loadWasm() {
  return loadResnorm({ wasmBinary: readFileSync(WASM) });
}

/** `resnorm simulate --json` for a config object in the JS API's shape. */
export function cli(config) {
  const args = ['simulate', '--json'];
  for (const [k, v] of Object.entries(config))
    args.push(`--${k.replace(/_/g, '-')}`, Array.isArray(v) ? v.join(',') : String(v));
  return JSON.parse(execFileSync(CLI, args, { encoding: 'utf8' }));
}
