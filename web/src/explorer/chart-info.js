// The three charts as plain text (the embed's captions, the exports' titles).
// The explorer's own captions are in index.html, with MathML.

export const CHART_INFO = {
  grad: {
    title: 'Gradient reaching layer l',
    sub: '\u2016\u2202loss/\u2202h\u2097\u2016, log scale; the top layer\u2019s is 1',
    xLabel: 'layer l',
    aria: 'Chart: gradient norm at each layer, log scale.',
  },
  stream: {
    title: 'Size of the residual stream',
    sub: 'RMS of the entries of h\u2097, log scale',
    xLabel: 'layer l',
    aria: 'Chart: stream RMS at each layer, log scale.',
  },
  update: {
    title: 'How much block l changes the stream',
    sub: '\u2016u\u2097\u2016 / \u2016\u03b1 h\u2097\u208b\u2081\u2016, log scale; grey dashes: 1/\u221al',
    xLabel: 'block l',
    reference: '1/\u221al',
    aria: 'Chart: relative update size of each block, log scale, with the curve 1 over square root of l.',
  },
};
