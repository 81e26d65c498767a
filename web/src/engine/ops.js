// The operations the engine worker answers, shared by the worker and the client
// (the client refuses an unknown one before it reaches a worker).
//   simulate(config[, archs])                 rn.simulate: {config, results}; with archs, only
//                                             those architectures of config (a pool's part)
//   normToken(kind, x, gamma, beta)           rn.normToken: {y, mean, var, rstd}
//   batchVsLayerNorm(input)                   rn.batchVsLayerNorm
//   pathGradients(config)                     rn.pathGradients
//   reproduce(id, params)                     experiments.js: one paper's reproduction
//   timeRecompute({runs, warmup})             experiments.js: the transformer scene's timing
export const OPS = Object.freeze([
  'simulate',
  'normToken',
  'batchVsLayerNorm',
  'pathGradients',
  'reproduce',
  'timeRecompute',
]);
