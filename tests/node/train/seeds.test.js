// A lab claim over several seeds (web/src/claims/lab/common.js's seedsVerdict): each seed is
// judged by the claim's own judge and the seeds counted ("holds on 3 of 5 seeds"), each part's
// count and the seeds it fails on, and the caption gives each run's spread of held-out loss over
// the seeds, non-finite ones named. On hand-made logs, and on the Warmup claim's runs trained by
// `resnorm train --json --seed S` for five seeds, against the counts and spreads read straight
// from the CLI's JSON lines.
// Run: node --test tests/node/train/seeds.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { cliTrain } from '../helpers.js';
import {
  CLAIM_BY_ID,
  CLAIM_SEEDS,
  claimConfig,
  fromCli,
  prose,
  runConfigs,
  seedsVerdict,
  verdict,
} from '../../../web/src/claims/lab/index.js';
import { defaultLabConfig, seedList } from '../../../web/src/shared/train-fields.js';
import { run } from './runs.js';

const warmup = CLAIM_BY_ID.warmup;

/** The Warmup claim's runs on one seed from hand-made losses: Post-LN without warmup, with it, Pre-LN. */
const seedOf = (seed, [post, warm, pre]) => ({
  seed,
  runs: { post_ln: run([2.1, post]), post_ln_warmup: run([1.5, warm]), pre_ln: run([1.2, pre]) },
});

test('hand-made seeds: counted per seed, each part\u2019s failing seeds named, the spread of every run', () => {
  const holds = [2.0, 0.05, 0.02];
  const fails = [0.3, 0.05, 0.02]; // Post-LN trained without warmup: the first part fails
  const bySeed = [seedOf(3, holds), seedOf(4, fails), seedOf(5, holds), seedOf(6, fails), seedOf(7, holds)];
  const v = seedsVerdict(warmup, bySeed);
  assert.equal(v.holds, false);
  assert.equal(v.held, 3);
  assert.equal(v.n, 5);
  assert.equal(v.badge, 'holds on 3 of 5 seeds');
  assert.equal(v.summary, 'Holds on 3 of 5 seeds; not on seeds 4 and 6.');
  assert.deepEqual(
    v.seeds.map((s) => [s.seed, s.verdict.holds]),
    [
      [3, true],
      [4, false],
      [5, true],
      [6, false],
      [7, true],
    ],
  );
  // each seed's verdict is the claim's own on that seed's runs
  for (const s of v.seeds) assert.deepEqual(s.verdict, verdict('warmup', bySeed.find((b) => b.seed === s.seed).runs));
  assert.deepEqual(v.checks[0].failing, [4, 6]);
  assert.equal(v.checks[0].held, 3);
  assert.ok(v.checks.slice(1).every((c) => c.held === 5 && !c.failing.length));
  assert.equal(
    v.caption,
    'Held-out loss at the end on five seeds (3 to 7), lowest to highest (chance 2.08): Post-LN, no warmup ' +
      '0.3\u20132; Post-LN, warmup 200 0.05 on every seed; Pre-LN, no warmup 0.02 on every seed.',
  );
  assert.equal(v.numbers['post_ln.heldout.min'], 0.3);
  assert.equal(v.numbers['post_ln.heldout.max'], 2);

  // every seed holds; one seed's Post-LN diverged: named in the spread, not counted in its range
  const diverged = seedOf(8, [NaN, 0.06, 0.03]);
  const all = seedsVerdict(warmup, [seedOf(7, holds), diverged]);
  assert.equal(all.holds, true);
  assert.equal(all.badge, 'holds on 2 of 2 seeds');
  assert.equal(all.summary, 'Holds on all 2 seeds.');
  assert.match(all.caption, /Post-LN, no warmup 2, not finite on seed 8; Post-LN, warmup 200 0\.05\u20130\.06;/);
  // a seed without a log yet: no verdict
  assert.equal(
    seedsVerdict(warmup, [seedOf(1, holds), { seed: 2, runs: { ...seedOf(2, holds).runs, pre_ln: null } }]),
    null,
  );
});

test('the Warmup claim on five seeds through the CLI: the count and the spread are the runs\u2019', () => {
  const config = { ...claimConfig(warmup, defaultLabConfig()), seed: 20 };
  assert.equal(config.seeds, CLAIM_SEEDS);
  const seeds = seedList(config);
  assert.deepEqual(seeds, [20, 21, 22, 23, 24]);
  const raw = {}; // run key -> the last held-out loss of each seed, straight from the JSON lines
  const bySeed = seeds.map((seed) => {
    const runs = {};
    runConfigs(warmup, config, seed).forEach((c, i) => {
      assert.equal(c.seed, seed);
      assert.equal('seeds' in c, false, 'the CLI is given the engine\u2019s fields only');
      const out = cliTrain(c);
      const key = warmup.runs[i].key;
      const logs = out.logs[c.arch];
      (raw[key] ??= []).push(logs.at(-1).heldout_loss);
      runs[key] = fromCli([...logs, out.summary], c.arch, { key });
    });
    return { seed, runs };
  });
  const v = seedsVerdict(warmup, bySeed);
  const held = bySeed.filter((b) => verdict('warmup', b.runs).holds).length;
  assert.equal(v.held, held);
  assert.equal(v.badge, `holds on ${held} of 5 seeds`);
  assert.equal(v.holds, held === 5);
  for (const r of warmup.runs) {
    const finite = raw[r.key].filter((x) => typeof x === 'number' && Number.isFinite(x));
    const lo = Math.min(...finite);
    const hi = Math.max(...finite);
    assert.equal(v.numbers[`${r.key}.heldout.min`], lo, r.key);
    assert.equal(v.numbers[`${r.key}.heldout.max`], hi, r.key);
    const range = prose(lo) === prose(hi) ? prose(lo) : `${prose(lo)}\u2013${prose(hi)}`;
    assert.ok(v.caption.includes(`${r.label} ${range}`), `${r.key}: ${range} in ${v.caption}`);
  }
  assert.match(v.caption, /^Held-out loss at the end on five seeds \(20 to 24\)/);
  console.log(`# ${v.badge}: ${v.caption}`);
});
