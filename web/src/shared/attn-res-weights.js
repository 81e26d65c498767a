// Attention Residuals' read weights as numbers and words (pure, no DOM): rows
// as the engine gives them (rn.trainer().attnResWeights(): row k - 1 holds
// a_{k,0..k}, the weights with which the input of unit k + 1, or the final
// norm's input for the last row, takes of the embedding h_0 and of the
// outputs of units 1..k, averaged over the held-out tokens), the units'
// names, and the words the shared matrix view (dwa-matrix.js) shows them with.
import { significant } from './format.js';

/** Unit k's (1-based) name: "block l", or with two units a block "block l attention" / "block l MLP". */
export function unitName(k, units, depth) {
  const per = Math.max(1, Math.round(units / Math.max(1, depth)));
  const l = Math.ceil(k / per);
  if (per === 1) return `block ${l}`;
  return `block ${l} ${k % per === 1 ? 'attention' : 'MLP'}`;
}

/** Who reads row r (0-based) of K rows: unit r + 2, or the final norm for the last row. */
export function readerName(r, K, depth) {
  return r === K - 1 ? 'the final norm' : unitName(r + 2, K, depth);
}

/** What column j is: the embedding, or unit j's output. */
export function attnResSource(j, K, depth) {
  return j === 0 ? 'the embedding h\u2080' : `${unitName(j, K, depth)}'s output`;
}

/** The caption of one run's read weights, from its numbers: what the final norm reads most, and the largest weight of all. */
export function attnResCaption(label, rows, depth) {
  const K = rows.length;
  const last = Array.from(rows[K - 1], (w, j) => ({ w, j })).filter((e) => Number.isFinite(e.w));
  if (!last.length) return `${label}: the read weights are not finite.`;
  last.sort((a, b) => b.w - a.w);
  const uniform = 1 / (K + 1);
  const src = (e) => `${attnResSource(e.j, K, depth)} (${significant(e.w, 3)})`;
  // within 10% of the uniform weight at both ends: no source is read "mostly"
  const even = last.length === K + 1 && last[0].w <= 1.1 * uniform && last.at(-1).w >= 0.9 * uniform;
  const reads = even
    ? `still reads its sources about evenly, from ${significant(last.at(-1).w, 3)} to ${significant(last[0].w, 3)}`
    : `reads mostly ${last.length > 1 ? `${src(last[0])} and ${src(last[1])}` : src(last[0])}`;
  let top = null;
  rows.forEach((row, r) =>
    row.forEach((w, j) => {
      if (r > 0 && Number.isFinite(w) && (!top || w > top.w)) top = { w, r, j };
    }),
  );
  const topText = top
    ? ` The largest weight of a row with more than two sources is ${significant(top.w, 2)}: ${readerName(top.r, K, depth)} reading ${attnResSource(top.j, K, depth)}, where at initialization it was ${significant(1 / (top.r + 2), 2)}.`
    : '';
  return `${label}: the final norm ${reads}; at initialization it read each of its ${K + 1} sources with weight ${significant(uniform, 3)}.${topText}`;
}

/** The words of the shared matrix view (dwa-matrix.js) for Attention Residuals' rows of a run of `depth` blocks. */
export function attnResWords(K, depth) {
  return {
    rowHead: 'unit',
    hint: 'Point at the matrix, or focus it and use the arrow keys, to read how much a unit\u2019s input takes of an earlier output.',
    aria: (name) =>
      `${name}: the softmax weight each unit's input takes of the embedding and of each earlier unit's output, averaged over the held-out tokens, one row per unit. Arrow keys move between cells; the value is read below the matrix.`,
    cell: (r, j, value) => `${readerName(r, K, depth)} takes ${value} of ${attnResSource(j, K, depth)}`,
    caption: (label, rows) => attnResCaption(label, rows, depth),
  };
}
