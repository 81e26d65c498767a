// What each engine op runs on a loaded engine `rn` (wasm/resnorm.js): the wasm
// API's methods and the papers' reproductions. worker.js answers messages with
// it; the client's tests run it without a Worker.
import { reproduce, timeRecompute } from './experiments.js';

export const RUN = {
  // With `archs` (one worker's part of a config split over a pool, client.js):
  // the whole config is checked, then only those architectures run.
  simulate: (rn, [config, archs]) => {
    if (archs === undefined) return rn.simulate(config);
    const whole = rn.check(config);
    if (!Array.isArray(archs) || !archs.every((a) => whole.arch.includes(a)))
      throw Object.assign(new RangeError('arch: a part must be architectures of the config'), { field: 'arch' });
    return { config: whole, results: rn.simulate({ ...config, arch: archs }).results };
  },
  normToken: (rn, [kind, x, gamma, beta]) => rn.normToken(kind, x, gamma, beta),
  batchVsLayerNorm: (rn, [input]) => rn.batchVsLayerNorm(input),
  pathGradients: (rn, [config]) => rn.pathGradients(config),
  reproduce: (rn, [id, params]) => reproduce(rn, id, params),
  timeRecompute: (rn, [options]) => timeRecompute(rn, options),
};
