// A heat map's cells, as the training lab's maps and DenseFormer's matrix
// (dwa-matrix.js) mark and read them: a value as text, and the stripes of a
// value that is not finite.
import { fmtValue } from './format.js';

/** A cell's value as text: the number, or what a non-finite one is. */
export function cellText(v) {
  if (v === undefined) return 'none (the step that stopped the run made no update)';
  if (Number.isNaN(v)) return 'NaN (not finite)';
  if (!Number.isFinite(v)) return `${v > 0 ? '' : '\u2212'}\u221e (not finite)`;
  return fmtValue(v);
}

/** Diagonal stripes of `fg` on `bg`, the mark of a non-finite cell (here and in the legend). */
export function hatchPattern(ctx, fg, bg, scale = 1) {
  const size = Math.max(4, Math.round(6 * scale));
  const tile = document.createElement('canvas');
  tile.width = size;
  tile.height = size;
  const t = tile.getContext('2d');
  t.fillStyle = bg;
  t.fillRect(0, 0, size, size);
  t.strokeStyle = fg;
  t.lineWidth = Math.max(1, 1.5 * scale);
  t.beginPath();
  t.moveTo(0, size);
  t.lineTo(size, 0);
  t.moveTo(-size / 2, size / 2);
  t.lineTo(size / 2, -size / 2);
  t.moveTo(size / 2, size * 1.5);
  t.lineTo(size * 1.5, size / 2);
  t.stroke();
  return ctx.createPattern(tile, 'repeat');
}
