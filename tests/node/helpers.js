// Shared by the Node tests: paths, the native CLI, the wasm module.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadResnorm } from '../../wasm/resnorm.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = `${ROOT}build/native/resnorm`;
// torchrun over two processes on this machine. Debian's torchrun (python3-torch 1.13 under Python 3.11)
// needs --redirects and --tee set (docs/pytorch.md, "Scale out"); the c10d rendezvous on port 0 picks
// a free port, so test files running at the same time do not meet on torchrun's default 29500.
export const TORCHRUN = [
  '/usr/bin/torchrun',
  '--redirects',
  '2',
  '--tee',
  '2',
  '--rdzv_backend',
  'c10d',
  '--rdzv_endpoint',
  'localhost:0',
  '--nnodes',
  '1',
  '--nproc_per_node',
  '2',
];
// Debian's Python with python3-torch (not a pyenv python3 earlier on PATH).
export const PYTHON = '/usr/bin/python3';
export const WASM = `${ROOT}wasm/dist/resnorm_wasm.wasm`;

/** The shipped ES6 build, loaded in Node by handing it the binary. */
export function loadWasm() {
  return loadResnorm({ wasmBinary: readFileSync(WASM) });
}

// A config object in the JS API's shape as the CLI's flags (--final-norm, lists comma-separated).
const flags = (config) =>
  Object.entries(config).flatMap(([k, v]) => [`--${k.replace(/_/g, '-')}`, Array.isArray(v) ? v.join(',') : String(v)]);

/** `resnorm simulate --json` for a config object in the JS API's shape. */
export function cli(config) {
  return JSON.parse(execFileSync(CLI, ['simulate', '--json', ...flags(config)], { encoding: 'utf8' }));
}

/**
 * `resnorm train --json` for a config in the JS API's shape: {logs: {<arch>:
 * [the JSON line of each logged step]}, summary: the final line}.
 */
export function cliTrain(config) {
  const lines = execFileSync(CLI, ['train', '--json', ...flags(config)], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const logs = {};
  for (const l of lines.slice(0, -1)) (logs[l.arch] ??= []).push(l);
  return { logs, summary: lines.at(-1) };
}

/** Every number as its exact text (-0 kept), typed arrays as lists: equal strings are equal bits. */
export const bits = (v) =>
  JSON.stringify(v, (k, x) => {
    if (ArrayBuffer.isView(x)) return Array.from(x, (n) => (Object.is(n, -0) ? '-0' : String(n)));
    if (typeof x === 'number') return Object.is(x, -0) ? '-0' : String(x);
    return x;
  });

/** A palette for the lab's SVG export (labToSvg's `pal`), colours that are easy to find in its text. */
export const PAL = {
  arch: { post_ln: '#123456', pre_ln: '#654321' },
  text: '#111',
  muted: '#666',
  grid: '#ddd',
  reference: '#999',
  surface: '#fff',
  laneText: '#333',
  danger: '#b3261e',
  pending: '#eee',
};
