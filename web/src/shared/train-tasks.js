// The two small tasks the training claims are reproduced on (docs/reproductions.md,
// "Reproductions of training claims"): the lab's claims
// (claims/lab/), the papers page's DenseFormer panel
// (claims/papers/compute.js) and the reproductions' search
// (scripts/search-reproductions.js) train on them. Pure data.

/** Regression on the teacher: MLP blocks d = 32, m = 32, relu, 32 fresh examples a step, SGD with momentum. */
export const TEACHER_TASK = {
  task: 'teacher',
  block: 'mlp',
  width: 32,
  expansion: 1,
  activation: 'relu',
  batch: 32,
  eval_batches: 8,
  optimizer: 'sgd',
  momentum: 0.9,
};

/** Reverse 4 symbols of 8: transformer blocks d = 16, m = 32, 4 heads, 16 fresh sequences a step, Adam. */
export const REVERSE_TASK = {
  task: 'reverse',
  block: 'transformer',
  width: 16,
  expansion: 2,
  heads: 4,
  seq: 4,
  vocab: 8,
  batch: 16,
  optimizer: 'adam',
  schedule: 'constant',
  eval_batches: 2,
};
