// The training lab's claims (web/src/claims/lab/) in Debian's
// Chromium under the site's CSP: each claim, chosen by its button, trains
// its runs in the page; the verdict the page shows equals the one claims/lab/
// computes on the same runs through `resnorm train --json`, and so do the
// caption and its numbers (to 1e-4 relative); the after-training charts hold
// exactly the engine's lesion arrays; the Late layers claim's DenseFormer
// weights are those the papers page's DenseFormer panel trains, and the
// ReZero claim's losses, the Late layers' gradient spreads, LayerScale's
// lesion and gates those of the ReZero, Mix-LN and LayerScale panels; a preset is a
// link (#preset=...), which the address bar keeps; no console message. Prints how long each preset took
// in the page. Screenshots in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, openPage, served, useBrowser } from './harness.js';
import { cliTrain } from '../node/helpers.js';
import { CLAIMS, runConfigs, fromCli, verdict } from '../../web/src/claims/lab/index.js';
import { reproduce } from '../../web/src/engine/experiments.js';
import { summarize } from '../../web/src/papers/repro.js';

const it = useBrowser({ wasm: true });

/** Every run of a preset through the CLI, keyed by the preset's run keys (fromCli's runs). */
function cliRuns(preset, config) {
  const runs = {};
  runConfigs(preset, config).forEach((c, i) => {
    const out = cliTrain(c);
    runs[preset.runs[i].key] = fromCli([...Object.values(out.logs).flat(), out.summary], c.arch, {
      key: preset.runs[i].key,
      stopWhenTrained: preset.runs[i].stopWhenTrained,
    });
  });
  return runs;
}

/** |a - b| / |b| (0 when equal; both non-finite count as equal). */
const rel = (a, b) => (a === b || (!Number.isFinite(a) && !Number.isFinite(b)) ? 0 : Math.abs(a - b) / Math.abs(b));

/** The page's hook after a preset: the verdict shown, the runs' configs, the lesions drawn (arrays as plain arrays). */
const shown = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
    const lesion = (l) => l && Object.fromEntries(Object.entries(l).map(([k, v]) => [k, plain(v)]));
    return {
      state: h.state,
      preset: h.preset,
      verdict: h.verdict,
      config: h.config,
      runs: Object.fromEntries(
        Object.entries(h.runs).map(([k, r]) => [k, { config: r.config, lesion: lesion(r.lesion) }]),
      ),
      lesions: h.lesions && Object.fromEntries(Object.entries(h.lesions).map(([k, l]) => [k, lesion(l)])),
      lesionPlot: h.lesionPlot,
      badge: document.querySelector('#train-paper .verdict-badge')?.textContent ?? null,
      caption: document.querySelector('#train-paper-caption')?.textContent ?? null,
      depth: [...document.querySelectorAll('#train-after-depth li')].map((li) => li.textContent),
      hash: location.hash,
    };
  });

test('each claim trains in the page to the verdict, caption and lesions of the CLI on the same runs', async () => {
  await served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}train.html`);
    const times = {};
    const cliRunsOf = new Map();
    for (const preset of CLAIMS) {
      await page.click(`#train-presets [data-preset="${preset.id}"]`);
      await page.waitForFunction((id) => window.__resnormTrain?.preset === id, preset.id);
      // one seed each, the CLI's one run (the seeds' count and spread: train-truth.test.js)
      await page.fill('#train-seeds', '1');
      await page.waitForFunction(() => location.hash.includes('seeds=1'));
      const t0 = Date.now();
      await page.click('#train-start');
      await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.verdict);
      times[preset.id] = (Date.now() - t0) / 1000;
      const h = await shown(page);
      assert.equal(h.preset, preset.id);
      // the link names the preset and the one seed only: its other settings are the preset's
      await page.waitForFunction((id) => location.hash === `#preset=${id}&seeds=1`, preset.id);

      cliRunsOf.set(preset.id, cliRuns(preset, h.config));
      const want = verdict(preset.id, cliRunsOf.get(preset.id));
      assert.ok(want, `${preset.id}: the CLI's runs give a verdict`);
      assert.equal(h.verdict.holds, want.holds, `${preset.id}: page ${h.verdict.holds}, CLI ${want.holds}`);
      assert.deepEqual(
        h.verdict.checks.map((c) => c.holds),
        want.checks.map((c) => c.holds),
        `${preset.id}: each check`,
      );
      assert.equal(h.badge, want.holds ? 'holds' : 'does not hold here');
      assert.equal(h.caption, want.caption, `${preset.id}: the caption`);
      assert.deepEqual(Object.keys(h.verdict.numbers), Object.keys(want.numbers));
      for (const [k, v] of Object.entries(want.numbers))
        assert.ok(rel(h.verdict.numbers[k], v) <= 1e-4, `${preset.id} ${k}: page ${h.verdict.numbers[k]}, CLI ${v}`);
      // every run of the preset with its own overrides, as the CLI ran it
      runConfigs(preset, h.config).forEach((c, i) => {
        const r = h.runs[preset.runs[i].key];
        for (const k of ['arch', 'depth', 'warmup', 'steps', 'lr', 'seed']) assert.equal(r.config[k], c[k], `${k}`);
      });
      // the after-training charts draw the engine's lesion arrays, for every run
      assert.deepEqual(Object.keys(h.lesions).sort(), preset.runs.map((r) => r.key).sort());
      const cli = cliRunsOf.get(preset.id);
      const log10 = (v) => (v > 0 && Number.isFinite(v) ? Math.log10(v) : null);
      for (const r of preset.runs) {
        const l = h.runs[r.key].lesion;
        assert.deepEqual(h.lesions[r.key], l, `${r.key}: lesion drawn`);
        // the charts plot the engine's arrays (log10, to the last bits the two engines' log10 may part by; null where not drawn)
        const plot = h.lesionPlot;
        const same = (drawn, values, what) =>
          values.forEach((v, i) => {
            const want = log10(v);
            const got = drawn[i];
            assert.ok(
              want === null ? got === null : Math.abs(got - want) <= 1e-12,
              `${r.key} ${what}[${i}]: ${got}, ${want}`,
            );
          });
        same(plot.loss[r.key], l.loss, 'lesion chart');
        same(
          plot.relative[r.key],
          l.loss.map((v) => v / l.base),
          'relative chart',
        );
        same(plot.contribution[r.key], l.contribution, 'contribution chart');
        same(plot.contribution[`${r.key}:init`], l.contribution_init, 'contribution chart at init');
        // and those are the CLI's lesion of the same run (a run the session stopped once trained is lesioned there)
        if (r.stopWhenTrained) continue;
        const want = cli[r.key].lesion;
        assert.ok(rel(l.base, want.base) <= 1e-4, `${r.key} lesion base: page ${l.base}, CLI ${want.base}`);
        for (const k of ['loss', 'increase', 'relative', 'contribution', 'contribution_init'])
          l[k].forEach((v, i) =>
            assert.ok(rel(v, want[k][i]) <= 1e-4, `${r.key} lesion ${k}[${i}]: page ${v}, CLI ${want[k][i]}`),
          );
      }
      assert.equal(h.depth.length, preset.runs.length, 'one depth sentence per run');
      // the papers page's DenseFormer panel trains this run: the same weights, to the bit
      if (preset.id === 'late') {
        const weights = await page.evaluate(() =>
          window.__resnormTrain.learned.dwa.dwaWeights.map((r) => Array.from(r)),
        );
        const panel = reproduce(it.rn, 'dwa', { depth: h.config.depth, seed: h.config.seed });
        assert.deepEqual(weights, panel.data.trained.weights, 'the papers panel\u2019s weights');
        // the Mix-LN panel's spreads after training and the LayerScale panel's lesion and gates: the lab's, to the bit
        const mix = summarize('mixln', reproduce(it.rn, 'mixln')).facts.trainedSpread;
        for (const k of ['post_ln_warmup', 'pre_ln', 'mix_ln'])
          assert.equal(mix[k], h.verdict.numbers[`${k}.grad_spread`], `the Mix-LN panel\u2019s ${k} spread`);
        const ls = reproduce(it.rn, 'layerscale').data.trained.layerscale;
        const gates = await page.evaluate(() => Array.from(window.__resnormTrain.learned.layerscale.gates.magnitude));
        assert.deepEqual(Array.from(ls.gates.magnitude), gates, 'the LayerScale panel\u2019s gates');
        for (const k of ['contribution', 'contribution_init'])
          assert.deepEqual(Array.from(ls.lesion[k]), h.runs.layerscale.lesion[k], `the LayerScale panel\u2019s ${k}`);
      }
      // the papers page's ReZero panel trains this preset: the same held-out losses and the same checks
      if (preset.id === 'rezero') {
        const panel = summarize('rezero', reproduce(it.rn, 'rezero'));
        const row = (k) => panel.rows.find((r) => r.key === k).value;
        assert.equal(row('trained_rezero'), h.verdict.numbers['rezero.heldout']);
        assert.equal(row('trained_plain'), h.verdict.numbers['plain.heldout']);
        const residual = h.verdict.numbers['residual.heldout'];
        assert.equal(row('trained_residual'), Number.isFinite(residual) ? residual : Infinity);
        assert.deepEqual(
          panel.facts.lab.checks.map((c) => c.holds),
          h.verdict.checks.map((c) => c.holds),
        );
      }
      console.log(`# ${preset.id}: ${times[preset.id].toFixed(1)} s in the page, verdict ${h.badge}`);
      await page.screenshot({ path: `${SHOTS}/train-preset-${preset.id}.png`, fullPage: true });
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});

test('a claim\u2019s link opens the claim with its settings; changing the architectures leaves it', async () => {
  await served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}train.html#preset=warmup&seed=2`, {
      viewport: { width: 360, height: 780 },
      colorScheme: 'dark',
    });
    const h = await shown(page);
    assert.equal(h.preset, 'warmup');
    assert.equal(await page.getAttribute('[data-preset="warmup"]', 'aria-pressed'), 'true');
    const cfg = await page.evaluate(() => ({
      depth: document.querySelector('#train-depth').value,
      lr: document.querySelector('#train-lr').value,
      seed: document.querySelector('#train-seed').value,
    }));
    assert.deepEqual(cfg, { depth: '6', lr: '0.012', seed: '2' });
    assert.match(await page.textContent('#train-paper'), /Xiong/);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true);
    await page.screenshot({ path: `${SHOTS}/train-preset-link-360-dark.png`, fullPage: true });
    // adding an architecture is another comparison: the preset goes, and so does its name in the link
    await page.click('#settings-toggle');
    await page.check('#train-arch-plain');
    await page.waitForFunction(() => window.__resnormTrain?.preset === 'none');
    await page.waitForFunction(() => !location.hash.includes('preset='));
    assert.equal(await page.isHidden('#train-paper'), true);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
