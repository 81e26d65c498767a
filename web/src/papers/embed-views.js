// What each panel's Embed button embeds: the explorer's view of the panel's setting (its
// config and charts) at the panel's current parameters, and whether that view is the panel's
// own figure or the nearest explorer view of its setting, said in words. Pure: no DOM.
//
// Only DeepNet's and LayerScale's figures are explorer views as they stand (one stack;
// gradient and stream, or update ratio, per layer; the same numbers). Lemma 2 plots the square
// of the explorer's stream chart, averaged over seeds, and ReZero divides the explorer's
// gradient by the top's. DenseFormer's first chart is the explorer's gradient chart, but its
// matrix comes from training. The others plot quantities the explorer does not draw (a fit over
// depths, weight gradients per block, gradients per path length); their embed is the explorer
// on the same stacks, which a reader can deepen or shorten.
import { defaultConfig } from '../shared/state.js';
import { defaultTrainConfig } from '../shared/train-fields.js';
import { DWA_TRAIN, dwaStack } from '../claims/papers/compute.js';
import { PANELS } from './repro.js';

// A panel's transformer stacks as explorer config fields (experiments.js's `transformer()`).
const stacks = (p) => ({
  block: 'transformer',
  width: p.width,
  tokens: p.tokens,
  heads: p.heads,
  causal: p.causal,
  expansion: p.expansion ?? 1,
});

const VIEWS = {
  theorem1: (p) => ({
    config: { ...stacks(p), arch: ['post_ln', 'pre_ln'], depth: p.deepest, final_norm: 'layernorm', seed: p.seed0 },
    charts: ['grad'],
    note:
      `The panel plots the last block\u2019s W\u2082 gradient against the depth L, over ${p.seeds} seeds; the explorer ` +
      `draws the gradient reaching each layer of one stack. The embed shows the panel\u2019s transformer blocks at its ` +
      `deepest L = ${p.deepest}, seed ${p.seed0}, with a final LayerNorm for both (the panel gives one to Pre-LN only).`,
  }),
  figure3: (p) => ({
    config: { ...stacks(p), arch: ['post_ln', 'pre_ln'], depth: 6, final_norm: 'layernorm', seed: p.seed0 },
    charts: ['grad'],
    note:
      `The panel plots the weight gradient of each of the 6 blocks, mean over ${p.seeds} seed${p.seeds === 1 ? '' : 's'}; ` +
      `the explorer draws the gradient of the stream at each layer. The embed shows the same 6 blocks ` +
      `(d = ${p.width}), seed ${p.seed0}, with a final LayerNorm for both (the panel gives one to Pre-LN only).`,
  }),
  lemma2: (p) => ({
    config: {
      arch: ['post_ln', 'pre_ln'],
      depth: p.depth,
      width: p.width,
      tokens: p.tokens,
      gain: Math.SQRT1_2,
      seed: p.seed0,
    },
    charts: ['stream'],
    note:
      `The same stacks and quantity: the explorer\u2019s stream chart draws the RMS of h_l, whose square is the ` +
      `panel\u2019s E\u2016x_l\u2016\u00b2/d, for seed ${p.seed0}, where the panel averages ${p.seeds} seeds.`,
  }),
  deepnet: (p) => ({
    config: { ...stacks(p), arch: ['post_ln', 'deepnorm'], depth: p.depth, final_norm: 'none', seed: p.seed },
    charts: ['grad', 'stream'],
    exact: true,
    note: 'This is the panel\u2019s figure: the same stacks, both charts, the same numbers.',
  }),
  gpt2: (p) => ({
    config: { ...stacks(p), arch: ['pre_ln', 'gpt2'], depth: p.deepest, final_norm: 'layernorm', seed: p.seed0 },
    charts: ['stream'],
    note:
      `The panel plots the top of the stream over its input against the depth L, over ${p.seeds} seeds; the embed ` +
      `shows the stream at every layer of the deepest stack (L = ${p.deepest}, seed ${p.seed0}), whose last point ` +
      `over its first is the panel\u2019s ratio at that depth.`,
  }),
  rezero: (p) => ({
    config: { ...stacks(p), arch: ['pre_ln', 'rezero'], depth: p.depth, final_norm: 'none', seed: p.seed },
    charts: ['grad', 'stream'],
    note:
      'The same stacks, both charts: the panel divides each layer\u2019s gradient by the top\u2019s, the explorer ' +
      `draws it as it is (${p.depth} transformer blocks, seed ${p.seed}, no final norm).`,
  }),
  lns: (p) => ({
    config: { ...stacks(p), arch: ['pre_ln', 'lns'], depth: p.deepest, final_norm: 'layernorm', seed: p.seed0 },
    charts: ['stream'],
    note:
      `The panel plots the top of the stream\u2019s variance over its input\u2019s against the depth L, over ${p.seeds} ` +
      `seeds; the embed shows the stream at every layer of the deepest stack (L = ${p.deepest}, seed ${p.seed0}), ` +
      'whose last point over its first, squared, is the panel\u2019s ratio at that depth.',
  }),
  mixln: (p) => ({
    config: {
      ...stacks(p),
      arch: ['post_ln', 'pre_ln', 'mix_ln'],
      depth: p.depth,
      final_norm: 'layernorm',
      seed: p.seed0,
    },
    charts: ['grad'],
    note:
      `The panel plots the gradient of each block\u2019s weights, mean over ${p.seeds} seed${p.seeds === 1 ? '' : 's'}; ` +
      `the explorer draws the gradient of the stream at each layer. The embed shows the same ${p.depth} blocks, ` +
      `seed ${p.seed0}, with a final LayerNorm for all three (the panel gives none to Post-LN).`,
  }),
  layerscale: (p) => ({
    config: { ...stacks(p), arch: ['pre_ln', 'layerscale'], depth: p.depth, final_norm: 'layernorm', seed: p.seed },
    charts: ['update'],
    exact: true,
    note:
      'This is the panel\u2019s figure: the same stacks and update ratios, where the explorer draws its 1/\u221al ' +
      'line the panel draws \u03b5.',
  }),
  dwa: (p) => ({
    config: {
      ...dwaStack({ ...defaultTrainConfig(), ...DWA_TRAIN, depth: p.depth, seed: p.seed }),
      arch: ['pre_ln', 'dwa'],
    },
    charts: ['grad'],
    note:
      `The panel\u2019s first chart is this view: the gradient at each layer of the same ${p.depth} blocks at ` +
      `initialization (seed ${p.seed}), the same numbers. Its matrix comes from training, which the explorer does ` +
      `not do: the training lab\u2019s Late layers preset trains ${p.depth === 8 ? 'the same run' : 'this run at 8 blocks'}.`,
  }),
  veit: (p) => ({
    config: { arch: ['residual', 'pre_ln'], depth: p.depth, width: p.width, tokens: p.tokens, seed: p.seed },
    charts: ['grad'],
    note:
      'The panel splits the gradient into paths by their length, which the explorer does not draw; the embed ' +
      `shows the gradient reaching each layer of the same two stacks (${p.depth} MLP blocks, seed ${p.seed}).`,
  }),
};

/**
 * The explorer view that embeds panel `id` at its parameters `params` (experiments.js's, defaults
 * filled in): {title, config (every config field), charts, exact, note}.
 */
export function panelEmbed(id, params) {
  const v = VIEWS[id]({ ...PANELS[id].defaults, ...params });
  return {
    title: PANELS[id].title,
    config: { ...defaultConfig(), ...v.config },
    charts: v.charts,
    exact: v.exact === true,
    note: v.note,
  };
}
