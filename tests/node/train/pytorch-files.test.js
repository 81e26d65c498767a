// The lab's PyTorch files without a browser: which settings one script can hold
// (pytorch-export.js: every claim's runs, one config or the fields they differ in), the file's
// name, the lab's words for the exporter's refusals, and the reading of a run's --json lines
// (pytorch-run.js) from the CLI, with each kind of damaged or foreign file refused by name.
// Run: node --test tests/node/train/pytorch-files.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { CLAIMS, claimConfig } from '../../../web/src/claims/lab/index.js';
import { defaultTrainConfig } from '../../../web/src/shared/train-fields.js';
import { pytorchConfig, pytorchFileName, pytorchRefusal } from '../../../web/src/train/pytorch-export.js';
import { decodeTrainJson } from '../../../web/src/train/pytorch-run.js';
import { ModelFileError } from '../../../web/src/train/model-file.js';
import { cliTrain } from '../helpers.js';
import { tinyConfig } from '../train/tiny.js';
import { EngineError } from '../../../wasm/engine-error.js';

test('one script holds the settings with every architecture; a claim whose runs differ names the fields', () => {
  const config = tinyConfig({ arch: ['pre_ln', 'rezero'] });
  const one = pytorchConfig(config);
  assert.deepEqual(one.differ, []);
  assert.deepEqual(one.config, config);
  assert.equal(pytorchFileName(one.config), 'resnorm-pre_ln-rezero.py');
  assert.equal(pytorchFileName(one.config, 'lesion'), 'resnorm-lesion.py');
  const differ = Object.fromEntries(
    CLAIMS.map((c) => [c.id, pytorchConfig(claimConfig(c, defaultTrainConfig()), c.runs).differ]),
  );
  assert.deepEqual(differ.lesion, []);
  assert.deepEqual(differ.rezero, []);
  assert.deepEqual(differ.warmup, ['warmup']);
  assert.ok(differ.batchnorm.includes('norm'));
});

test('the exporter\u2019s refusals in the lab\u2019s words', () => {
  const size = pytorchRefusal(
    new EngineError(
      'range',
      'steps',
      'the PyTorch script would hold 30.0 MB (...), over its 20 MB limit: lower --steps or --batch',
    ),
  );
  assert.equal(
    size,
    'the PyTorch script would hold 30.0 MB (...), over its 20 MB limit. Lower Steps or Batch B to export',
  );
  assert.equal(
    pytorchRefusal(new EngineError('range', 'arch', 'x has no PyTorch export')),
    'arch: x has no PyTorch export',
  );
});

test('a run\u2019s --json lines read back as the lab\u2019s runs; damaged and foreign files are named', () => {
  const config = { ...tinyConfig(), steps: 6, log_every: 2 };
  const { logs, summary } = cliTrain(config);
  const text = `${[...logs.post_ln, ...logs.pre_ln, summary].map((l) => JSON.stringify(l)).join('\n')}\n`;
  const file = decodeTrainJson(text);
  assert.deepEqual(file.config, summary.config);
  assert.deepEqual(
    file.runs.map((r) => [r.key, r.label, r.source, r.logs.map((l) => l.step), r.stepsDone]),
    [
      ['pytorch-post_ln', 'Post-LN \u00b7 PyTorch', 'PyTorch', [2, 4, 6], 6],
      ['pytorch-pre_ln', 'Pre-LN \u00b7 PyTorch', 'PyTorch', [2, 4, 6], 6],
    ],
  );
  assert.deepEqual(
    file.runs[0].logs.map((l) => l.heldout_loss),
    logs.post_ln.map((l) => l.heldout_loss),
  );
  const refused = (body, words) =>
    assert.throws(
      () => decodeTrainJson(body),
      (e) => e instanceof ModelFileError && e.field === 'file' && words.test(e.message),
    );
  const lines = text.trim().split('\n');
  refused('', /^the file is empty$/);
  refused('\u0089PNG\r\n', /^it is not the JSON lines of a training run/);
  refused(JSON.stringify({ format: 'resnorm-train-export' }, null, 1), /^it is not the JSON lines/);
  refused(lines.slice(0, -1).join('\n'), /^it ends before its summary line/);
  refused([lines[0], lines[1].slice(0, 30), ...lines.slice(2)].join('\n'), /^line 2 is not JSON: the file is damaged$/);
  refused([lines[1], lines[0], ...lines.slice(2)].join('\n'), /^post_ln: step 2 comes after step 4$/);
  refused(
    lines.map((l, i) => (i === 0 ? l.replace(/"step":\s*2/, '"step": 99') : l)).join('\n'),
    /^line 1: step 99 is not 1\.\.6$/,
  );
  refused(
    lines.map((l, i) => (i === 0 ? l.replace(/"arch":\s*"post_ln"/, '"arch": "gpt9"') : l)).join('\n'),
    /^line 1 is not a logged step of the run\u2019s architectures$/,
  );
  refused(
    lines.map((l, i) => (i === 0 ? l.replace(/"train_loss":\s*[^,]+/, '"train_loss": "1"') : l)).join('\n'),
    /^line 1: train_loss is not a number/,
  );
});

test('a BatchNorm run\u2019s --json lines read back with its BatchNorm numbers', () => {
  const config = { ...tinyConfig(), steps: 4, log_every: 2, norm: 'batchnorm', bn_pads: 'count' };
  const { logs, summary } = cliTrain(config);
  const text = `${[...logs.post_ln, ...logs.pre_ln, summary].map((l) => JSON.stringify(l)).join('\n')}\n`;
  const file = decodeTrainJson(text);
  assert.equal(file.config.norm, 'batchnorm');
  assert.equal(file.config.bn_pads, 'count');
  for (const [i, arch] of ['post_ln', 'pre_ln'].entries()) {
    const run = file.runs[i];
    assert.equal(run.key, `pytorch-${arch}`);
    assert.deepEqual(
      run.logs.map((l) => l.step),
      [2, 4],
    );
    for (const k of ['bn_mean_distance', 'bn_var_distance', 'heldout_loss_train_mode', 'heldout_loss_one_seq'])
      assert.deepEqual(
        run.logs.map((l) => l[k]),
        logs[arch].map((l) => l[k]),
        `${arch}: ${k} as the file has it`,
      );
    // one distance per BatchNorm layer: Post-LN's norm after each of its 2 x 2 units, Pre-LN's before each and its final norm
    assert.equal(run.logs[0].bn_mean_distance.length, arch === 'post_ln' ? 4 : 5);
  }
});
