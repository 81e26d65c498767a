// The explorer's starting points (web/src/explorer/starts.js): each is a config the engine runs, and
// each caption says what its picture shows at initialization: every claim of a caption is checked
// here on the engine's numbers for that config (the shipped wasm module, as the page runs it).
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadWasm } from '../helpers.js';
import { STARTS, START_BY_KEY, startConfig } from '../../../web/src/explorer/starts.js';
import { significant } from '../../../web/src/shared/format.js';

const rn = await loadWasm();

/** The engine's per-layer results of starting point `key`, by architecture. */
const resultsOf = (key) => rn.simulate(startConfig(key)).results;

/** Whether two arrays hold the same numbers bit for bit. */
const sameBits = (a, b) => a.length === b.length && Array.from(a).every((v, i) => Object.is(v, b[i]));

/** The largest relative difference of `a` from `b`, entry by entry. */
const relGap = (a, b) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i]) / Math.abs(b[i])));

/** `v` at two significant digits, as the captions write it. */
const two = (v) => significant(v, 2);

/** Whether caption `key` says `text`: a caption's number is checked only where it is written. */
const says = (key, text) => assert.ok(START_BY_KEY[key].caption.includes(text), `${key} says "${text}"`);

const sigmoid = (x) => 1 / (1 + Math.exp(-x));

/** Each captioned starting point's checks: its caption's claims on the engine's numbers. */
const CHECKS = {
  dyt: ({ pre_ln: pre, dyt }) => {
    const L = pre.stream_rms.length - 1;
    says('dyt', `update ratio is ${two(dyt.update_ratio[0])} against Pre-LN\u2019s ${two(pre.update_ratio[0])}`);
    // more slowly: below Pre-LN's at every block boundary above h_0
    for (let l = 1; l <= L; l++) assert.ok(dyt.stream_rms[l] < pre.stream_rms[l], `layer ${l}`);
    says('dyt', `RMS of ${two(dyt.stream_rms[L])} at the top against ${two(pre.stream_rms[L])}`);
    says('dyt', `(${two(dyt.grad_norm[0])} against ${two(pre.grad_norm[0])})`);
    assert.ok(relGap([dyt.grad_norm[0]], [pre.grad_norm[0]]) < 0.02, 'about the same gradient at the bottom');
  },
  attn_res: ({ pre_rms: pre, attn_res: ar }) => {
    // every read weight 1/(k + 1) at init: a trainer of the same stack, before any step
    const config = startConfig('attn_res');
    const t = rn.trainer({
      task: 'reverse',
      arch: 'attn_res',
      depth: config.depth,
      block: config.block,
      heads: config.heads,
      width: config.width,
    });
    const weights = t.attnResWeights();
    t.delete();
    assert.equal(weights.length, 2 * config.depth, 'a row per sublayer');
    weights.forEach((row, k) => {
      assert.equal(row.length, k + 2, `unit ${k + 1} reads h_0 and the ${k + 1} outputs below it`);
      for (const w of row) assert.ok(Math.abs(w - 1 / (k + 2)) < 1e-7, `unit ${k + 1}: ${w}`);
    });
    const L = pre.stream_rms.length - 1;
    for (let l = 1; l <= L; l++) assert.ok(ar.stream_rms[l] < ar.stream_rms[0], `shrinks: layer ${l}`);
    // the top's within 0.1% of the smallest: the stream shrinks all the way up
    assert.ok(ar.stream_rms[L] <= 1.001 * Math.min(...ar.stream_rms), `${ar.stream_rms[L]}`);
    says(
      'attn_res',
      `RMS of ${two(ar.stream_rms[L])} at the top, where Pre-RMSNorm\u2019s grows to ${two(pre.stream_rms[L])}`,
    );
    assert.equal(Math.max(...pre.stream_rms), pre.stream_rms[L]);
  },
  hc: ({ pre_ln: pre, hyper }) => {
    assert.equal(startConfig('hc').hc_streams, 4, 'the caption\u2019s 4 streams');
    assert.ok(sameBits(hyper.stream_rms, pre.stream_rms), 'the stream RMS bit for bit');
    assert.ok(sameBits(hyper.update_ratio, pre.update_ratio), 'the update ratios bit for bit');
    assert.ok(
      relGap(hyper.grad_norm, pre.grad_norm) < 1e-7,
      `the gradient norm: ${relGap(hyper.grad_norm, pre.grad_norm)}`,
    );
  },
  mhc: ({ pre_ln: pre, hyper, mhc }) => {
    const n = startConfig('mhc').hc_streams;
    says('mhc', `${significant(sigmoid(8), 5)} on one stream and ${two(sigmoid(-8))} on each other`);
    const sum = sigmoid(8) + (n - 1) * sigmoid(-8);
    says('mhc', `${significant(sum, 6)} in all`);
    // the read is `sum` times the stream: the update ratio (output over what it reads) is smaller by that much
    for (let b = 0; b < mhc.update_ratio.length; b++) {
      const gap = 1 - mhc.update_ratio[b] / pre.update_ratio[b];
      assert.equal(`${two(gap * 100)}%`, '0.067%', `block ${b + 1}: ${gap}`);
      assert.equal(hyper.update_ratio[b], pre.update_ratio[b]);
    }
    assert.equal(`${two((sum - 1) * 100)}%`, '0.067%');
    says('mhc', '0.067% larger');
    for (const k of ['stream_rms', 'grad_norm'])
      assert.ok(relGap(mhc[k], pre[k]) < 2e-6, `${k}: ${relGap(mhc[k], pre[k])}`);
  },
  hybrid: ({ post_ln: post, pre_ln: pre, hybrid }) => {
    const L = pre.stream_rms.length - 1;
    says('hybrid', `between ${two(Math.min(...hybrid.stream_rms))} and ${two(Math.max(...hybrid.stream_rms))}`);
    says('hybrid', `Pre-LN\u2019s grows to ${two(pre.stream_rms[L])}`);
    for (let l = 1; l <= L; l++) assert.ok(Math.abs(post.stream_rms[l] - 1) < 1e-3, `Post-LN at layer ${l}`);
    const ratio = (r) => two(r.grad_norm[0] / r.grad_norm[L]);
    says(
      'hybrid',
      `${ratio(hybrid)} times the top\u2019s, against Post-LN\u2019s ${ratio(post)} and Pre-LN\u2019s ${ratio(pre)}`,
    );
  },
};

test('every starting point runs in the engine with its own architectures', () => {
  for (const s of STARTS) {
    const out = rn.simulate(startConfig(s.key));
    assert.deepEqual(Object.keys(out.results).sort(), [...s.config.arch].sort(), s.key);
    for (const r of Object.values(out.results)) assert.equal(r.first_nonfinite, null, `${s.key}: finite`);
  }
});

test('every caption is checked here, and every check is of a caption', () => {
  const captioned = STARTS.filter((s) => s.caption).map((s) => s.key);
  assert.deepEqual(captioned.sort(), Object.keys(CHECKS).sort());
  for (const key of captioned) assert.ok(START_BY_KEY[key].caption.length < 400, `${key}: a short caption`);
});

for (const [key, check] of Object.entries(CHECKS))
  test(`the ${key} starting point\u2019s caption holds on the engine\u2019s numbers`, () => check(resultsOf(key)));
