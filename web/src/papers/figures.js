// The papers page's figure markup, written at build time by
// web/build/figures-plugin.js in place of <div class="paper-figures"
// data-figures="<id>"></div>, from each claim's `pageFigures`
// (../claims/papers/<id>.js). A figure is a chart (`chart`: the data-chart key the
// claim's figures() draws into) or a matrix of learned weights (`matrix`), with
// its title and subtitle (HTML; TeX between \( \) is rendered to MathML after),
// a legend keyed as the chart unless `legend: false`, the short kind if
// `short`, and the chart's text for screen readers. Pure: strings, no DOM.
import { CLAIMS } from '../claims/papers/index.js';

/** The sentence every chart's description ends with: the numbers are in the page. */
const TABLE = 'The numbers are in the table below.';

/** `s` safe inside a double-quoted attribute. */
const attr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** One figure's markup. */
export function figureHtml(f) {
  const sub = f.subKey ? `<span class="chart-sub" data-sub="${attr(f.subKey)}">` : '<span class="chart-sub">';
  const caption = `<figcaption><span class="chart-title">${f.title}</span>${sub}${f.sub}</span></figcaption>`;
  if (f.matrix)
    return `<figure class="chart-figure">${caption}<div class="paper-matrix" data-matrix="${attr(f.matrix)}"></div></figure>`;
  const legend = f.legend === false ? '' : `<ul class="legend" data-legend="${attr(f.chart)}"></ul>`;
  const chart =
    `<div class="chart${f.short ? ' chart-short' : ''}" data-chart="${attr(f.chart)}" role="img"` +
    ` aria-label="${attr(`${f.aria} ${TABLE}`)}"></div>`;
  return `<figure class="chart-figure">${caption}${legend}${chart}</figure>`;
}

/** Each claim's figures, by its id. */
export const FIGURES = Object.fromEntries(CLAIMS.map((c) => [c.id, c.pageFigures]));

/** The figures of claim `id`, as the papers page holds them. */
export function figuresHtml(id) {
  const figures = FIGURES[id];
  if (!figures) throw new Error(`papers: no figures for the claim "${id}"`);
  return figures.map(figureHtml).join('');
}
