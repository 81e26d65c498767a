// The series the papers page's charts draw, as the claims' figures() build them
// (./<id>.js): an arch's line in its colour and dash, the claim's dashed
// reference line, a chart over depth L and one chart per metric over the layers.
// Pure: specs for ../../papers/chart.js, no DOM; `col` is that module's colors().
import { ARCH_BY_KEY } from '../../shared/archs.js';

const LABELS = {
  post_ln: 'Post-LN',
  pre_ln: 'Pre-LN',
  deepnorm: 'DeepNorm',
  gpt2: 'GPT-2 init (Pre-LN)',
  residual: 'residual, no norm',
  rezero: 'ReZero',
  lns: 'LNS (Pre-LN, 1/√l)',
  mix_ln: 'Mix-LN',
  layerscale: 'LayerScale',
  dwa: 'DenseFormer',
};
const CLAIM_DASH = [6, 5];

/** An arch's line: its label, colour and dash; `extra` adds or overrides fields (points, label). */
export const archSeries = (col, arch, values, extra = {}) => ({
  key: arch,
  label: LABELS[arch],
  values,
  color: col.arch[arch],
  dash: ARCH_BY_KEY[arch]?.dash ?? [],
  ...extra,
});

/** The claim's reference line, dashed in the claim colour. */
export const claimSeries = (col, label, values) => ({
  key: 'claim',
  label,
  values,
  color: col.claim,
  dash: CLAIM_DASH,
  width: 1.5,
});

/** A chart over depth L, both axes logarithmic, one point per depth for each arch. */
export const overDepth = (col, depths, arches, claims) => ({
  x: depths,
  xLog: true,
  xLabel: 'depth L',
  yLog: true,
  series: [...Object.entries(arches).map(([a, v]) => archSeries(col, a, v, { points: true })), ...claims],
});

/** One chart per metric of `archs` over layers 0..L, log y (r.data[arch][metric]). */
export const perLayer = (r, col, archs, metrics) => {
  const layers = r.data[archs[0]].grad_norm.map((_, l) => l);
  return metrics.map((metric) => ({
    x: layers,
    xLabel: 'layer l',
    yLog: true,
    series: archs.map((a) => archSeries(col, a, r.data[a][metric])),
  }));
};

/**
 * What a claim's figures() return: [{chart, spec}], each spec of `specs` under the data-chart key of the
 * chart of `pageFigures` in the same place (its matrices left out), so each key is named once.
 */
export function charted(pageFigures, specs) {
  const charts = pageFigures.filter((f) => f.chart).map((f) => f.chart);
  if (charts.length !== specs.length) throw new Error(`papers: ${specs.length} specs for the charts ${charts}`);
  return charts.map((chart, i) => ({ chart, spec: specs[i] }));
}
