// The chart colours as the theme's custom properties resolve on `el` (an
// element inside a shadow root, or the document's root element).
import { ARCHS } from './archs.js';

export function paletteOf(el) {
  const css = getComputedStyle(el);
  const v = (name) => css.getPropertyValue(name).trim();
  return {
    arch: Object.fromEntries(ARCHS.map((a) => [a.key, v(`--arch-${a.key}`)])),
    text: v('--text'),
    muted: v('--muted'),
    grid: v('--grid'),
    axis: v('--axis'),
    lane: v('--lane'),
    laneText: v('--lane-text'),
    reference: v('--reference'),
    surface: v('--surface'),
  };
}
