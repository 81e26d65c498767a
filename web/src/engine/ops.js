// The operations the engine worker answers, shared by the worker and the client
// (the client refuses an unknown one before it reaches a worker).
//   simulate(config[, archs])                 rn.simulate: {config, results}; with archs, only
//                                             those architectures of config (a pool's part)
//   normToken(kind, x, gamma, beta)           rn.normToken: {y, mean, var, rstd}
//   batchVsLayerNorm(input)                   rn.batchVsLayerNorm
//   pathGradients(config)                     rn.pathGradients
//   reproduce(id, params)                     experiments.js: one paper's reproduction
//   timeRecompute({runs, warmup})             experiments.js: the transformer scene's timing
//   exportPytorch(config)                     rn.exportPytorch: the run as a PyTorch script (text)
export const OPS = Object.freeze([
  'simulate',
  'normToken',
  'batchVsLayerNorm',
  'pathGradients',
  'reproduce',
  'timeRecompute',
  'exportPytorch',
]);

// The operations on trainers (rn.trainer, wasm/resnorm.js) a worker holds by
// id between messages. They reach one given worker only, through the
// client's trainer() handles, never through call() or a lane:
//   trainerCreate(config)      a new trainer: {id, config, task, stepsDone, stopped}
//   trainerStep(id, n)         {logs, stepsDone, stopped}
//   trainerLesion(id)          tr.lesion()
//   trainerDwaWeights(id)      tr.dwaWeights(): L Float64Array rows, or null
//   trainerAttnResWeights(id)  tr.attnResWeights(): K Float64Array rows, or null
//   trainerGates(id)           tr.gates(): {width, units, values, init, magnitude}, or null
//   trainerNormSamples(id)     tr.normSamples(): {units, rows, width, input, output}, or null
//   trainerOutcome(id)         tr.outcome()
//   trainerState(id)           tr.state(): a Uint8Array
//   trainerLoad(id, bytes)     tr.load(bytes), then {id, config, task, stepsDone, stopped}
//   trainerDelete(id)          tr.delete(): true
export const TRAINER_OPS = Object.freeze([
  'trainerCreate',
  'trainerStep',
  'trainerLesion',
  'trainerDwaWeights',
  'trainerAttnResWeights',
  'trainerGates',
  'trainerOutcome',
  'trainerNormSamples',
  'trainerState',
  'trainerLoad',
  'trainerDelete',
]);
