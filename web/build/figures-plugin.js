// Writes each reproduction's figures into papers.html at build time, from the
// claims' figure descriptions (web/src/papers/figures.js): the page holds
// <div class="paper-figures" data-figures="<id>"></div> and the build fills it.
// It runs before the math plugin, which renders the figures' TeX with the rest.
import { figuresHtml } from '../src/papers/figures.js';

const SLOT = /<div class="paper-figures" data-figures="([a-z0-9-]+)"><\/div>/g;

export function fillFigures(html) {
  return html.replace(SLOT, (_, id) => `<div class="paper-figures">${figuresHtml(id)}</div>`);
}

export function figuresPlugin() {
  return { name: 'resnorm-figures', transformIndexHtml: { order: 'pre', handler: fillFigures } };
}
