// The numbers tests/node/papers/claims.test.js judges each claim on: the result of a panel at its
// default settings, and copies of it with every measured number moved by a fixed pseudo-random factor
// (a little, then a lot), and a few made by hand (EXTRA), so each claim's verdict rule and caption meet
// numbers other than the defaults'; for Figure 3 at every weight it can show. record() keeps what the page prints of them.

// A result as plain JSON (typed arrays as arrays), as the worker posts it.
const plain = (result) => JSON.parse(JSON.stringify(result, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));

// What a training log carries that no claim reads: BatchNorm's three held-out losses and its
// distances (equal losses and empty arrays for the claims' LayerNorm and RMSNorm runs), the largest
// attention logit and Hyper-Connections' composite gains. Left as they are, so the factors fall on
// the numbers the claims read in the order the recordings were made with.
const UNREAD = new Set([
  'heldout_loss_train_mode',
  'heldout_loss_eval_mode',
  'heldout_loss_one_seq',
  'bn_mean_distance',
  'bn_var_distance',
  'max_logit',
  'hc_gain_fwd',
  'hc_gain_bwd',
]);

// Every number of `x` times exp(spread * (u - 1/2)), u from a fixed linear congruential sequence;
// the settings a run was made with (config, params, task) as they are.
function moved(x, spread, state) {
  if (typeof x === 'number') {
    state.seed = (state.seed * 1103515245 + 12345) % 2 ** 31;
    return x * Math.exp(spread * (state.seed / 2 ** 31 - 0.5));
  }
  if (Array.isArray(x)) return x.map((v) => moved(v, spread, state));
  if (x && typeof x === 'object')
    return Object.fromEntries(
      Object.entries(x).map(([k, v]) => [
        k,
        ['config', 'params', 'task'].includes(k) || UNREAD.has(k) ? v : moved(v, spread, state),
      ]),
    );
  return x;
}

// Numbers the moved copies do not reach: Veit's gradient spread over the paths as the path count is,
// and the panels that train without their trained half.
const untrained = (d) => ({ ...d, trained: undefined });
const EXTRA = {
  veit: ['the gradient as the path count', (d) => ({ ...d, pre_ln: { ...d.pre_ln, total: d.pre_ln.count } })],
  rezero: ['untrained', untrained],
  mixln: ['untrained', untrained],
  layerscale: ['untrained', untrained],
  rmsnorm: [
    'a run diverged, one still learning',
    (d) => ({
      ...d,
      rmsnorm: d.rmsnorm.map((r, i) => (i === 2 ? { ...r, loss: NaN, outcome: 'diverged' } : r)),
      layernorm: d.layernorm.map((r, i) => (i === 4 ? { ...r, outcome: 'slow' } : r)),
    }),
  ],
};

// Numbers a claim measures of the machine rather than computes (RMSNorm's kernel times): different on
// every run, so the recordings hold them fixed at the medians one rn.timeNorms() measurement under Node
// left (two digits, the shared 2-core host at load average 6.2; p10 and p90, which no caption reads, set
// around them), and judge the claim's table and caption on those; the moved copies move them as any number.
const KERNEL_TIMES = (ln_f, ln_b, rms_f, rms_b) => {
  const time = (ms) => ({ median_ms: ms, p10_ms: ms * 0.95, p90_ms: ms * 1.1 });
  return {
    ln_forward: time(ln_f),
    ln_backward: time(ln_b),
    rms_forward: time(rms_f),
    rms_backward: time(rms_b),
    forward_ratio: rms_f / ln_f,
    backward_ratio: rms_b / ln_b,
    total_ratio: (rms_f + rms_b) / (ln_f + ln_b),
  };
};
const MEASURED = {
  rmsnorm: (d) => ({
    ...d,
    timing: [
      { config: { width: 64, tokens: 1024, samples: 21, inner: 11 }, ...KERNEL_TIMES(0.053, 0.05, 0.026, 0.043) },
      { config: { width: 512, tokens: 128, samples: 21, inner: 47 }, ...KERNEL_TIMES(0.053, 0.057, 0.026, 0.042) },
      { config: { width: 2048, tokens: 32, samples: 21, inner: 48 }, ...KERNEL_TIMES(0.043, 0.065, 0.026, 0.043) },
    ],
  }),
};

const WEIGHTS = ['all', 'w1', 'w2', 'wq', 'wk', 'wv', 'wo'];

/** [{name, result, view}]: the default result and two moved copies, at each view the panel has. */
export function variants(id, result) {
  const computed = plain(result);
  const base = MEASURED[id] ? { ...computed, data: MEASURED[id](computed.data) } : computed;
  const results = [
    ['defaults', base],
    ['moved a little', { ...base, data: moved(base.data, 0.6, { seed: 12345 }) }],
    ['moved a lot', { ...base, data: moved(base.data, 6, { seed: 54321 }) }],
    ...(EXTRA[id] ? [[EXTRA[id][0], { ...base, data: EXTRA[id][1](base.data) }]] : []),
  ];
  const views = id === 'figure3' ? WEIGHTS.map((weight) => ({ weight })) : [{}];
  return results.flatMap(([name, r]) =>
    views.map((view) => ({ name: view.weight ? `${name}, ${view.weight}` : name, result: r, view })),
  );
}

/** What the page prints of a result: the verdict, the table's text and the caption. */
export function record(summarize, caption, id, result, view) {
  const s = summarize(id, result, view);
  const c = caption(id, result, view);
  return {
    verdict: s.verdict,
    rows: s.rows.map(({ key, label, measured, claimed, ok }) => ({ key, label, measured, claimed, ok })),
    lead: c.lead,
    text: c.text,
  };
}
