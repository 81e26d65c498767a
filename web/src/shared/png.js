// Charts as one PNG: blocks stacked under a title and a caption (the image
// is wide enough for both) on the theme's surface colour, each block a heading (title, sub line) over the
// canvas the page shows or a drawing of its own (paint), then the
// architectures' legend (a line in each one's colour and dash, its name).
// The explorer's and the training lab's PNG exports.
import { legendLook } from './svg.js';

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * title, caption: the lines at the top; blocks: [{title, sub, canvas} or
 * {title, sub, height, paint(ctx, x, y, s, text)}] (height in CSS pixels;
 * paint draws at device pixels, s per CSS pixel); archs: the legend's entries
 * (an arch's key, or a run's {arch, label, dash}: svg.js legendLook); pal: palette().
 * `scale` (device pixels per CSS pixel) is read from the first canvas unless
 * given. Resolves to a PNG Blob.
 */
export function stackToPng({ title, caption = '', blocks, archs, pal, scale = null }) {
  const first = blocks.find((b) => b.canvas)?.canvas;
  const s = scale ?? (first ? first.width / Math.max(1, first.clientWidth || first.width) : 1);
  const pad = 16 * s;
  // as wide as the widest block, and wide enough for the title and the caption
  const probe = document.createElement('canvas').getContext('2d');
  const textWidth = (t, size, weight) => {
    probe.font = `${weight} ${size * s}px ${FONT}`;
    return probe.measureText(t).width;
  };
  const widest = Math.max(
    ...blocks.map((b) => (b.canvas ? b.canvas.width : (b.width ?? 600) * s)),
    textWidth(title, 17, 700),
    textWidth(caption, 12, 400),
  );
  const width = widest + 2 * pad;
  const titleH = 64 * s,
    headH = (b) => (b.title ? 44 * s : 0),
    bodyH = (b) => (b.canvas ? b.canvas.height : b.height * s),
    legendRow = 22 * s;
  const legendRows = Math.ceil(archs.length / 3);
  const height = titleH + blocks.reduce((h, b) => h + headH(b) + bodyH(b), 0) + legendRows * legendRow + 2 * pad;

  const out = document.createElement('canvas');
  out.width = Math.ceil(width);
  out.height = Math.ceil(height);
  const ctx = out.getContext('2d');
  ctx.fillStyle = pal.surface;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.textBaseline = 'alphabetic';
  const text = (t, x, y, size, color, weight = 400, align = 'left') => {
    ctx.font = `${weight} ${size * s}px ${FONT}`;
    ctx.fillStyle = color;
    ctx.textAlign = align;
    ctx.fillText(t, x, y);
    ctx.textAlign = 'left';
  };
  text(title, pad, pad + 18 * s, 17, pal.text, 700);
  text(caption, pad, pad + 38 * s, 12, pal.muted);
  let y = titleH;
  for (const b of blocks) {
    if (b.title) {
      text(b.title, pad, y + 18 * s, 15, pal.text, 600);
      if (b.sub) text(b.sub, pad, y + 34 * s, 12, pal.muted);
    }
    y += headH(b);
    if (b.canvas) ctx.drawImage(b.canvas, pad, y);
    else {
      ctx.save();
      b.paint(ctx, pad, y, s, text);
      ctx.restore();
    }
    y += bodyH(b);
  }
  y += pad / 2;
  archs.forEach((item, i) => {
    const look = legendLook(item);
    const x = pad + (i % 3) * 230 * s,
      ly = y + Math.floor(i / 3) * legendRow;
    ctx.strokeStyle = pal.arch[look.arch];
    ctx.lineWidth = 2.5 * s;
    ctx.setLineDash(look.dash.map((d) => d * s));
    ctx.beginPath();
    ctx.moveTo(x, ly + 8 * s);
    ctx.lineTo(x + 34 * s, ly + 8 * s);
    ctx.stroke();
    ctx.setLineDash([]);
    text(look.label, x + 42 * s, ly + 12 * s, 13, pal.text);
  });
  return new Promise((resolve, reject) =>
    out.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be made'))), 'image/png'),
  );
}
