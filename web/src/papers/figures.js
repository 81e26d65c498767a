// The figures of each reproduction on the papers page, by claim id: what
// web/build/figures-plugin.js writes into papers.html at build time in place of
// <div class="paper-figures" data-figures="<id>"></div>. A figure is a chart
// (`chart`: the data-chart key panels.js draws into) or a matrix of learned
// weights (`matrix`), with its title and subtitle (HTML; TeX between \( \) is
// rendered to MathML after), whether it has a legend (keyed as the chart),
// whether it is the short kind, and the chart's text for screen readers.
// Pure data, no DOM.

/** The sentence every chart's description ends with: the numbers are in the page. */
const TABLE = 'The numbers are in the table below.';

/** The subtitle "‖∂L/∂h‖, log scale" of the gradient-by-layer charts. */
const GRAD_BY_LAYER = '<span class="nw">\\(\\lVert \\partial \\mathcal{L} / \\partial h_l \\rVert\\),</span> log scale';

/** The stream-size chart beside a gradient chart: RMS of h_l for `who`. */
const streamFigure = (id, who) => ({
  chart: `${id}-stream`,
  title: 'Size of the stream',
  sub: 'RMS of <span class="nw">\\(h_l\\),</span> log scale',
  short: true,
  legend: false,
  aria: `Chart: stream RMS at each layer for ${who}.`,
});

export const FIGURES = {
  theorem1: [
    {
      chart: 'theorem1',
      title: '\\(\\lVert \\partial \\mathcal{L} / \\partial W_2 \\rVert_F\\) of the last block',
      sub: 'geometric mean over seeds, log–log; dashes: the claimed laws',
      aria: "Chart: the last block's W2 gradient norm against depth L for Post-LN and Pre-LN, log-log.",
    },
  ],
  figure3: [
    {
      chart: 'figure3',
      title: 'Weight-gradient norm of block \\(l\\)',
      sub: 'log scale',
      subKey: 'figure3',
      aria: 'Chart: weight-gradient norm of each of the 6 blocks for Post-LN and Pre-LN, log scale.',
    },
  ],
  lemma2: [
    {
      chart: 'lemma2',
      title: '\\(\\mathbb{E}\\lVert x_l \\rVert^2 / d\\) at layer \\(l\\)',
      sub: 'mean over seeds; dashes: \\(1 + l/2\\)',
      aria: 'Chart: mean squared stream norm over d at each layer for Pre-LN and Post-LN, with the line 1 + l/2.',
    },
  ],
  deepnet: [
    {
      chart: 'deepnet',
      title: 'Gradient reaching layer \\(l\\)',
      sub: GRAD_BY_LAYER,
      aria: 'Chart: gradient norm at each layer for DeepNorm and Post-LN, log scale.',
    },
    streamFigure('deepnet', 'DeepNorm and Post-LN'),
  ],
  gpt2: [
    {
      chart: 'gpt2',
      title: 'Stream at the top over the stream at the input',
      sub: "log–log; dashes: \\(\\sqrt{L}\\) through Pre-LN's first point",
      aria: 'Chart: top-of-stream RMS over input RMS against depth for GPT-2 initialization and Pre-LN, log-log.',
    },
  ],
  veit: [
    {
      chart: 'veit',
      title: 'Share of paths, and of the gradient, by path length \\(k\\)',
      sub: 'each curve sums to 1',
      aria: 'Chart: the binomial distribution of path lengths and the share of the total gradient magnitude carried by paths of each length, for Pre-LN and the unnormalized residual stack.',
    },
    {
      chart: 'veit-mean',
      title: 'Gradient carried by one path of length \\(k\\)',
      sub: 'mean <span class="nw">\\(\\lVert \\partial \\mathcal{L} / \\partial h_0 \\rVert\\),</span> log scale',
      short: true,
      aria: 'Chart: mean gradient norm at the input carried by a single path of each length, log scale.',
    },
  ],
  rezero: [
    {
      chart: 'rezero',
      title: "Gradient reaching layer \\(l\\) over the top's",
      sub: '<span class="nw">\\(g_l / g_L\\),</span> log scale',
      aria: "Chart: the gradient at each layer over the top's, for ReZero and Pre-LN, log scale.",
    },
    streamFigure('rezero', 'ReZero and Pre-LN'),
  ],
  lns: [
    {
      chart: 'lns',
      title: 'Variance at the top over the variance at the input',
      sub: "log–log; dashes: \\(\\propto L\\) through Pre-LN's first point",
      aria: 'Chart: top-of-stream variance over input variance against depth for Pre-LN and LayerNorm Scaling, log-log.',
    },
  ],
  mixln: [
    {
      chart: 'mixln',
      title: 'Weight-gradient norm of block \\(l\\)',
      sub: 'all six matrices, mean over seeds, log scale',
      aria: 'Chart: the weight-gradient norm of each block for Post-LN, Pre-LN and Mix-LN, log scale.',
    },
  ],
  layerscale: [
    {
      chart: 'layerscale',
      title: 'Update ratio of block \\(l\\)',
      sub: 'log scale; dashes: \\(\\varepsilon\\)',
      aria: 'Chart: the update ratio of each block for LayerScale and Pre-LN, with the line epsilon, log scale.',
    },
  ],
  dwa: [
    {
      chart: 'dwa',
      title: 'Gradient reaching layer \\(l\\) at initialization',
      sub: GRAD_BY_LAYER,
      short: true,
      aria: 'Chart: the gradient at each layer at initialization for Pre-LN and DenseFormer, log scale.',
    },
    {
      matrix: 'dwa',
      title: 'Which earlier layers each block reads, after training',
      sub: 'row \\(l\\): \\(w_{l,0}\\) (the embedding, left) to \\(w_{l,l}\\) (the block itself, the diagonal); at initialization the diagonal is 1 and the rest 0',
    },
  ],
};

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

/** The figures of claim `id`, as the papers page holds them. */
export function figuresHtml(id) {
  const figures = FIGURES[id];
  if (!figures) throw new Error(`papers: no figures for the claim "${id}"`);
  return figures.map(figureHtml).join('');
}
