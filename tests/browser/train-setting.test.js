// The lab's choice of a claim's setting (Quick, the module's own, or Deep, the paper's depth:
// web/src/claims/lab/setting.js) in Debian's Chromium under the site's CSP: each claim with a deep
// setting opened by its link (#claim=<id>&setting=deep; one of them by clicking the control
// instead) starts on one seed, and every run's first logged step is of the deep setting's config
// (its depth and its overrides), then Reset stops it (a deep run is never trained to its end
// here); the control names what Deep changes, computed from both settings' runs; a claim without
// a deep setting says why; the link round trip (the control writes `setting=deep`, a link read
// back opens it), hostile and unknown values named in a notice and read as quick; the model file
// keeps the setting, and a file without one loads as quick. Screenshots of the control at 360 px
// and on a desktop, light and dark, in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, downloadBytes, openPage, overlaps, served, useBrowser } from './harness.js';
import {
  CLAIMS,
  CLAIM_BY_ID,
  claimAt,
  claimConfig,
  deepChange,
  hasDeep,
  runConfigs,
} from '../../web/src/claims/lab/index.js';
import { defaultLabConfig } from '../../web/src/shared/train-fields.js';
import { MODEL_HEAD, MODEL_MAGIC, MODEL_VERSION, decodeModel, fnv1a32 } from '../../web/src/train/model-file.js';

const it = useBrowser();
const DEEP = CLAIMS.filter(hasDeep);
/** The claim whose deep setting is started by clicking the control rather than by its link. */
const CLICKED = 'warmup';
/**
 * The deep run whose first update leaves float's range (tests/node/train/claim-deep.test.js says
 * why): the page reports the step it diverged at instead of a finite loss.
 */
const FIRST_STEP_DIVERGES = new Set(['rezero.residual']);

/** The deep setting's run configs of claim `c`, keyed by run key, on one seed. */
const deepConfigs = (c) => {
  const deep = claimAt(c, 'deep');
  const configs = runConfigs(deep, { ...claimConfig(deep, defaultLabConfig()), seeds: 1 });
  return Object.fromEntries(deep.runs.map((r, i) => [r.key, configs[i]]));
};

/** The page's hook: the claim, its setting, the state and each run's config and logs' count. */
const hook = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    return {
      preset: h.preset,
      setting: h.setting,
      state: h.state,
      runs: Object.fromEntries(
        Object.entries(h.runs).map(([k, r]) => [
          k,
          { config: r.config, logs: r.logs.length, first: r.logs[0], firstNonfinite: r.firstNonfinite },
        ]),
      ),
    };
  });

/** One seed, then Start; waits until every run has its first logged step (the hook's logs). */
async function startOneSeed(page) {
  await page.fill('#train-seeds', '1');
  await page.waitForFunction(() => location.hash.includes('seeds=1'));
  await page.click('#train-start');
  await page.waitForFunction(() => {
    const h = window.__resnormTrain;
    const runs = Object.values(h?.runs ?? {});
    return runs.length > 0 && runs.every((r) => r.logs.length > 0);
  });
}

for (const c of DEEP)
  test(`${c.id}: the deep setting (${c.id === CLICKED ? 'by the control' : 'by its link'}) trains the deep runs' configs; Reset stops it`, () =>
    served({ csp: SITE_CSP }, async (url) => {
      const page =
        c.id === CLICKED
          ? await openPage(it.browser, `${url}train.html#claim=${c.id}`)
          : await openPage(it.browser, `${url}train.html#claim=${c.id}&setting=deep`);
      if (c.id === CLICKED) {
        assert.equal((await hook(page)).setting, 'quick', 'a claim opens at its quick setting');
        assert.equal(await page.isChecked('#train-setting-quick'), true);
        await page.check('#train-setting-deep');
      }
      await page.waitForFunction(() => window.__resnormTrain?.setting === 'deep');
      assert.equal(await page.isChecked('#train-setting-deep'), true);
      // what Deep changes, from the two settings' runs
      const change = await page.locator('#train-setting-change').textContent();
      assert.ok(change.includes(deepChange(c, defaultLabConfig())), change);
      const want = deepConfigs(c);
      assert.equal(await page.inputValue('#train-depth'), String(claimAt(c, 'deep').config.depth));
      await startOneSeed(page);
      const h = await hook(page);
      assert.equal(h.preset, c.id);
      assert.equal(h.setting, 'deep');
      assert.deepEqual(Object.keys(h.runs).sort(), Object.keys(want).sort());
      for (const [key, rc] of Object.entries(want)) {
        const run = h.runs[key];
        // the run's own config, as the engine made it: the deep setting's, field by field
        for (const [k, v] of Object.entries(rc))
          if (k in run.config) assert.deepEqual(run.config[k], v, `${c.id}.${key}.${k}`);
        assert.equal(run.config.depth, rc.depth, `${c.id}.${key}: depth`);
        if (FIRST_STEP_DIVERGES.has(`${c.id}.${key}`))
          assert.ok(
            Number.isInteger(run.firstNonfinite) && run.firstNonfinite >= 1,
            `${c.id}.${key}: its divergence reported (${run.firstNonfinite})`,
          );
        else {
          assert.ok(Number.isFinite(run.first.train_loss), `${c.id}.${key}: a finite training loss at its first log`);
          assert.equal(run.firstNonfinite, null, `${c.id}.${key}: every value finite at its first log`);
        }
      }
      // the setting goes into the link, which opens the same
      await page.waitForFunction(() => location.hash.includes('setting=deep'));
      await page.click('#train-reset');
      await page.waitForFunction(() => window.__resnormTrain?.state === 'idle');
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }));

test('the control and the link: Quick and Deep written and read back, a hashchange, a claim without a deep setting says why', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}train.html#preset=depth&setting=deep`);
    await page.waitForFunction(() => window.__resnormTrain?.setting === 'deep');
    assert.equal(await page.inputValue('#train-depth'), '48');
    // the claim's runs named at the deep depth
    assert.match(await page.locator('#train-paper .paper-setting').textContent(), /Post-LN, 48 blocks/);
    await page.check('#train-setting-quick');
    await page.waitForFunction(() => location.hash === '#preset=depth');
    assert.equal(await page.inputValue('#train-depth'), String(CLAIM_BY_ID.depth.config.depth));
    assert.equal((await hook(page)).setting, 'quick');
    await page.check('#train-setting-deep');
    await page.waitForFunction(() => location.hash === '#preset=depth&setting=deep');
    assert.equal(await page.inputValue('#train-depth'), '48');
    // a link pasted into the address bar
    await page.evaluate(() => {
      location.hash = '#preset=late&setting=deep';
    });
    await page.waitForFunction(
      () => window.__resnormTrain?.preset === 'late' && window.__resnormTrain.setting === 'deep',
    );
    assert.equal(await page.inputValue('#train-depth'), String(claimAt(CLAIM_BY_ID.late, 'deep').config.depth));
    // a claim's button opens it at the quick setting
    await page.click('#train-presets [data-preset="warmup"]');
    await page.waitForFunction(() => window.__resnormTrain?.preset === 'warmup');
    assert.equal((await hook(page)).setting, 'quick');
    assert.equal(await page.inputValue('#train-depth'), String(CLAIM_BY_ID.warmup.config.depth));
    // the verdict says where it was computed, from the runs' configs: Lesion's quick runs to their end
    // (a deep setting is never trained to its end here)
    await page.click('#train-presets [data-preset="lesion"]');
    await page.waitForFunction(() => window.__resnormTrain?.preset === 'lesion');
    await page.fill('#train-seeds', '1');
    await page.waitForFunction(() => location.hash.includes('seeds=1'));
    await page.click('#train-start');
    await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.verdict);
    const at = await page.locator('#train-paper-at').textContent();
    assert.equal(at, `Computed at the quick setting (${CLAIM_BY_ID.lesion.config.depth} blocks).`);
    assert.equal(await page.locator('#train-paper-at').getAttribute('data-setting'), 'quick');
    // Degradation: no choice, and why
    await page.click('#train-presets [data-preset="degradation"]');
    await page.waitForFunction(() => window.__resnormTrain?.preset === 'degradation');
    assert.equal(await page.locator('#train-setting').isVisible(), false);
    assert.match(await page.locator('#train-setting-change').textContent(), /No deep setting: .*20 and 56 blocks/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('hostile and unknown settings are named in a notice with the allowed values and read as quick', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const cases = [
      ['setting=%3Cscript%3Ealert(1)%3C%2Fscript%3E', /Claim setting \(setting\) .*<script>.*allowed quick, deep/],
      ['setting=deep2', /Claim setting \(setting\) \u201cdeep2\u201d: not one of the choices \(allowed quick, deep\)/],
      [
        'setting=deep&preset=degradation',
        /Claim setting \(setting\) \u201cdeep\u201d: the Degradation claim has no deep setting/,
      ],
    ];
    for (const [given, notice] of cases) {
      const claim = given.includes('preset=') ? '' : 'claim=depth&';
      const page = await openPage(it.browser, `${url}train.html#${claim}${given}`);
      page.on('dialog', (d) => page.problems.push(`dialog: ${d.message()}`));
      const text = await page.locator('#notice').textContent();
      assert.match(text, notice, text);
      assert.equal(await page.locator('#notice script').count(), 0);
      const h = await hook(page);
      assert.equal(h.setting, 'quick', given);
      assert.equal(await page.inputValue('#train-depth'), String(CLAIM_BY_ID[h.preset].config.depth));
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
  }));

/** `bytes` (a model file) with its header's claim and setting taken out: a file from before them. */
function withoutClaim(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const H = view.getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(MODEL_HEAD, MODEL_HEAD + H)));
  delete header.claim;
  delete header.setting;
  const head = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(MODEL_HEAD + head.length + bytes.length - MODEL_HEAD - H);
  const v = new DataView(out.buffer);
  out.set(MODEL_MAGIC, 0);
  v.setUint32(8, MODEL_VERSION, true);
  v.setUint32(12, head.length, true);
  v.setUint32(16, fnv1a32(head), true);
  out.set(head, MODEL_HEAD);
  out.set(bytes.subarray(MODEL_HEAD + H), MODEL_HEAD + head.length);
  return out;
}

test('the model file keeps the setting: a deep run saved and loaded into a fresh page opens deep; a file without a setting loads as quick', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}train.html#claim=batchnorm&setting=deep`);
    await startOneSeed(page);
    // paused, or done if every run ended first: a model is saved in either
    await page.click('#train-pause');
    await page.waitForFunction(() => ['paused', 'done'].includes(window.__resnormTrain?.state));
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-save-model')]);
    const bytes = new Uint8Array(await downloadBytes(d));
    const model = decodeModel(bytes);
    assert.equal(model.claim, 'batchnorm');
    assert.equal(model.setting, 'deep');
    assert.match(model.link, /preset=batchnorm&setting=deep/);
    assert.equal(model.config.depth, claimAt(CLAIM_BY_ID.batchnorm, 'deep').config.depth);
    // the exports say it too
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#train-export-csv')]);
    const csvText = Buffer.from(await downloadBytes(csv)).toString('utf8');
    assert.match(csvText, /^# claim,batchnorm$/m);
    assert.match(csvText, /^# setting,deep$/m);
    assert.match(
      await page.locator('#train-data-table caption').textContent(),
      new RegExp(`\\(${CLAIM_BY_ID.batchnorm.title} claim, deep setting\\)`),
    );
    await page.context().close();

    const fresh = await openPage(it.browser, `${url}train.html`);
    await fresh.setInputFiles('#train-model-file', {
      name: 'deep.rnmodel',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(bytes),
    });
    await fresh.waitForFunction(
      () => ['paused', 'done'].includes(window.__resnormTrain?.state) && window.__resnormTrain.setting === 'deep',
    );
    assert.equal((await hook(fresh)).preset, 'batchnorm');
    await fresh.waitForFunction(
      () => location.hash.includes('preset=batchnorm') && location.hash.includes('setting=deep'),
    );
    assert.equal(await fresh.isChecked('#train-setting-deep'), true);
    // the same file without its claim and setting (as written before them): quick
    await fresh.setInputFiles('#train-model-file', {
      name: 'old.rnmodel',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(withoutClaim(bytes)),
    });
    await fresh.waitForFunction(() => window.__resnormTrain?.setting === 'quick');
    assert.match(await fresh.locator('.lab-tools-status').textContent(), /Loaded old\.rnmodel/);
    assert.deepEqual(fresh.problems, []);
    await fresh.context().close();
  }));

test('screenshots of the control: 360 px and desktop, light and dark, no text covered', () =>
  served({ csp: SITE_CSP }, async (url) => {
    for (const [name, viewport] of [
      ['360', { width: 360, height: 780 }],
      ['desktop', { width: 1280, height: 900 }],
    ])
      for (const colorScheme of ['light', 'dark']) {
        const page = await openPage(it.browser, `${url}train.html#claim=depth&setting=deep`, { viewport, colorScheme });
        const bar = page.locator('#train-presets');
        await bar.scrollIntoViewIfNeeded();
        assert.deepEqual(await overlaps(page), [], `${name} ${colorScheme}`);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `${name}: nothing wider than the screen (${width})`);
        await bar.screenshot({ path: `${SHOTS}/train-setting-${name}-${colorScheme}.png` });
        assert.deepEqual(page.problems, []);
        await page.context().close();
      }
  }));
