// A short line sample in an arch's colour and dash pattern (legend, chips, readout).
import { ARCH_BY_KEY } from './archs.js';

const SVG = 'http://www.w3.org/2000/svg';

/** A line sample of class swatch-<kind> with a dash pattern, coloured by CSS (any series, arch or not). */
export function lineSwatch(kind, dash = []) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', `swatch swatch-${kind}`);
  svg.setAttribute('viewBox', '0 0 36 10');
  svg.setAttribute('width', '36');
  svg.setAttribute('height', '10');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const line = document.createElementNS(SVG, 'line');
  for (const [k, v] of Object.entries({ x1: 1, x2: 35, y1: 5, y2: 5 })) line.setAttribute(k, String(v));
  if (dash.length) line.setAttribute('stroke-dasharray', dash.join(' '));
  svg.append(line);
  return svg;
}

/** An arch's line sample; view.css colours it with the theme's --arch-<key>. */
export const swatch = (arch) => lineSwatch(arch, ARCH_BY_KEY[arch].dash);
