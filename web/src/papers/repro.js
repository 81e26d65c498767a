// The reproductions of the papers page (the six of the article's papers, then
// five of the answers to its open question), as text: each panel's title and the
// choices its controls offer, the criteria, and summarize(id, result, view),
// which turns a result of ../engine/experiments.js (computed in the engine
// worker) into the measured-vs-claimed rows and the verdict the caption states.
// Each claim is one module of ../claims/papers/ (listed in its index.js, in the
// page's order); this module gathers them by id for the page and the tests.
// No DOM: the page, the Node tests and the browser test all use this module,
// and tests/core/test_papers.cpp checks the same claims in C++ with the same
// settings and criteria (the trained halves of ReZero, Mix-LN, LayerScale and
// DenseFormer: the training lab's ReZero and Late layers claims,
// tests/core/test_reproductions.cpp, judged as the lab judges them).
//
// Verdicts: 'holds' (every criterion met), 'partly' (some), 'fails' (none).
import { CLAIMS, claimOf } from '../claims/papers/index.js';

export { sci, spread, variation, worstDeviation, worstFactor } from '../claims/papers/common.js';
export { FIG3_WEIGHTS } from '../claims/papers/figure3.js';
export { pathSummary, quantileLength } from '../claims/papers/veit.js';

// Each panel's parameters: defaults and the choices its controls offer; `article`: one of the
// article's six papers (the others answer its open question); `trains`: its computation trains
// the lab's runs (a second or more), so the page starts it once the others have their verdicts.
export const PANELS = Object.fromEntries(CLAIMS.map((c) => [c.id, c.metadata]));

export const PANEL_IDS = Object.keys(PANELS);

/** The article's six papers (PANELS' `article`); the rest answer its open question. */
export const ARTICLE_PANELS = PANEL_IDS.filter((id) => PANELS[id].article);

/** The panels whose computation trains (PANELS' `trains`). */
export const TRAINING_PANELS = PANEL_IDS.filter((id) => PANELS[id].trains);

// Criteria, shared by the captions and the tests.
export const CRITERIA = Object.fromEntries(CLAIMS.map((c) => [c.id, c.criteria]));

/**
 * The rows of the measured-vs-claimed table and the verdict:
 * {rows: [{key, label, measured, claimed, criterion, ok, value}], verdict, facts}.
 * `value` is the raw number (for tests); `measured`/`claimed` are display text.
 * `facts` holds the numbers the caption quotes. `view` picks what a panel shows
 * (Figure 3: which weight).
 */
export function summarize(id, result, view = {}) {
  return claimOf(id).summarize(result.data, result.params, view);
}
