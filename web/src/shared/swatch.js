// A short line sample in an arch's colour and dash pattern (legend, chips, readout).
import { ARCH_BY_KEY } from './archs.js';

const SVG = 'http://www.w3.org/2000/svg';

export function swatch(arch) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', `swatch swatch-${arch}`);
  svg.setAttribute('viewBox', '0 0 36 10');
  svg.setAttribute('width', '36');
  svg.setAttribute('height', '10');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const line = document.createElementNS(SVG, 'line');
  line.setAttribute('x1', '1');
  line.setAttribute('x2', '35');
  line.setAttribute('y1', '5');
  line.setAttribute('y2', '5');
  line.style.stroke = `var(--arch-${arch})`; // the theme's colour (CSSOM: allowed under a strict CSP)
  const dash = ARCH_BY_KEY[arch].dash;
  if (dash.length) line.setAttribute('stroke-dasharray', dash.join(' '));
  svg.append(line);
  return svg;
}
