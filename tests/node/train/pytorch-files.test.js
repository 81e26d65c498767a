// The lab's PyTorch files without a browser: how a script holds the lab's runs (pytorch-export.js:
// every claim's runs grouped by their settings, each run under its key and label), the file's
// name, the lab's words for the exporter's refusals, and the reading of a run's --json lines
// (pytorch-run.js) from the CLI, with each kind of damaged or foreign file refused by name.
// Run: node --test tests/node/train/pytorch-files.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { CLAIMS, claimConfig } from '../../../web/src/claims/lab/index.js';
import { defaultTrainConfig } from '../../../web/src/shared/train-fields.js';
import { pytorchFileName, pytorchGroups, pytorchRefusal } from '../../../web/src/train/pytorch-export.js';
import { decodeTrainJson } from '../../../web/src/train/pytorch-run.js';
import { ModelFileError } from '../../../web/src/train/model-file.js';
import { cliTrain } from '../helpers.js';
import { tinyConfig } from '../train/tiny.js';
import { EngineError } from '../../../wasm/engine-error.js';

test('one group holds the settings with every architecture; a claim\u2019s runs are grouped by their settings', () => {
  const config = tinyConfig({ arch: ['pre_ln', 'rezero'] });
  const one = pytorchGroups(config);
  assert.deepEqual(one, [{ config, keys: ['pre_ln', 'rezero'], labels: ['Pre-LN', 'ReZero'] }]);
  assert.equal(pytorchFileName(one[0].config), 'resnorm-pre_ln-rezero.py');
  assert.equal(pytorchFileName(one[0].config, 'lesion'), 'resnorm-lesion.py');
  const groups = Object.fromEntries(
    CLAIMS.map((c) => [c.id, pytorchGroups(claimConfig(c, defaultTrainConfig()), c.runs)]),
  );
  const keys = (id) => groups[id].map((g) => g.keys);
  assert.deepEqual(keys('lesion'), [['plain', 'pre_ln']]);
  assert.deepEqual(keys('rezero'), [['plain', 'residual', 'rezero']]);
  assert.deepEqual(keys('warmup'), [['post_ln', 'pre_ln'], ['post_ln_warmup']]);
  assert.deepEqual(keys('depth'), [['post_ln_6'], ['post_ln', 'pre_ln', 'deepnorm', 'admin']]);
  assert.deepEqual(groups.warmup[1].labels, ['Post-LN, warmup 200']);
  assert.deepEqual(
    groups.warmup.map((g) => [g.config.arch, g.config.warmup]),
    [
      [['post_ln', 'pre_ln'], 0],
      [['post_ln'], 200],
    ],
  );
  // every claim's every run is in one group, under its key, with its own settings
  for (const c of CLAIMS) {
    assert.deepEqual(groups[c.id].flatMap((g) => g.keys).sort(), c.runs.map((r) => r.key).sort(), c.id);
    for (const g of groups[c.id])
      g.keys.forEach((k, i) => {
        const r = c.runs.find((x) => x.key === k);
        assert.equal(g.config.arch[i], r.arch, `${c.id} ${k}: its architecture`);
        for (const [f, v] of Object.entries(r.overrides ?? {})) assert.deepEqual(g.config[f], v, `${c.id} ${k}: ${f}`);
      });
  }
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

test('a script\u2019s lines of several settings read back under the runs\u2019 keys and labels; a missing setting is named', () => {
  const config = { ...tinyConfig(), steps: 4, log_every: 2 };
  const settings = [
    { config, keys: { post_ln: 'post_ln', pre_ln: 'pre_ln' }, labels: { post_ln: 'Post-LN', pre_ln: 'Pre-LN' } },
    {
      config: { ...config, arch: ['post_ln'], warmup: 2 },
      keys: { post_ln: 'post_ln_warmup' },
      labels: { post_ln: 'Post-LN, warmup 2' },
    },
  ];
  const parts = settings.map(({ config: c, keys, labels }, i) => {
    const { logs, summary } = cliTrain(c);
    const steps = c.arch.flatMap((a) => logs[a].map((l) => ({ key: keys[a], ...l })));
    return [...steps, { ...summary, keys, labels, group: i, groups: settings.length }];
  });
  const text = `${parts
    .flat()
    .map((l) => JSON.stringify(l))
    .join('\n')}\n`;
  const file = decodeTrainJson(text);
  assert.deepEqual(
    file.runs.map((r) => [r.key, r.arch, r.label, r.logs.map((l) => l.step)]),
    [
      ['pytorch-post_ln', 'post_ln', 'Post-LN \u00b7 PyTorch', [2, 4]],
      ['pytorch-pre_ln', 'pre_ln', 'Pre-LN \u00b7 PyTorch', [2, 4]],
      ['pytorch-post_ln_warmup', 'post_ln', 'Post-LN, warmup 2 \u00b7 PyTorch', [2, 4]],
    ],
  );
  assert.deepEqual(
    file.configs.map((c) => c.warmup),
    [0, 2],
  );
  assert.deepEqual(
    file.runs[2].logs.map((l) => l.heldout_loss),
    parts[1].slice(0, -1).map((l) => l.heldout_loss),
  );
  const refused = (body, words) =>
    assert.throws(
      () => decodeTrainJson(body),
      (e) => e instanceof ModelFileError && words.test(e.message),
    );
  const first = parts[0].map((l) => JSON.stringify(l)).join('\n');
  refused(first, /^it ends after 1 of its 2 settings: the file is truncated/);
  refused(
    text.replace('"key":"post_ln_warmup"', '"key":"post_ln"'),
    /^line \d+ is not a logged step of the run\u2019s architectures$/,
  );
});
