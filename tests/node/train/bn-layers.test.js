// The lab's names of BatchNorm's layers (web/src/train/bn-layers.js): for
// every architecture, block kind and final norm the engine trains, as many
// names as the engine logs distances, in its order (each unit's norms, then
// the final norm); a run without BatchNorm has none; a count the names do not
// fit falls back to numbers rather than wrong names.
// Run: node --test tests/node/train/bn-layers.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadWasm, PAL } from '../helpers.js';
import { bnLayers, bnRowLabels, hasBatchnorm, noBnMapText } from '../../../web/src/train/bn-layers.js';
import { ARCHS } from '../../../web/src/shared/archs.js';
import { HEAT_METRICS, heatRuns } from '../../../web/src/train/series.js';
import { toLabCsv, toLabJson } from '../../../web/src/train/export-data.js';
import { labToSvg } from '../../../web/src/train/export-svg.js';
import { tinyConfig } from './tiny.js';

/** The colours of an SVG export. */

const SMALL = { task: 'reverse', seq: 4, seq_min: 2, vocab: 6, width: 8, heads: 2, batch: 4, steps: 2, log_every: 1 };

test('the names of a Pre-LN transformer of 2 blocks: each sublayer\u2019s norm, then the final norm, bottom first', () => {
  const names = bnLayers({ arch: 'pre_ln', norm: 'batchnorm', block: 'transformer', depth: 2, final_norm: 'auto' });
  assert.deepEqual(
    names.map((n) => n.short),
    ['1 attn', '1 MLP', '2 attn', '2 MLP', 'final'],
  );
  assert.equal(names[1].long, 'block 1 MLP, norm before the sublayer');
  assert.equal(names[4].long, 'final norm, before the readout');
  // sandwich: two norms per sublayer, told apart
  const sandwich = bnLayers({ arch: 'sandwich', norm: 'batchnorm', block: 'mlp', depth: 1, final_norm: 'auto' });
  assert.deepEqual(
    sandwich.map((n) => n.short),
    ['1 in', '1 out', 'final'],
  );
  // Post-LN: the norm after the sum, no final norm
  assert.deepEqual(
    bnLayers({ arch: 'post_ln', norm: 'batchnorm', block: 'mlp', depth: 2, final_norm: 'auto' }).map((n) => n.long),
    ['block 1, norm after the residual sum', 'block 2, norm after the residual sum'],
  );
  assert.deepEqual(bnLayers({ arch: 'pre_ln', norm: 'auto', block: 'mlp', depth: 2 }), []);
  // HybridNorm: no norm around attention (its Q, K, V norms stay LayerNorm), one before each MLP
  assert.deepEqual(
    bnLayers({ arch: 'hybrid', norm: 'batchnorm', block: 'transformer', depth: 2, final_norm: 'auto' }).map(
      (n) => n.short,
    ),
    ['1 MLP', '2 MLP', 'final'],
  );
});

test('as many names as the engine logs distances, for every architecture, block and final norm', async () => {
  const rn = await loadWasm();
  let checked = 0;
  for (const { key: arch } of ARCHS)
    for (const block of ['mlp', 'transformer'])
      for (const final_norm of ['auto', 'none', 'layernorm'])
        for (const depth of [1, 4]) {
          const tr = rn.trainer({ ...SMALL, arch, block, final_norm, depth, norm: 'batchnorm' });
          const log = tr.step(1).at(-1);
          const run = { config: tr.config, logs: [] };
          assert.equal(
            bnLayers(run.config).length,
            log.bn_mean_distance.length,
            `${arch}, ${block}, final ${final_norm}, depth ${depth}`,
          );
          assert.equal(log.bn_var_distance.length, log.bn_mean_distance.length);
          // a run is mapped (HEAT_METRICS) exactly when the engine logs distances for it
          assert.equal(hasBatchnorm(run), log.bn_mean_distance.length > 0, `${arch} ${block}`);
          tr.delete();
          checked++;
        }
  // without BatchNorm: no distances, no names, no map
  const tr = rn.trainer({ ...SMALL, arch: 'pre_ln', depth: 2 });
  const log = tr.step(1).at(-1);
  assert.equal(log.bn_mean_distance.length, 0);
  assert.equal(bnLayers(tr.config).length, 0);
  const run = { arch: 'pre_ln', config: tr.config, logs: [log] };
  assert.deepEqual(heatRuns(HEAT_METRICS.bn_mean_distance, [run]), []);
  assert.match(noBnMapText(run, 'LayerNorm'), /^LayerNorm .*no(t with)? batch statistics/);
  tr.delete();
  assert.ok(checked > 80);
});

test('a count the names do not fit is numbered, never misnamed; the map has a row per logged distance', () => {
  const config = { arch: 'pre_ln', norm: 'batchnorm', block: 'mlp', depth: 2, final_norm: 'auto' };
  assert.deepEqual(
    bnRowLabels(config, 3).map((n) => n.short),
    ['1', '2', 'final'],
  );
  assert.deepEqual(
    bnRowLabels(config, 4).map((n) => n.long),
    ['BatchNorm 1', 'BatchNorm 2', 'BatchNorm 3', 'BatchNorm 4'],
  );
  const run = { config, logs: [{ bn_mean_distance: [1, 2, 3, 4] }] };
  assert.equal(HEAT_METRICS.bn_mean_distance.rows(2, run), 4);
  assert.equal(HEAT_METRICS.bn_var_distance.labels(run).length, 4);
  // a plain stack has no norm to make BatchNorm: said so, not "its own features"
  assert.match(noBnMapText({ config: { arch: 'plain', norm: 'batchnorm' } }, 'plain'), /no norm/);
  assert.match(noBnMapText({ config: { arch: 'residual', norm: 'auto' } }, 'residual'), /no norm/);
});

test('the exports: a CSV column per BatchNorm layer, named per run, non-finite written out; the SVG maps only BatchNorm runs', () => {
  const config = tinyConfig({ steps: 4, log_every: 2, arch: ['pre_ln'] });
  const bnConfig = { ...config, arch: 'pre_ln', norm: 'batchnorm', block: 'mlp', depth: 2, final_norm: 'auto' };
  const lnConfig = { ...config, arch: 'pre_ln', block: 'mlp', depth: 2 };
  const log = (step, mean, v) => ({ step, train_loss: 1, bn_mean_distance: mean, bn_var_distance: v });
  const runs = [
    { key: 'ln', arch: 'pre_ln', label: 'LayerNorm', config: lnConfig, logs: [log(2, [], []), log(4, [], [])] },
    {
      key: 'bn',
      arch: 'pre_ln',
      label: 'BatchNorm',
      config: bnConfig,
      logs: [log(2, [0.5, 0.25, 2], [1, 2, 3]), log(4, [NaN, 0.125, Infinity], [1, 0, 3])],
      firstNonfinite: null,
    },
  ].map((r) => ({ firstNonfinite: null, stepsDone: 4, task: { chance: 1, optimal: 0 }, ...r }));
  const lines = toLabCsv({ config, runs }).trimEnd().split('\n');
  assert.ok(
    lines.includes(
      '# bn_layers,bn,"block 1, norm before the sublayer","block 2, norm before the sublayer","final norm, before the readout"',
    ),
  );
  const [head, ...rows] = lines.filter((l) => !l.startsWith('#')).map((l) => l.split(','));
  assert.deepEqual(head.slice(0, 2), ['run', 'arch']);
  const col = (m, k) => head.indexOf(`${m}.bn${k}`);
  assert.ok(col('bn_mean_distance', 3) > 0 && col('bn_var_distance', 3) > 0 && col('bn_mean_distance', 4) < 0);
  const bn = rows.filter((r) => r[0] === 'bn');
  assert.deepEqual(
    [1, 2, 3].map((k) => bn[1][col('bn_mean_distance', k)]),
    ['NaN', '0.125', 'Infinity'],
  );
  assert.equal(bn[0][col('bn_var_distance', 2)], '2');
  for (const r of rows.filter((x) => x[0] === 'ln')) assert.equal(r[col('bn_mean_distance', 1)], '');
  const json = JSON.parse(toLabJson({ config, runs }));
  assert.deepEqual(json.runs[1].logs[1].bn_mean_distance, [null, 0.125, null]);
  assert.equal(json.runs[1].key, 'bn');

  const svg = labToSvg({ config, runs, pal: PAL });
  assert.match(svg, /class="heatmap heatmap-bn_mean_distance" data-arch="bn"/);
  assert.doesNotMatch(svg, /heatmap-bn_mean_distance" data-arch="ln"/);
  assert.match(svg, /class="heat-none" data-arch="ln">LayerNorm normalizes each token/);
  // the non-finite cell is hatched and its value written out, the row named
  assert.match(
    svg,
    /fill="url\(#hatch\)" data-step="4" data-row="1" data-v="NaN" data-name="block 1, norm before the sublayer"/,
  );
  // no BatchNorm run: no BatchNorm section in the SVG
  const plain = labToSvg({ config, runs: [runs[0]], pal: PAL });
  assert.doesNotMatch(plain, /bn_mean_distance|batch-vs-running/);
});
