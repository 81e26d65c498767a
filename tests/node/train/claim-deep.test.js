// Every lab claim's deep setting (claimAt(claim, 'deep'), web/src/claims/lab/setting.js) starts:
// each of its runs' configs is one the lab accepts (rn.trainer, the call the lab's session makes its
// trainers with and whose refusal it shows, over the lab's defaults as claimConfig gives them), the
// claim's config with every architecture side by side fits the engine's budgets as the CLI counts
// them (rn.checkTrain), and through the CLI (scripts/claim-cli.js, the driver of
// scripts/claim-seeds.js) a few steps of it run and every run logs finite losses at its first
// logged step (but one run its claim expects to diverge, which does so at once), at the deep
// setting's depths. Not the full length: scripts/claim-seeds.js trains them.
// Also the shape of the settings: the deep runs keep the quick runs' keys and architectures, and a
// claim without a deep setting of its own is its quick one at both.
// Run: node --test tests/node/train/claim-deep.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

import { CLAIMS, SETTINGS, claimAt, claimConfig, hasDeep, runConfigs } from '../../../web/src/claims/lab/index.js';
import { defaultTrainConfig, engineSettings } from '../../../web/src/shared/train-fields.js';
import { trainClaim } from '../../../scripts/claim-cli.js';
import { CLI, loadWasm } from '../helpers.js';

/** How many steps each run takes here, each logged. */
const STEPS = 3;

/**
 * The deep runs whose first step already takes them past float's range, the engine reporting
 * first_nonfinite 1: the residual stack without a norm at 128 blocks, whose stream's mean square
 * doubles block by block at initialization (a training loss near 10^37 at step 1), so the first
 * update's gradient (about 10^39) leaves nothing finite. Its claim says it does not train; its
 * training loss at step 1, of the initial weights, is finite like every other run's.
 */
const FIRST_STEP_DIVERGES = new Set(['rezero.residual']);

const rn = await loadWasm();
test.after(() => rn.dispose());

test('the settings are quick and deep; an unknown one is refused', () => {
  assert.deepEqual(SETTINGS, ['quick', 'deep']);
  assert.throws(() => claimAt(CLAIMS[0], 'deeper'), RangeError);
  for (const c of CLAIMS) assert.equal(claimAt(c, 'quick'), c, c.id);
});

for (const c of CLAIMS) {
  test(`${c.id}: its deep setting has the quick runs' keys and architectures, words of its own, and a depth`, () => {
    assert.ok(typeof c.deep?.setting === 'string' && c.deep.setting.length > 0, `${c.id}.deep.setting`);
    const deep = claimAt(c, 'deep');
    if (!hasDeep(c)) {
      assert.equal(deep, c, `${c.id}: no deep config, so the quick setting at both`);
      return;
    }
    assert.notEqual(deep.setting, c.setting, `${c.id}: the deep setting in its own words`);
    assert.deepEqual(
      deep.runs.map((r) => [r.key, r.arch]),
      c.runs.map((r) => [r.key, r.arch]),
    );
    const depths = (claim) => runConfigs(claim, claimConfig(claim, defaultTrainConfig())).map((r) => r.depth);
    // deeper than the quick setting in its deepest run, never shallower in any
    assert.ok(Math.max(...depths(deep)) > Math.max(...depths(c)), `${c.id}: ${depths(deep)} against ${depths(c)}`);
    // every label that names a depth names its run's
    const configs = runConfigs(deep, claimConfig(deep, defaultTrainConfig()));
    deep.runs.forEach((r, i) => {
      const named = r.label.match(/(\d+) (?:blocks|layers)/);
      if (named) assert.equal(Number(named[1]), configs[i].depth, `${c.id}.${r.key}: ${r.label}`);
    });
  });

  if (!hasDeep(c)) continue;

  test(`${c.id}: the lab accepts every run of its deep setting, and the CLI's side-by-side runs fit the budgets`, () => {
    const deep = claimAt(c, 'deep');
    const config = engineSettings(claimConfig(deep, defaultTrainConfig()));
    for (const [i, rc] of runConfigs(deep, config).entries()) {
      // the session's own call: a refusal throws here as it shows in the lab
      const t = rn.trainer(rc);
      try {
        assert.equal(t.config.depth, rc.depth, `${c.id}.${deep.runs[i].key}`);
      } finally {
        t.delete();
      }
    }
    // every architecture at once, as `resnorm train --arch a,b,...` counts them
    assert.doesNotThrow(() => rn.checkTrain(config), c.id);
  });

  test(
    `${c.id}: its deep setting through the CLI: ${STEPS} steps, finite losses at every run's first log`,
    { skip: !existsSync(CLI) && `no CLI at ${CLI} (npm run build:native)` },
    async () => {
      const deep = claimAt(c, 'deep');
      const { runs } = await trainClaim(deep, { cli: CLI, override: { steps: STEPS, log_every: 1 } });
      const configs = runConfigs(deep, claimConfig(deep, defaultTrainConfig()));
      deep.runs.forEach((r, i) => {
        const run = runs[r.key];
        assert.ok(run?.logs.length > 0, `${c.id}.${r.key}: logged`);
        assert.equal(run.config.depth, configs[i].depth, `${c.id}.${r.key}: the deep setting's depth ran`);
        const first = run.logs[0];
        assert.equal(first.step, 1, `${c.id}.${r.key}: its first log`);
        assert.ok(Number.isFinite(first.train_loss), `${c.id}.${r.key}: train_loss ${first.train_loss} at step 1`);
        if (FIRST_STEP_DIVERGES.has(`${c.id}.${r.key}`)) {
          assert.equal(first.first_nonfinite, 1, `${c.id}.${r.key}: reported not finite from step 1`);
        } else {
          assert.ok(
            Number.isFinite(first.heldout_loss),
            `${c.id}.${r.key}: heldout_loss ${first.heldout_loss} at step 1`,
          );
          assert.equal(first.first_nonfinite ?? null, null, `${c.id}.${r.key}: every value finite at step 1`);
        }
        assert.ok(Number.isFinite(run.task.chance), `${c.id}: the task's chance loss`);
        if (c.needsLesion)
          assert.equal(run.lesion?.loss.length, configs[i].depth, `${c.id}.${r.key}: a lesion per block`);
      });
    },
  );
}
