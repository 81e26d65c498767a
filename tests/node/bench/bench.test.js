// The benchmark runs on a tiny config and writes valid output. No timing is
// asserted: benchmarks never fail the test suite on time.
//   node --test tests/node/bench/bench.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { main, CONTENDERS } from '../../../bench/run.js';
import { TRAIN_CONTENDERS } from '../../../bench/lib/train.js';
import { CLAIMS } from '../../../web/src/claims/lab/index.js';

const SCENES = ['default', 'deep', 'wide'];

test(
  'npm run bench, --quick: every part and every contender is in latest.json and latest.md',
  { timeout: 180000 },
  async () => {
    const out = mkdtempSync(`${os.tmpdir()}/resnorm-bench-test-`);
    try {
      await main(['--quick', '--out', out, '--silent']);
      const report = JSON.parse(readFileSync(`${out}/latest.json`, 'utf8'));
      const md = readFileSync(`${out}/latest.md`, 'utf8');
      assert.equal(report.schema, 'resnorm-bench/1');
      assert.equal(report.quick, true);
      assert.ok(report.machine.cpu && report.machine.node, 'machine info');

      // Part 1: every contender on every scene, measured or skipped with a reason.
      assert.deepEqual(Object.keys(report.engine.scenes), SCENES);
      for (const scene of SCENES) {
        const s = report.engine.scenes[scene];
        assert.ok(s.flops > 0, `${scene}: FLOP count`);
        for (const name of Object.keys(CONTENDERS)) {
          const c = s.contenders[name];
          assert.ok(c, `${scene}: ${name} is missing`);
          if (c.skipped) {
            assert.equal(typeof c.skipped, 'string');
            assert.ok(c.skipped.length > 5, `${scene}: ${name} skipped without a reason`);
            continue;
          }
          assert.ok(Number.isFinite(c.first_ms) && c.first_ms >= 0, `${scene}: ${name} first_ms`);
          assert.ok(Number.isFinite(c.median_ms) && c.median_ms >= 0, `${scene}: ${name} median_ms`);
          assert.ok(c.p10_ms <= c.median_ms && c.median_ms <= c.p90_ms, `${scene}: ${name} p10 <= median <= p90`);
          assert.ok(c.n >= 1, `${scene}: ${name} samples`);
          assert.ok(Number.isFinite(c.gflops), `${scene}: ${name} GFLOP/s`);
          assert.ok(Number.isFinite(c.ratio_to_wasm_simd), `${scene}: ${name} ratio`);
          // The numbers are checked against the WASM SIMD build (the reference itself excepted).
          if (name !== 'wasm-simd')
            assert.equal(c.check.ok, true, `${scene}: ${name} numbers: ${JSON.stringify(c.check)}`);
          assert.ok(md.includes(`\`${name}\``), `latest.md lacks ${name}`);
        }
        // The shipped build, plain JS and TF.js need nothing beyond npm test's build.
        for (const name of ['wasm-simd', 'js', 'tfjs'])
          assert.ok(!s.contenders[name].skipped, `${scene}: ${name} skipped: ${s.contenders[name].skipped}`);
      }
      assert.ok(report.engine.tiering.liftoff_only && report.engine.tiering.turbofan_only);

      // Parts 2-4 and the targets.
      assert.ok(['ok', 'skipped', 'failed'].includes(report.browser.status));
      if (report.browser.status !== 'ok') assert.ok(report.browser.reason.length > 5);
      for (const k of ['native-v2', 'native', 'wasm-simd', 'wasm-scalar']) {
        const r = report.norms.runtimes[k];
        assert.ok(r && (r.skipped || r.rows.length === report.norms.widths.length), `norms ${k}`);
      }
      for (const scene of SCENES) assert.ok(report.profile.scenes[scene]['wasm-simd'], `profile ${scene}`);
      assert.ok(report.targets.length >= 8);
      for (const t of report.targets) assert.ok([true, false, null].includes(t.met) && t.measured, t.id);
      // Part 5: every sweep with its points and a finite exponent; the limit rows timed.
      for (const field of ['depth', 'width', 'tokens']) {
        const sw = report.scaling.scaling.sweeps[field];
        assert.ok(sw.points.length >= 2 && sw.points.every((p) => p.ms > 0), `scaling ${field}`);
        assert.ok(Number.isFinite(sw.exponent), `scaling ${field} exponent`);
      }
      for (const row of report.scaling.limits.rows) assert.ok(row.wasm_ms > 0 && row.config.depth >= 1, row.name);
      // Part 6: every training contender measured (or skipped with a reason), and the
      // native and in-page trainers checked against WASM SIMD's losses in Node.
      const tr = report.training;
      assert.ok(tr.tokens_per_step > 0, 'training tokens per step');
      for (const name of Object.keys(TRAIN_CONTENDERS)) {
        const c = tr.contenders[name];
        assert.ok(c, `training: ${name} is missing`);
        if (c.skipped) {
          assert.ok(c.skipped.length > 5, `training: ${name} skipped without a reason`);
          continue;
        }
        assert.ok(c.tokens_per_s > 0, `training: ${name} tokens/s`);
        if (c.check.reference) assert.ok(c.check.losses.every(Number.isFinite), `training: ${name} losses`);
        else if (!c.check.skipped) assert.equal(c.check.ok, true, `training: ${name}: ${JSON.stringify(c.check)}`);
      }
      // The shipped build needs nothing beyond npm test's build.
      assert.ok(
        !tr.contenders['wasm-simd'].skipped,
        `training: wasm-simd skipped: ${tr.contenders['wasm-simd'].skipped}`,
      );
      assert.ok(
        report.targets.some((t) => t.group === 'training'),
        'the training targets',
      );
      // Part 7: the peak measured (or skipped with a reason when its module is not built), and
      // every run of every lab claim with its flop count, timed or skipped with a reason.
      if (report.peak.status === 'ok') {
        assert.ok(report.peak.node.peak_gflops > 0, 'peak GFLOP/s');
        for (const [n, l] of Object.entries(report.peak.loop))
          assert.ok(l.ok || report.peak.loop.skipped, `peak_${n}: ${JSON.stringify(l)}`);
      } else assert.ok(report.peak.reason.length > 5, 'peak skipped without a reason');
      assert.equal(report.claims.claims.length, CLAIMS.length);
      for (const r of report.claims.runs) {
        assert.ok(r.flops_per_update > 0, `${r.claim}.${r.key} flops`);
        assert.ok(r.skipped ? r.skipped.length > 5 : r.gflops > 0, `${r.claim}.${r.key} measured`);
      }
      assert.ok(report.targets.some((t) => t.id === 'claims_peak'));
      for (const heading of [
        '## Targets',
        '## 1. Engine throughput',
        '## 2. In the browser',
        '## 3. LayerNorm against RMSNorm',
        '## 4. Where',
        '## 5. The cost of growth',
        '## 6. Training',
        "## 7. The machine's own limit",
      ])
        assert.ok(md.includes(heading), `latest.md lacks "${heading}"`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);
