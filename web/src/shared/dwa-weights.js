// DenseFormer's averaging weights as numbers and words (pure, no DOM): rows
// as the engine gives them (row l - 1 holds w_{l,0..l}, the weights the stream
// after block l takes of the embedding h_0 and of each block output up to its
// own), their caption, and the measures the papers page judges them by.
import { significant } from './format.js';

/** What column j of block l's row is: the embedding, the block itself, or an earlier block. */
export function sourceName(l, j) {
  if (j === 0) return 'the embedding';
  return j === l ? 'itself' : `block ${j}`;
}

/** The largest |w| of the rows (0 when there is none finite). */
export function maxAbs(rows) {
  let m = 0;
  for (const row of rows) for (const w of row) if (Number.isFinite(w)) m = Math.max(m, Math.abs(w));
  return m;
}

/** The finite weight off the diagonal largest in magnitude, {w, l, j} (block l reading column j), or null. */
export function largestOffDiagonal(rows) {
  let off = null;
  rows.forEach((row, r) =>
    row.forEach((w, j) => {
      if (j !== r + 1 && Number.isFinite(w) && (!off || Math.abs(w) > Math.abs(off.w))) off = { w, l: r + 1, j };
    }),
  );
  return off;
}

/** The caption of one run's averaging weights, from its numbers. */
export function dwaCaption(label, rows) {
  const L = rows.length;
  const last = Array.from(rows[L - 1], (w, j) => ({ w, j })).filter((e) => Number.isFinite(e.w));
  if (!last.length) return `${label}: the averaging weights are not finite.`;
  last.sort((a, b) => Math.abs(b.w) - Math.abs(a.w));
  const src = (e) => `${sourceName(L, e.j)} (${significant(e.w, 2)})`;
  const reads = last.length > 1 ? `${src(last[0])} and ${src(last[1])}` : src(last[0]);
  const off = largestOffDiagonal(rows);
  const offText = off
    ? ` Off the diagonal the largest weight is ${significant(off.w, 2)} (block ${off.l} reading ${sourceName(off.l, off.j)}); at initialization every block read only itself, with weight 1.`
    : '';
  return `${label}: block ${L} reads mostly ${reads}.${offText}`;
}

const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;

/**
 * What the papers page measures in trained weights, over the late blocks l = from..L (from =
 * floor(L/2) + 1): `reuseRows` and their mean `reuse`, the weight on layers two or more back over
 * the weight on the block itself, sum_{j <= l-2} |w_{l,j}| / |w_{l,l}|; `embedding`, the mean
 * |w_{l,0}| over the mean |w_{l,j}| of their other earlier layers 0 < j < l (NaN when there are
 * none); `embeddingWeights`, their w_{l,0}; the diagonal's range over every block, `diagLo` and
 * `diagHi`; and `off`, the largest weight off the diagonal. A weight that is not finite makes
 * the measures it enters NaN or infinite.
 */
export function dwaFacts(rows) {
  const L = rows.length;
  const from = Math.floor(L / 2) + 1;
  const late = Array.from({ length: L - from + 1 }, (_, i) => from + i);
  const reuseRows = late.map((l) => {
    const row = rows[l - 1];
    let back = 0;
    for (let j = 0; j <= l - 2; j++) back += Math.abs(row[j]);
    return back / Math.abs(row[l]);
  });
  let embedding = 0;
  let others = 0;
  let count = 0;
  for (const l of late) {
    embedding += Math.abs(rows[l - 1][0]);
    for (let j = 1; j < l; j++) {
      others += Math.abs(rows[l - 1][j]);
      count++;
    }
  }
  const diagonal = rows.map((row, r) => row[r + 1]);
  return {
    from,
    late,
    reuseRows,
    reuse: mean(reuseRows),
    embedding: count ? embedding / late.length / (others / count) : NaN,
    embeddingWeights: late.map((l) => rows[l - 1][0]),
    diagLo: Math.min(...diagonal),
    diagHi: Math.max(...diagonal),
    off: largestOffDiagonal(rows),
  };
}
