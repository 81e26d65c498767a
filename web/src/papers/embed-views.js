// What each panel's Embed button embeds: the explorer's view of the panel's setting (its
// config and charts) at the panel's current parameters, and whether that view is the panel's
// own figure or the nearest explorer view of its setting, said in words. Each claim's
// embedView() (web/src/claims/papers/<id>.js) gives its view; this module completes it with
// the panel's title and every other config field at its default. Pure: no DOM.
//
// Only DeepNet's and LayerScale's figures are explorer views as they stand (one stack;
// gradient and stream, or update ratio, per layer; the same numbers). Lemma 2 plots the square
// of the explorer's stream chart, averaged over seeds, and ReZero divides the explorer's
// gradient by the top's. DenseFormer's first chart is the explorer's gradient chart, but its
// matrix comes from training. The others plot quantities the explorer does not draw (a fit over
// depths, weight gradients per block, gradients per path length); their embed is the explorer
// on the same stacks, which a reader can deepen or shorten.
import { defaultConfig } from '../shared/state.js';
import { claimOf } from '../claims/index.js';
import { PANELS } from './repro.js';

/**
 * The explorer view that embeds panel `id` at its parameters `params` (the claim's, defaults
 * filled in): {title, config (every config field), charts, exact, note}.
 */
export function panelEmbed(id, params) {
  const v = claimOf(id).embedView({ ...PANELS[id].defaults, ...params });
  return {
    title: PANELS[id].title,
    config: { ...defaultConfig(), ...v.config },
    charts: v.charts,
    exact: v.exact === true,
    note: v.note,
  };
}
