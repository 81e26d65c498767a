// Attention Residuals' read weights as numbers and words (pure, no DOM): rows
// as the engine gives them (rn.trainer().attnResWeights(): row k - 1 holds
// a_{k,0..k}, the weights with which the input of unit k + 1, or the final
// norm's input for the last row, takes of the embedding h_0 and of the
// outputs of units 1..k, averaged over the held-out tokens; under Block
// AttnRes row k - 1 is over h_0 and the groups of units 1..B(k), the last
// unit k's own group summed up to it), the units' names, and the words the
// shared matrix view (dwa-matrix.js) shows them with.
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

/**
 * Block AttnRes's groups from the rows' lengths (row r holds the weights over h₀ and the groups
 * 1..B(r + 1), unit r + 1's own group last): B[k] for units k = 1..K, and each group's first and
 * last unit. Full AttnRes is one unit a group.
 */
export function attnResGroups(rows) {
  const K = rows.length;
  const B = [0, ...rows.map((row) => row.length - 1)];
  const first = [0];
  const last = [0];
  for (let k = 1; k <= K; k++) {
    if (first[B[k]] === undefined) first[B[k]] = k;
    last[B[k]] = k;
  }
  return { B, first, last, groups: B[K], full: B[K] === K };
}

/**
 * What column j of row r is: the embedding, unit j's output (Full AttnRes), or under Block
 * AttnRes the sum of group j's outputs (the reader's own group: those up to unit r + 1).
 */
export function attnResSource(j, K, depth, groups = null, r = K - 1) {
  if (j === 0) return 'the embedding h\u2080';
  if (!groups || groups.full) return `${unitName(j, K, depth)}'s output`;
  const a = groups.first[j];
  const b = j === groups.B[r + 1] ? r + 1 : groups.last[j];
  const span =
    a === b
      ? `${unitName(a, K, depth)}'s output`
      : `the summed outputs of ${unitName(a, K, depth)} to ${unitName(b, K, depth)}`;
  return `group ${j}, ${span}`;
}

/** The caption of one run's read weights, from its numbers: what the final norm reads most, and the largest weight of all. */
export function attnResCaption(label, rows, depth) {
  const K = rows.length;
  const groups = attnResGroups(rows);
  const sources = rows[K - 1].length;
  const last = Array.from(rows[K - 1], (w, j) => ({ w, j })).filter((e) => Number.isFinite(e.w));
  if (!last.length) return `${label}: the read weights are not finite.`;
  last.sort((a, b) => b.w - a.w);
  const uniform = 1 / sources;
  const src = (e) => `${attnResSource(e.j, K, depth, groups)} (${significant(e.w, 3)})`;
  // within 10% of the uniform weight at both ends: no source is read "mostly"
  const even = last.length === sources && last[0].w <= 1.1 * uniform && last.at(-1).w >= 0.9 * uniform;
  const reads = even
    ? `still reads its sources about evenly, from ${significant(last.at(-1).w, 3)} to ${significant(last[0].w, 3)}`
    : `reads mostly ${last.length > 1 ? `${src(last[0])} and ${src(last[1])}` : src(last[0])}`;
  let top = null;
  rows.forEach((row, r) =>
    row.forEach((w, j) => {
      if (row.length > 2 && Number.isFinite(w) && (!top || w > top.w)) top = { w, r, j };
    }),
  );
  const topText = top
    ? ` The largest weight of a row with more than two sources is ${significant(top.w, 2)}: ${readerName(top.r, K, depth)} reading ${attnResSource(top.j, K, depth, groups, top.r)}, where at initialization it was ${significant(1 / rows[top.r].length, 2)}.`
    : '';
  const grouped = groups.full
    ? ''
    : ` (Block AttnRes: the ${K} units in ${groups.groups} groups, each read as its summed outputs)`;
  return `${label}: the final norm ${reads}; at initialization it read each of its ${sources} sources${grouped} with weight ${significant(uniform, 3)}.${topText}`;
}

/**
 * The words of the shared matrix view (dwa-matrix.js) for Attention Residuals' rows of a run of
 * `depth` blocks; with the rows, Block AttnRes's columns are its groups (g1, g2, ...).
 */
export function attnResWords(K, depth, rows = null) {
  const groups = rows ? attnResGroups(rows) : null;
  return {
    rowHead: 'unit',
    hint: 'Point at the matrix, or focus it and use the arrow keys, to read how much a unit\u2019s input takes of an earlier output.',
    aria: (name) =>
      `${name}: the softmax weight each unit's input takes of the embedding and of each earlier unit's output, averaged over the held-out tokens, one row per unit. Arrow keys move between cells; the value is read below the matrix.`,
    colLabel: (j) => (j === 0 || !groups || groups.full ? null : `g${j}`),
    cell: (r, j, value) => `${readerName(r, K, depth)} takes ${value} of ${attnResSource(j, K, depth, groups, r)}`,
    caption: (label, rows) => attnResCaption(label, rows, depth),
  };
}
