// The training lab's tiny run, shared by its Node and browser tests: it trains
// in well under a second per architecture.
import { defaultTrainConfig } from '../../../web/src/shared/train-fields.js';

export const TINY = {
  task: 'copy',
  seq: 2,
  vocab: 4,
  depth: 2,
  width: 16,
  heads: 2,
  batch: 4,
  log_every: 2,
  arch: 'post_ln,pre_ln',
};

/** TINY with `over` in place of its fields, as a link's fragment (no '#'). */
export const tiny = (over) => new URLSearchParams({ ...TINY, ...over }).toString().replaceAll('%2C', ',');

/**
 * Plain SGD at a learning rate of 10 (the most allowed): Post-LN's loss overflows to a non-finite
 * value within 30 updates (at 5 it grows to 1e30 and stays finite).
 */
export const DIVERGES = tiny({ steps: 30, log_every: 3, optimizer: 'sgd', lr: 10 });

/** TINY with `over` as a whole config (every training field, `arch` a list), as the session holds it. */
export const tinyConfig = (over = {}) => ({ ...defaultTrainConfig(), ...TINY, arch: TINY.arch.split(','), ...over });
