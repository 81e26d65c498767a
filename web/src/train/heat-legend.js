// The legend of a group of heatmaps: the colour bar of their shared log scale
// with its ticks (powers of ten, or 1-2-5 steps within a decade), and the
// marks that are no colour of it: hatched for a value that is not finite,
// grey for an exact zero, dotted for the steps after a run stopped (once
// trained, or at a divergence), the background for steps not run yet.
//
//   const legend = createHeatLegend(box, { title, colours });
//   legend.update(scale);   // {lo, hi} in log10 units, or null before any value
import { el } from '../shared/dom.js';
import { logLabel, logTicks } from '../shared/log-axis.js';
import { VIRIDIS } from '../shared/colormap.js';
import { ZERO_RGB } from './heatmap.js';
import { hatchPattern, stoppedPattern } from '../shared/heat-cells.js';

export function createHeatLegend(box, { title, colours }) {
  const bar = el('canvas', { class: 'heat-bar-canvas', width: 256, height: 1, 'aria-hidden': 'true' });
  const ticks = el('div', { class: 'heat-ticks' });
  const range = el('span', { class: 'visually-hidden' });
  const hatch = el('canvas', { class: 'heat-swatch', width: 32, height: 32, 'aria-hidden': 'true' });
  const zero = el('canvas', { class: 'heat-swatch', width: 1, height: 1, 'aria-hidden': 'true' });
  const stopped = el('canvas', { class: 'heat-swatch', width: 32, height: 32, 'aria-hidden': 'true' });
  const pending = el('span', { class: 'heat-swatch heat-swatch-pending', 'aria-hidden': 'true' });
  const barBox = el('div', { class: 'heat-bar' }, bar, ticks);
  box.append(
    el('p', { class: 'heat-legend-title' }, title, range),
    barBox,
    el(
      'ul',
      { class: 'heat-keys' },
      el('li', {}, hatch, 'not finite (diverged)'),
      el('li', {}, zero, 'exactly 0'),
      el('li', {}, stopped, 'after the run stopped'),
      el('li', {}, pending, 'not run (yet)'),
    ),
  );
  const z = zero.getContext('2d');
  z.fillStyle = `rgb(${ZERO_RGB.join(',')})`;
  z.fillRect(0, 0, 1, 1);

  const ctx = bar.getContext('2d');
  const img = ctx.createImageData(256, 1);
  VIRIDIS.forEach((rgb, i) => img.data.set([...rgb, 255], 4 * i));
  ctx.putImageData(img, 0, 0);

  let scale = null;
  function paintHatch() {
    const c = colours();
    const h = hatch.getContext('2d');
    h.fillStyle = hatchPattern(h, c.hatch, c.surface, 2);
    h.fillRect(0, 0, hatch.width, hatch.height);
    const d = stopped.getContext('2d');
    d.fillStyle = stoppedPattern(d, c.muted, c.pending, 2);
    d.fillRect(0, 0, stopped.width, stopped.height);
  }

  let width = 0; // the bar's, from the resize observer: reading it here would force a layout mid-frame
  function layout() {
    ticks.replaceChildren();
    if (!scale) {
      range.textContent = ': no values yet';
      return;
    }
    range.textContent = `: from ${logLabel(scale.lo)} (dark) to ${logLabel(scale.hi)} (light)`;
    const room = Math.max(2, Math.floor(width / 56));
    for (const t of logTicks(scale.lo, scale.hi, room)) {
      const at = (t - scale.lo) / (scale.hi - scale.lo);
      const tick = el('span', { class: 'heat-tick', 'aria-hidden': 'true' }, logLabel(t));
      tick.style.left = `${(100 * at).toFixed(2)}%`;
      ticks.append(tick);
    }
  }
  const ro = new ResizeObserver(([entry]) => {
    width = entry.contentRect.width;
    layout();
  });
  ro.observe(barBox);
  paintHatch();

  return {
    update(next) {
      const same = scale && next && scale.lo === next.lo && scale.hi === next.hi;
      if (same || (!scale && !next)) return;
      scale = next;
      layout();
    },
    /** The tick labels shown, for the page's test hook. */
    ticks: () => [...ticks.children].map((t) => t.textContent),
    redraw: paintHatch,
    destroy() {
      ro.disconnect();
      box.replaceChildren();
    },
  };
}
