// Writes the papers page's claims into papers.html at build time, from the claims' modules
// (web/src/claims/papers/<id>.js): each claim's section and its entry in the table of contents
// (web/src/papers/sections.js) where the page holds <!-- papers: sections --> and
// <!-- papers: toc -->, the number of claims in words where it holds <!-- papers: count -->, then
// each section's figures (web/src/papers/figures.js) into its <div class="paper-figures" data-figures="<id>"></div>.
// It runs before the math plugin, which renders the sections' and figures' TeX with the rest.
import { figuresHtml } from '../src/papers/figures.js';
import { sectionsHtml, tocHtml } from '../src/papers/sections.js';
import { CLAIMS } from '../src/claims/papers/index.js';

const SLOT = /<div class="paper-figures" data-figures="([a-z0-9-]+)"><\/div>/g;

const WORDS = ['Zero', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten', 'Eleven', 'Twelve',
  'Thirteen', 'Fourteen', 'Fifteen', 'Sixteen', 'Seventeen', 'Eighteen', 'Nineteen', 'Twenty'];

/** The number of claims as the page's intro opens with it: "Thirteen" (digits past twenty). */
export const claimCount = (n = CLAIMS.length) => WORDS[n] ?? String(n);

/** `html` with each claim's section, table-of-contents entry and their count in the places the page marks. */
export function fillSections(html) {
  return html
    .replace('<!-- papers: sections -->', sectionsHtml)
    .replace('<!-- papers: toc -->', tocHtml)
    .replace('<!-- papers: count -->', claimCount());
}

/** `html` with each figures slot filled with its claim's figures. */
export function fillFigures(html) {
  return html.replace(SLOT, (_, id) => `<div class="paper-figures">${figuresHtml(id)}</div>`);
}

/** The page as the build writes it: the sections, then their figures. */
export const fillPapers = (html) => fillFigures(fillSections(html));

export function figuresPlugin() {
  return { name: 'resnorm-figures', transformIndexHtml: { order: 'pre', handler: fillPapers } };
}
