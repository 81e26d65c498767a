// The sentences under the charts, computed from the current results: how far
// each arch's gradient at layer 0 is from the top's, how its stream grows (for
// plain, by what factor per block on average), how big its last block's update
// is, and where its numbers overflow.
import { archLabel } from '../shared/archs.js';
import { fixed, fmtRatio, fmtValue } from '../shared/format.js';
import { overflowInfo, OK, ZERO } from './series.js';
import { swatch } from '../shared/swatch.js';
import { el } from '../shared/dom.js';

/** "3.2×" as text, or 10<sup>−4.1</sup>× as nodes. */
function ratio(r) {
  const f = fmtRatio(r);
  if (f.text) return [f.text];
  return ['10', el('sup', {}, f.exp), '×'];
}

/** ", transformer blocks (…)" for attention + MLP blocks, nothing for MLP blocks. */
const blockWords = (c) =>
  c.block === 'transformer'
    ? `, transformer blocks (attention with ${c.heads} ${c.heads === 1 ? 'head' : 'heads'}, ${c.causal ? 'causal' : 'no mask'}${c.qk_norm === 'layernorm' ? ', LayerNorm on queries and keys' : ''}, then the MLP)`
    : '';

const NAMES = { none: 'no final norm', layernorm: 'a final LayerNorm', rmsnorm: 'a final RMSNorm' };

export function renderCaption(root, { out, prepared, archs }) {
  const c = out.config;
  const L = c.depth;
  const lead = el(
    'p',
    { class: 'caption-lead' },
    `Depth ${L}, gain ${fixed(c.gain, 2)}, width ${c.width}, ${c.tokens} ${c.tokens === 1 ? 'token' : 'tokens'}, ` +
      `expansion ${c.expansion}, ${c.activation}, ${c.init} init, ${NAMES[c.final_norm]}, seed ${c.seed}${blockWords(c)}. ` +
      (c.final_norm === 'none'
        ? 'The top gradient is exactly 1, so every gradient reads as a multiple of it.'
        : 'With a final norm the top gradient is not exactly 1; ratios are to the top layer\u2019s.'),
  );

  const items = archs.map((arch) => {
    const r = out.results[arch];
    const info = overflowInfo(r);
    const li = el(
      'li',
      { class: `caption-item caption-${arch}`, 'data-arch': arch },
      swatch(arch),
      el('strong', {}, archLabel(arch)),
      ': ',
    );
    if (info.stream !== null) {
      li.append(
        `the stream overflows float32 at layer ${info.stream}. From there on the stream and the block updates are not numbers, and neither is any gradient below the top (backprop starts above the overflow); all are drawn on the overflow lane.`,
      );
      return li;
    }
    const parts = [];
    // gradient
    const g = prepared.grad;
    if (info.grad !== null) {
      parts.push([`the gradient overflows at layer ${info.grad} and below`]);
    } else if (g.cls[arch][0] === ZERO) {
      parts.push(['the gradient at layer 0 is exactly 0 (drawn on the zero lane)']);
    } else {
      const r0 = r.grad_norm[0] / r.grad_norm[L];
      let max = 0,
        min = Infinity;
      for (let i = 0; i <= L; i++)
        if (g.cls[arch][i] === OK) {
          max = Math.max(max, r.grad_norm[i]);
          min = Math.min(min, r.grad_norm[i]);
        }
      const spread = max / min;
      const gradPart = ['the gradient at layer 0 is ', ...ratio(r0), ' the top\u2019s'];
      if (spread > 1.5 * Math.max(r0, 1 / r0)) gradPart.push(' (max/min over all layers: ', ...ratio(spread), ')');
      parts.push(gradPart);
    }
    // stream
    const s0 = r.stream_rms[0],
      sL = r.stream_rms[L];
    if (prepared.stream.cls[arch][L] === ZERO) parts.push(['the stream collapses to exactly 0']);
    else {
      const gs = sL / s0;
      const verb = gs >= 1.5 ? 'grows' : gs <= 1 / 1.5 ? 'shrinks' : 'stays near its start';
      parts.push(
        verb === 'stays near its start'
          ? [`the stream RMS stays near its start (`, ...ratio(gs), ` at layer ${L})`]
          : verb === 'grows'
            ? ['the stream RMS grows ', ...ratio(gs), ` by layer ${L}`]
            : ['the stream RMS shrinks to ', ...ratio(gs), ` its start by layer ${L}`],
      );
    }
    const u = prepared.update;
    if (arch === 'plain') {
      // plain has no skip: a block's "update" is its whole output, and 1/sqrt(L)
      // means nothing there. One block's factor is noisy; the geometric mean of
      // the per-block factors rms_l / rms_(l-1) is (rms_L / rms_0)^(1/L).
      if (prepared.stream.cls[arch][L] === OK && prepared.stream.cls[arch][0] === OK)
        parts.push([
          `each block multiplies the stream RMS by ${fmtValue((sL / s0) ** (1 / L))}× (the geometric mean over the ${L} ` +
            `${L === 1 ? 'block' : 'blocks'}, (RMS at layer ${L} / RMS at layer 0)^(1/${L}))`,
        ]);
    } else if (info.update === null && u.cls[arch][L - 1] === OK) {
      const v = r.update_ratio[L - 1];
      parts.push([
        `block ${L}\u2019s update is ${fmtValue(v)}× the stream it adds to (1/\u221a${L} = ${fmtValue(1 / Math.sqrt(L))})`,
      ]);
    } else if (u.cls[arch][L - 1] === ZERO) parts.push([`block ${L} adds exactly 0`]);
    parts.forEach((p, i) => li.append(...(i ? ['; '] : []), ...p));
    li.append('.');
    if (info.weights)
      li.append(
        el(
          'span',
          { class: 'caption-note' },
          ` (Its weight-gradient norms, not plotted, are not finite in float32 from block ${firstWeightBad(r)}.)`,
        ),
      );
    return li;
  });

  const zeros = ['grad', 'stream', 'update'].filter((m) => prepared[m].lanes.bottom !== null);
  const notes = [];
  if (zeros.length)
    notes.push(
      el(
        'p',
        { class: 'caption-note' },
        'Exact zeros cannot sit on a log axis: they are drawn on the labelled \u201czero\u201d lane at the bottom of the chart.',
      ),
    );
  root.replaceChildren(lead, el('ul', { class: 'caption-list' }, ...items), ...notes);
}

function firstWeightBad(r) {
  const a = r.w1_grad_norm.findIndex((v) => !Number.isFinite(v));
  const b = r.w2_grad_norm.findIndex((v) => !Number.isFinite(v));
  return Math.min(a < 0 ? Infinity : a, b < 0 ? Infinity : b) + 1;
}
