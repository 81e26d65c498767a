// The training lab's "PyTorch script" export in Debian's Chromium under the site's CSP: before
// any step the button downloads resnorm-<archs>.py (resnorm-<claim>.py for a claim's runs), the
// engine's exporter's text for the lab's settings (byte for byte the JS API's rn.exportPytorch of
// the page's config, which wasm-export.test.js ties to the CLI's), embedding the lab's config; the
// file compiles with /usr/bin/python3 -m py_compile. BatchNorm settings export too: the script,
// run with Debian's PyTorch, writes JSON lines that load back into the lab beside its runs. A claim
// whose runs differ in more than the architecture (Warmup) is one script of its settings' groups, the
// JS API's for the lab's groups; run in Python its lines load back, each run drawn under its label. "PyTorch run…"
// loads the JSON lines such a script writes with --json (here the CLI's `resnorm train --json`,
// the same lines): each run drawn in the line charts beside the lab's, its readout row labelled
// "<architecture> · PyTorch" with the file's numbers; a damaged, truncated or foreign file is
// refused by name and what is drawn is kept. Screenshots in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHOTS, SITE_CSP, downloadBytes, openPage, served, useBrowser } from './harness.js';
import { trainFromHash } from '../../web/src/train/link.js';
import { TINY, tiny } from '../node/train/tiny.js';
import { CLI, PYTHON } from '../node/helpers.js';
import { requireTorch } from '../node/pytorch/torch.js';
import { CLAIM_BY_ID, claimConfig } from '../../web/src/claims/lab/index.js';
import { defaultTrainConfig, engineSettings } from '../../web/src/shared/train-fields.js';
import { pytorchGroups } from '../../web/src/train/pytorch-export.js';

const it = useBrowser({ wasm: true });
const tmp = mkdtempSync(join(tmpdir(), 'resnorm-lab-pytorch-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const lab = (url, hash) => `${url}train.html#${hash}`;

/** The RUN document the script embeds (export_pytorch.h). */
function embedded(text) {
  const m = /^RUN = json\.loads\(r'''(.*)'''\)$/m.exec(text);
  assert.ok(m, 'the script embeds RUN');
  return JSON.parse(m[1]);
}

test('the PyTorch script: the lab\u2019s settings before any step, the exporter\u2019s text, valid Python', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = tiny({ steps: 12, depth: 3, seed: 7 });
    const page = await openPage(it.browser, lab(url, hash));
    // the settings the link gives the page's form
    const { config } = trainFromHash(`#${hash}`);
    assert.equal(config.depth, 3);
    assert.equal(await page.getAttribute('#train-export-pytorch', 'aria-disabled'), null);
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-export-pytorch')]);
    assert.equal(d.suggestedFilename(), 'resnorm-post_ln-pre_ln.py');
    const text = (await downloadBytes(d)).toString('utf8');
    assert.equal(
      text,
      it.rn.exportPytorch(engineSettings(config)),
      'the download is the exporter\u2019s script of the page\u2019s config',
    );
    const run = embedded(text);
    assert.deepEqual(
      run.runs.map((r) => r.arch),
      ['post_ln', 'pre_ln'],
    );
    for (const k of ['task', 'depth', 'width', 'seq', 'vocab', 'batch', 'steps', 'seed', 'lr'])
      assert.equal(run.config[k], config[k], `the script's ${k}`);
    const file = join(tmp, d.suggestedFilename());
    writeFileSync(file, text);
    const py = spawnSync(PYTHON, ['-m', 'py_compile', file], { encoding: 'utf8' });
    assert.equal(py.status, 0, `py_compile: ${py.stderr}`);
    assert.match(await page.locator('.lab-tools-status').textContent(), /^Saved resnorm-post_ln-pre_ln\.py \(\d+ kB\)/);
    await page.screenshot({ path: `${SHOTS}/train-pytorch.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a claim whose runs share their settings is one script named for the claim', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=lesion'));
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-export-pytorch')]);
    assert.equal(d.suggestedFilename(), 'resnorm-lesion.py');
    const run = embedded((await downloadBytes(d)).toString('utf8'));
    assert.deepEqual(
      run.runs.map((r) => r.arch),
      ['plain', 'pre_ln'],
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('BatchNorm settings: the exporter\u2019s script, trained by PyTorch, loads back beside the lab\u2019s runs', () =>
  served({ csp: SITE_CSP }, async (url) => {
    requireTorch();
    const hash = tiny({ steps: 12, log_every: 4, norm: 'batchnorm', bn_pads: 'count' });
    const page = await openPage(it.browser, lab(url, hash));
    const { config } = trainFromHash(`#${hash}`);
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-export-pytorch')]);
    assert.equal(d.suggestedFilename(), 'resnorm-post_ln-pre_ln.py');
    const text = (await downloadBytes(d)).toString('utf8');
    assert.equal(
      text,
      it.rn.exportPytorch(engineSettings(config)),
      'the download is the exporter\u2019s script of the page\u2019s config',
    );
    const run = embedded(text);
    assert.equal(run.config.norm, 'batchnorm');
    assert.equal(run.config.bn_pads, 'count');
    assert.equal(await page.locator('.lab-tools-error').isHidden(), true);
    assert.match(await page.locator('.lab-tools-status').textContent(), /^Saved resnorm-post_ln-pre_ln\.py \(\d+ kB\)/);
    // the script trains both runs with BatchNorm (one distance per BatchNorm layer), and its lines load back
    const file = join(tmp, 'batchnorm.py');
    writeFileSync(file, text);
    const py = spawnSync(PYTHON, [file, '--json'], { encoding: 'utf8' });
    assert.equal(py.status, 0, `the BatchNorm script failed: ${py.stderr}`);
    const lines = py.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const l of lines.slice(0, -1)) {
      assert.equal(
        l.bn_mean_distance.length,
        l.arch === 'post_ln' ? 4 : 5,
        `${l.arch} step ${l.step}: BatchNorm layers`,
      );
      assert.notEqual(l.heldout_loss_train_mode, l.heldout_loss_one_seq, `${l.arch} step ${l.step}: the modes agree`);
    }
    const json = join(tmp, 'batchnorm.json');
    writeFileSync(json, py.stdout);
    await page.setInputFiles('#train-run-file', json);
    await page.waitForFunction(() => (window.__resnormTrain?.loaded ?? []).length === 2);
    assert.match(await page.locator('tr[data-arch="pytorch-pre_ln"] th').textContent(), /^Pre-LN \u00b7 PyTorch/);
    const plotted = await page.evaluate(() => window.__resnormTrain.plotted.loss.raw);
    for (const arch of ['post_ln', 'pre_ln']) {
      const want = lines.filter((l) => l.arch === arch).map((l) => l.heldout_loss);
      assert.ok(
        plotted.some((series) => JSON.stringify(series) === JSON.stringify(want)),
        `${arch}: the loss chart plots the script's held-out losses ${want}`,
      );
    }
    await page.screenshot({ path: `${SHOTS}/train-pytorch-batchnorm.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a claim whose runs differ in more than the architecture: one script, run in Python, drawn under the runs\u2019 labels', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=warmup'));
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-export-pytorch')]);
    assert.equal(d.suggestedFilename(), 'resnorm-warmup.py');
    const text = (await downloadBytes(d)).toString('utf8');
    const claim = CLAIM_BY_ID.warmup;
    const groups = pytorchGroups(claimConfig(claim, defaultTrainConfig()), claim.runs);
    assert.equal(
      text,
      it.rn.exportPytorch(groups),
      'the download is the JS API\u2019s script of the claim\u2019s groups',
    );
    const run = embedded(text);
    assert.equal(run.format, 'resnorm-pytorch-runs');
    assert.deepEqual(
      run.groups.map((g) => [g.config.warmup, g.runs.map((r) => `${r.key}: ${r.label}`)]),
      [
        [0, ['post_ln: Post-LN, no warmup', 'pre_ln: Pre-LN, no warmup']],
        [200, ['post_ln_warmup: Post-LN, warmup 200']],
      ],
    );
    // the script trains each setting in turn (20 of its 300 steps here), every line under its run's key
    const file = join(tmp, d.suggestedFilename());
    writeFileSync(file, text);
    const py = spawnSync(PYTHON, [file, '--json', '--steps', '20'], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    assert.equal(py.status, 0, `the claim's script failed:\n${py.stderr}`);
    const lines = py.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const json = join(tmp, 'resnorm-warmup.json');
    writeFileSync(json, py.stdout);
    await page.setInputFiles('#train-run-file', json);
    await page.waitForFunction(() => (window.__resnormTrain?.loaded ?? []).length === 3);
    const labels = {
      post_ln: 'Post-LN, no warmup',
      pre_ln: 'Pre-LN, no warmup',
      post_ln_warmup: 'Post-LN, warmup 200',
    };
    for (const [key, label] of Object.entries(labels))
      assert.ok(
        (await page.locator(`tr[data-arch="pytorch-${key}"] th`).textContent()).startsWith(`${label} \u00b7 PyTorch`),
        `${key}: its readout row`,
      );
    const h = await page.evaluate(() => ({
      loaded: window.__resnormTrain.loaded,
      plotted: window.__resnormTrain.plotted,
    }));
    assert.deepEqual(
      h.loaded.map((r) => `${r.key} ${r.label}`),
      Object.entries(labels).map(([k, l]) => `pytorch-${k} ${l} \u00b7 PyTorch`),
    );
    for (const key of Object.keys(labels)) {
      const want = lines.filter((l) => l.key === key && l.step !== undefined).map((l) => l.heldout_loss);
      assert.equal(want.length, 2, `${key}: steps 10 and 20`);
      assert.ok(
        h.plotted.loss.raw.some((series) => JSON.stringify(series) === JSON.stringify(want)),
        `${key}: the loss chart plots the file's held-out losses ${want}`,
      );
    }
    assert.match(
      await page.locator('.lab-tools-status').textContent(),
      /^Loaded resnorm-warmup\.json: Post-LN, no warmup \u00b7 PyTorch to step 20, Pre-LN, no warmup \u00b7 PyTorch to step 20, Post-LN, warmup 200 \u00b7 PyTorch to step 20, drawn beside the lab\u2019s runs \(the lab\u2019s settings\)$/,
    );
    await page.screenshot({ path: `${SHOTS}/train-pytorch-claim.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

/** `resnorm train --json` of the tiny run with `over`: the file's text and its parsed lines. */
function cliJson(over) {
  const cfg = { ...TINY, ...over };
  const args = Object.entries(cfg).flatMap(([k, v]) => [`--${k.replace(/_/g, '-')}`, String(v)]);
  const text = execFileSync(CLI, ['train', '--json', ...args], { encoding: 'utf8' });
  return {
    text,
    lines: text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  };
}

test('a run\u2019s JSON loads back: drawn beside the lab\u2019s runs, labelled PyTorch; a damaged file is named', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, tiny({ steps: 12 })));
    const { text, lines } = cliJson({ steps: 12, log_every: 4, arch: 'post_ln,pre_ln', seed: 3 });
    const file = join(tmp, 'run.json');
    writeFileSync(file, text);
    await page.setInputFiles('#train-run-file', file);
    const row = page.locator('tr[data-arch="pytorch-post_ln"]');
    await row.waitFor();
    assert.match(await row.locator('th').textContent(), /^Post-LN \u00b7 PyTorch/);
    assert.match(await page.locator('tr[data-arch="pytorch-pre_ln"] th').textContent(), /^Pre-LN \u00b7 PyTorch/);
    assert.match(
      await page.locator('.lab-tools-status').textContent(),
      /^Loaded run\.json: Post-LN \u00b7 PyTorch to step 12, Pre-LN \u00b7 PyTorch to step 12, drawn beside the lab\u2019s runs \(its settings differ from the lab\u2019s in seed, log_every\)$/,
    );
    // the hook: the loaded runs by their labels, and the loss chart plots the file's held-out losses
    await page.waitForFunction(() => (window.__resnormTrain?.loaded ?? []).length === 2);
    const h = await page.evaluate(() => ({
      loaded: window.__resnormTrain.loaded,
      plotted: window.__resnormTrain.plotted,
    }));
    assert.deepEqual(
      h.loaded.map((r) => `${r.key} ${r.label} ${r.source}`),
      ['pytorch-post_ln Post-LN \u00b7 PyTorch PyTorch', 'pytorch-pre_ln Pre-LN \u00b7 PyTorch PyTorch'],
    );
    for (const arch of ['post_ln', 'pre_ln']) {
      const want = lines.filter((l) => l.arch === arch).map((l) => l.heldout_loss);
      assert.deepEqual(h.plotted.loss.x, [4, 8, 12]);
      assert.ok(
        h.plotted.loss.raw.some((series) => JSON.stringify(series) === JSON.stringify(want)),
        `${arch}: the loss chart plots the file's held-out losses ${want}`,
      );
    }
    await page.screenshot({ path: `${SHOTS}/train-pytorch-loaded.png`, fullPage: false });

    // damaged, truncated and foreign files: named, and the loaded runs stay drawn
    const problem = page.locator('.lab-tools-error');
    const refusal = async (name, body, words) => {
      const f = join(tmp, name);
      writeFileSync(f, body);
      await page.setInputFiles('#train-run-file', f);
      await page.waitForFunction((n) => document.querySelector('.lab-tools-error').textContent.includes(n), name);
      assert.match(await problem.textContent(), words);
      assert.equal(await page.locator('tr[data-arch="pytorch-post_ln"]').count(), 1, `${name}: the loaded run stays`);
    };
    const cut = text.split('\n');
    await refusal(
      'damaged.json',
      [...cut.slice(0, 2), cut[2].slice(0, 40), ...cut.slice(3)].join('\n'),
      /^Not loaded: damaged\.json: line 3 is not JSON: the file is damaged\. What is drawn is kept\.$/,
    );
    await refusal(
      'truncated.json',
      cut.slice(0, -2).join('\n'),
      /^Not loaded: truncated\.json: it ends before its summary line: the file is truncated/,
    );
    await refusal(
      'foreign.json',
      JSON.stringify({ format: 'resnorm-train-export', runs: [] }, null, 1),
      /^Not loaded: foreign\.json: it is not the JSON lines of a training run/,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
