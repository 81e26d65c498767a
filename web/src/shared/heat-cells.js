// A heat map's cells, as the training lab's maps and DenseFormer's matrix
// (dwa-matrix.js) mark and read them: a value as text, the stripes of a value
// that is not finite, and the dots of the steps after a run stopped.
import { fmtValue } from './format.js';

/** A cell's value as text: the number, or what a non-finite one is. */
export function cellText(v) {
  if (v === undefined) return 'none (the step that stopped the run made no update)';
  if (Number.isNaN(v)) return 'NaN (not finite)';
  if (!Number.isFinite(v)) return `${v > 0 ? '' : '\u2212'}\u221e (not finite)`;
  return fmtValue(v);
}

/**
 * A repeating fill of one square tile: `bg`, then `draw(t, size)` on it (t: the tile's 2D
 * context). `scale`: device pixels per CSS pixel of the tile (6 CSS pixels a side, 4 at least).
 */
function tilePattern(ctx, bg, scale, draw) {
  const size = Math.max(4, Math.round(6 * scale));
  const tile = document.createElement('canvas');
  tile.width = size;
  tile.height = size;
  const t = tile.getContext('2d');
  t.fillStyle = bg;
  t.fillRect(0, 0, size, size);
  draw(t, size);
  return ctx.createPattern(tile, 'repeat');
}

/** Diagonal stripes of `fg` on `bg`, the mark of a non-finite cell (here and in the legend). */
export function hatchPattern(ctx, fg, bg, scale = 1) {
  return tilePattern(ctx, bg, scale, (t, size) => {
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
  });
}

/**
 * Dots of `dot` on `background` (the colour of steps not run), the mark of the steps after a run
 * stopped (trained early, or diverged): no colour of viridis and unlike the hatching of a value
 * that is not finite.
 */
export function stoppedPattern(ctx, dot, background, scale = 1) {
  return tilePattern(ctx, background, scale, (t, size) => {
    t.fillStyle = dot;
    t.beginPath();
    t.arc(size / 2, size / 2, Math.max(0.8, size / 6), 0, 2 * Math.PI);
    t.fill();
  });
}
