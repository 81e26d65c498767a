// The engine's Web Worker: one wasm instance, one request at a time.
// Messages in:  {id, config}
// Messages out: {id, ok: true, out, ms} | {id, ok: false, error: {message, field}}
import { loadResnorm } from '../../../wasm/resnorm.js';

const ready = loadResnorm();

self.onmessage = async (event) => {
  const { id, config } = event.data;
  let rn;
  try {
    rn = await ready;
  } catch (e) {
    self.postMessage({ id, ok: false, error: { message: `the engine failed to load: ${e}`, field: null } });
    return;
  }
  try {
    const t0 = performance.now();
    const out = rn.simulate(config);
    const ms = performance.now() - t0;
    const buffers = [];
    for (const r of Object.values(out.results))
      for (const v of Object.values(r)) if (v && v.buffer) buffers.push(v.buffer);
    self.postMessage({ id, ok: true, out, ms }, buffers);
  } catch (e) {
    self.postMessage({ id, ok: false, error: { message: e.message, field: e.field ?? null } });
  }
};
