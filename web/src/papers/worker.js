// The papers page's engine worker: its own wasm instance (the explorer's
// worker is web/src/engine/worker.js), one task at a time.
// Messages in:  {id, task, params}; task is a reproduction id of repro.js, or 'perf'
// Messages out: {id, ok: true, result} | {id, ok: false, error: {message, field}}
import { loadResnorm } from '../../../wasm/resnorm.js';
import { compute, timeRecompute } from './repro.js';

const ready = loadResnorm();

self.onmessage = async (event) => {
  const { id, task, params } = event.data;
  let rn;
  try {
    rn = await ready;
  } catch (e) {
    self.postMessage({ id, ok: false, error: { message: `the engine failed to load: ${e}`, field: null } });
    return;
  }
  try {
    const result = task === 'perf' ? timeRecompute(rn, params) : compute(rn, task, params);
    self.postMessage({ id, ok: true, result });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { message: e.message, field: e.field ?? null } });
  }
};
