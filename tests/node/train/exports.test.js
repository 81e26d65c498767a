// The training lab's exports as files (web/src/train/export-data.js,
// export-svg.js): the CSV and JSON hold every logged number of every run, bit
// for bit, with the settings; non-finite values are written as the
// explorer's exports write them (NaN, Infinity, -Infinity in the CSV, null in
// the JSON), an array the stopping step has none of is empty cells; the SVG
// draws every heatmap cell with its value, the legend's ticks and the
// hatching, and escapes every piece of text; the file names say the run.
// Run: node --test tests/node/train/exports.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { loadWasm, PAL } from '../helpers.js';
import { tinyConfig } from './tiny.js';
import { numberText } from '../../../web/src/shared/export-text.js';
import { LAB_FORMAT, labFileBase, toLabCsv, toLabJson } from '../../../web/src/train/export-data.js';
import { labToSvg } from '../../../web/src/train/export-svg.js';

const rn = await loadWasm();

const CONFIG = tinyConfig({ steps: 10 });

/** The runs of CONFIG through the engine, as the session holds them. */
function runsOf(config = CONFIG) {
  return config.arch.map((arch) => {
    const tr = rn.trainer({ ...config, arch });
    const logs = tr.step(config.steps);
    const run = { arch, config: tr.config, task: tr.task, logs, stepsDone: tr.stepsDone, stopped: tr.stopped };
    const stop = logs.find((l) => l.first_nonfinite !== null);
    run.firstNonfinite = stop ? stop.first_nonfinite : null;
    tr.delete();
    return run;
  });
}

/** A run whose last step is not finite: NaN, ±Infinity, and no update ratios. */
function brokenRun() {
  const f = (...v) => Float64Array.from(v);
  const ok = {
    step: 2,
    lr: 0.5,
    train_loss: 1.25,
    heldout_loss: 1.5,
    heldout_accuracy: 0.25,
    grad_norm_global: 3,
    first_nonfinite: null,
    grad_norm: f(1, 2, 3),
    update_ratio: f(0.1, 0),
  };
  const bad = {
    step: 3,
    lr: 0.5,
    train_loss: NaN,
    heldout_loss: Infinity,
    heldout_accuracy: NaN,
    grad_norm_global: -Infinity,
    first_nonfinite: 3,
    grad_norm: f(NaN, Infinity, -Infinity),
    update_ratio: f(),
  };
  return {
    arch: 'post_ln',
    config: { depth: 2 },
    task: { chance: Math.log(4), optimal: 0 },
    logs: [ok, bad],
    stepsDone: 3,
    stopped: true,
    firstNonfinite: 3,
  };
}

function parseCsv(text) {
  const lines = text.trimEnd().split('\n');
  const meta = lines.filter((l) => l.startsWith('#'));
  const [head, ...rows] = lines.filter((l) => !l.startsWith('#')).map((l) => l.split(','));
  return { meta, head, rows };
}

test('the CSV holds every logged number of every run, bit for bit, with the settings and the link', () => {
  const runs = runsOf();
  const csv = toLabCsv({ config: CONFIG, runs, link: 'https://x/train.html#task=copy' });
  const { meta, head, rows } = parseCsv(csv);
  assert.ok(meta.includes('# link,"https://x/train.html#task=copy"'), meta.join('\n'));
  assert.ok(meta.includes('# arch,"post_ln,pre_ln"'));
  assert.ok(meta.includes('# lr,0.001'));
  assert.ok(meta.some((l) => l.startsWith('# run,post_ln,steps_done,10,')));
  assert.deepEqual(head.slice(0, 3), ['arch', 'step', 'lr']);
  for (const col of [
    'grad_norm.layer0',
    'grad_norm.layer2',
    'stream_rms.layer2',
    'update_ratio.block1',
    'update_ratio.block2',
  ])
    assert.ok(head.includes(col), col);
  assert.ok(!head.includes('update_ratio.block0') && !head.includes('grad_norm.layer3'));
  assert.equal(rows.length, 10);
  for (const r of runs) {
    const mine = rows.filter((row) => row[0] === r.arch);
    r.logs.forEach((l, i) => {
      head.forEach((col, j) => {
        if (col === 'arch') return;
        const m = /^(.+)\.(layer|block)(\d+)$/.exec(col);
        const want = m ? l[m[1]][m[2] === 'layer' ? Number(m[3]) : Number(m[3]) - 1] : l[col];
        const cell = mine[i][j];
        if (want === null) assert.equal(cell, '', col);
        else assert.ok(Object.is(Number(cell), want), `${r.arch} ${col}: ${cell} != ${want}`);
      });
    });
  }
});

test('non-finite values: NaN, Infinity, -Infinity in the CSV, null in the JSON; a missing array is empty cells; never a throw', () => {
  const run = brokenRun();
  const config = { ...CONFIG, arch: ['post_ln'], steps: 3 };
  const { head, rows } = parseCsv(toLabCsv({ config, runs: [run] }));
  const cell = (i, col) => rows[i][head.indexOf(col)];
  assert.equal(cell(1, 'train_loss'), 'NaN');
  assert.equal(cell(1, 'heldout_loss'), 'Infinity');
  assert.equal(cell(1, 'grad_norm_global'), '-Infinity');
  assert.deepEqual(
    ['grad_norm.layer0', 'grad_norm.layer1', 'grad_norm.layer2'].map((c) => cell(1, c)),
    ['NaN', 'Infinity', '-Infinity'],
  );
  assert.deepEqual([cell(1, 'update_ratio.block1'), cell(1, 'update_ratio.block2')], ['', '']);
  assert.deepEqual([cell(0, 'update_ratio.block1'), cell(0, 'update_ratio.block2')], ['0.1', '0']);
  assert.equal(cell(0, 'first_nonfinite'), '');
  assert.equal(cell(1, 'first_nonfinite'), '3');
  const json = JSON.parse(toLabJson({ config, runs: [run] }));
  const bad = json.runs[0].logs[1];
  assert.equal(bad.train_loss, null);
  assert.equal(bad.heldout_loss, null);
  assert.deepEqual(bad.grad_norm, [null, null, null]);
  assert.deepEqual(bad.update_ratio, []);
  assert.equal(json.runs[0].first_nonfinite, 3);
  assert.equal(json.runs[0].stopped, true);
  assert.equal(numberText(-0), '0');
  // an empty run exports headers only
  assert.doesNotThrow(() => toLabCsv({ config, runs: [{ ...run, logs: [] }] }));
  assert.doesNotThrow(() => labToSvg({ config, runs: [{ ...run, logs: [] }], pal: PAL }));
});

test('the JSON holds the settings and every run\u2019s logs as the engine gave them', () => {
  const runs = runsOf();
  const json = JSON.parse(toLabJson({ config: CONFIG, runs, link: '#a' }));
  assert.equal(json.format, LAB_FORMAT);
  assert.equal(json.version, 1);
  assert.equal(json.link, '#a');
  assert.deepEqual(json.config, CONFIG);
  for (const [i, r] of runs.entries()) {
    const j = json.runs[i];
    assert.equal(j.arch, r.arch);
    assert.deepEqual(j.config, r.config);
    assert.equal(j.steps_done, 10);
    r.logs.forEach((l, q) => {
      for (const [k, v] of Object.entries(l))
        if (ArrayBuffer.isView(v)) assert.deepEqual(j.logs[q][k], Array.from(v), k);
        // a number that is not finite (the stream gains of a run without streams) is JSON's null
        else assert.ok(Object.is(j.logs[q][k], typeof v === 'number' && !Number.isFinite(v) ? null : v), k);
    });
    assert.equal(j.dwa_weights, null, 'no averaging weights for these presets');
    assert.equal(j.gates, null);
  }
});

test('the JSON holds what dwa, layerscale and rezero learned: the averaging weights and the gates, as the engine gave them', () => {
  const config = { ...CONFIG, arch: ['dwa', 'layerscale', 'rezero'] };
  const runs = config.arch.map((arch) => {
    const tr = rn.trainer({ ...config, arch });
    const logs = tr.step(config.steps);
    const run = { arch, config: tr.config, task: tr.task, logs, stepsDone: tr.stepsDone, stopped: tr.stopped };
    Object.assign(run, { firstNonfinite: null, dwaWeights: tr.dwaWeights(), gates: tr.gates() });
    tr.delete();
    return run;
  });
  const json = JSON.parse(toLabJson({ config, runs }));
  const [dwa, ls, rz] = json.runs;
  assert.deepEqual(
    dwa.dwa_weights,
    runs[0].dwaWeights.map((row) => Array.from(row)),
  );
  assert.equal(dwa.dwa_weights.length, CONFIG.depth);
  assert.equal(dwa.gates, null);
  for (const [j, r] of [
    [ls, runs[1]],
    [rz, runs[2]],
  ]) {
    assert.equal(j.dwa_weights, null);
    assert.equal(j.gates.width, r.gates.width);
    assert.equal(j.gates.units, r.gates.units);
    assert.deepEqual(j.gates.init, Array.from(r.gates.init));
    assert.deepEqual(j.gates.magnitude, Array.from(r.gates.magnitude));
    assert.deepEqual(
      j.gates.values,
      r.gates.values.map((v) => Array.from(v)),
    );
  }
  assert.equal(ls.gates.width, CONFIG.width);
  assert.equal(rz.gates.width, 1);
});

test('the SVG draws every heatmap cell with its value, the legends with ticks, and escapes its text', () => {
  const runs = [...runsOf(), brokenRun()].slice(0, 2);
  runs[1] = { ...brokenRun(), arch: 'pre_ln' };
  const config = { ...CONFIG, steps: 10 };
  const svg = labToSvg({ config, runs, pal: PAL, caption: '<script>alert(1)</script> & "x"' });
  assert.ok(svg.startsWith('<?xml'));
  assert.ok(!svg.includes('<script>'));
  assert.ok(svg.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;'));
  for (const metric of ['grad_norm', 'update_ratio'])
    for (const r of runs) {
      const g = new RegExp(`<g class="heatmap heatmap-${metric}" data-arch="${r.arch}">([\\s\\S]*?)</g>`).exec(svg)[1];
      const cells = [...g.matchAll(/data-step="(\d+)" data-row="(\d+)" data-v="([^"]+)"/g)];
      const rows = metric === 'grad_norm' ? 3 : 2;
      assert.equal(cells.length, r.logs.length * rows, `${r.arch} ${metric}`);
      for (const [, step, row, v] of cells) {
        const l = r.logs.find((x) => x.step === Number(step));
        const want = l[metric][Number(row) - (metric === 'update_ratio' ? 1 : 0)];
        assert.equal(v, want === undefined ? 'none' : numberText(want), `${r.arch} ${metric} ${step}/${row}`);
      }
    }
  assert.match(svg, /fill="url\(#hatch\)" data-step="3"/);
  assert.ok((svg.match(/class="heat-tick"/g) ?? []).length >= 4, 'legend ticks');
  assert.ok(svg.includes('not finite (diverged)') && svg.includes('exactly 0') && svg.includes('not run (yet)'));
  assert.ok(svg.includes('diverged at step 3'));
  // a series per run per loss line, per run for the gradient norm, and per run for the learning rate:
  // the engine's schedule and the broken run's 0.5 differ, so neither is drawn for the other; and the
  // largest logit of the engine's run (transformer blocks; the broken run has no config: it logs none)
  assert.equal((svg.match(/data-series="1"/g) ?? []).length, 3 * 2 + 2 + 1);
  const logitChart = svg.slice(svg.indexOf('<g class="chart chart-logit">'), svg.indexOf('class="heat-tick"'));
  assert.deepEqual(
    [...logitChart.matchAll(/data-series="1" data-run="(\w+)"/g)].map((m) => m[1]),
    ['post_ln'],
  );
  assert.ok(!svg.includes('chart-gain'), 'no run mixes streams: no gain chart');
  const lrChart = svg.slice(svg.indexOf('<g class="chart chart-lr">'), svg.indexOf('<g class="chart chart-logit">'));
  assert.deepEqual(
    [...lrChart.matchAll(/data-series="1" data-run="(\w+)"/g)].map((m) => m[1]),
    ['post_ln', 'pre_ln'],
  );
  // the broken run diverged at step 3 of 10: its maps are dotted from there, and the legend says what that is
  assert.ok(svg.includes('after the run stopped'));
  assert.match(svg, /<g class="heatmap heatmap-grad_norm" data-arch="pre_ln">[^]*?class="heat-stopped" x="[\d.]+"/);
});

/** A run of logs at steps 10, 20, 30 with rates `lrs`, and what else it says of itself. */
const scheduled = (lrs, extra) => ({
  config: { depth: 1 },
  task: { chance: 2, optimal: 0 },
  firstNonfinite: null,
  trainedAt: null,
  logs: lrs.map((lr, i) => ({
    step: 10 * (i + 1),
    lr,
    train_loss: 1,
    heldout_loss: 1,
    heldout_accuracy: 0.5,
    grad_norm_global: 1,
    first_nonfinite: null,
    grad_norm: Float64Array.from([1, 1]),
    update_ratio: Float64Array.from([0.1]),
  })),
  ...extra,
});

test('the SVG\u2019s learning rate: one line while the runs share a schedule, else each run\u2019s own in its look', () => {
  const config = { ...CONFIG, steps: 40, depth: 1 };
  const pal = { ...PAL, arch: { ...PAL.arch, post_ln: '#aa0000' } };
  const lrPart = (svg) => svg.slice(svg.indexOf('<g class="chart chart-lr">'), svg.indexOf('class="heat-tick"'));
  const same = labToSvg({
    config,
    runs: [scheduled([0.01, 0.01, 0.01], { arch: 'post_ln' }), scheduled([0.01, 0.01, 0.01], { arch: 'pre_ln' })],
    pal,
  });
  assert.equal((lrPart(same).match(/data-series="1"/g) ?? []).length, 1);
  // the Warmup preset's shape: two runs of one architecture, one warming up, one stopped once trained
  const runs = [
    scheduled([0.012, 0.012, 0.012], { arch: 'post_ln', key: 'post_ln', label: 'Post-LN' }),
    scheduled([0.0006, 0.0012], {
      arch: 'post_ln',
      key: 'post_ln_warmup',
      label: 'Post-LN, 200 warmup steps',
      dash: [6, 4],
      trainedAt: 20,
    }),
  ];
  const svg = labToSvg({ config, runs, pal });
  const lr = lrPart(svg);
  const lines = [
    ...lr.matchAll(/<g data-series="1" data-run="(\w+)">\n<path d="([^"]+)" fill="none" stroke="([^"]+)"([^>]*)>/g),
  ];
  assert.deepEqual(
    lines.map((m) => [m[1], m[3]]),
    [
      ['post_ln', '#aa0000'],
      ['post_ln_warmup', '#aa0000'],
    ],
  );
  assert.match(lines[1][4], /stroke-dasharray="6 4"/, 'the run\u2019s own dash');
  // each path has its run's points: three for the flat schedule, two climbing for the warmup
  const ys = (d) => [...d.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]));
  assert.equal(ys(lines[0][2]).length, 3);
  assert.equal(new Set(ys(lines[0][2])).size, 1);
  const warm = ys(lines[1][2]);
  assert.equal(warm.length, 2);
  assert.ok(warm[1] < warm[0], `the warmup rate climbs (smaller y is higher): ${warm}`);
  // its maps are named with how it ended and dotted after step 20; the legend names both runs by label
  assert.ok(svg.includes('Post-LN, 200 warmup steps \u00b7 stopped at step 20 (trained)'));
  assert.match(svg, /<g class="heatmap heatmap-grad_norm" data-arch="post_ln_warmup">[^]*?class="heat-stopped"/);
  assert.doesNotMatch(
    svg.slice(svg.indexOf('data-arch="post_ln">'), svg.indexOf('data-arch="post_ln_warmup">')),
    /heat-stopped/,
  );
  assert.ok(svg.includes('>Post-LN, 200 warmup steps</text>'));
});

test('file names say the task, depth, seed and the last logged step', () => {
  assert.equal(labFileBase(CONFIG, runsOf()), 'resnorm-train-copy-d2-s0-step10');
  assert.equal(labFileBase(CONFIG, []), 'resnorm-train-copy-d2-s0-step0');
});
