// A lab claim's verdict from PyTorch: the Warmup claim (web/src/claims/lab/warmup.js, Xiong et al.
// 2020) exported through the CLI, one script per distinct setting of its runs (the lab's settings
// as CLI flags, as scripts/claim-settings.js writes them), trained by the script with
// /usr/bin/python3 and with `torchrun --nproc_per_node 2` (DDP, gloo, CPU), and judged by the
// claim's own judge() (claimVerdict) on the script's JSON lines: the same verdict, check by check,
// as on the CLI's own run of the same settings.
//
// The verdict is what is compared, not the losses: the engine trains in float (the lab's
// precision), the script in float64, and over 300 steps at a learning rate where Post-LN diverges
// the two roundings lead to other numbers; the claim's checks (diverged or not, trained or not,
// which run ends lower) are what both must agree on. The full 300 steps: with fewer, the warmup
// run (200 warmup steps) has not trained and the claim is not tested.
// Run: node --test tests/node/pytorch/claims.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAIM_BY_ID, claimVerdict } from '../../../web/src/claims/lab/index.js';
import { CLI, TORCHRUN, PYTHON } from '../helpers.js';
import { jsonLines, requireTorch } from './torch.js';

const tmp = mkdtempSync(join(tmpdir(), 'resnorm-pytorch-claims-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** A config object in the JS API's shape as `resnorm train` flags (scripts/claim-settings.js's). */
const flags = (config) =>
  Object.entries(config).flatMap(([k, v]) => [`--${k.replaceAll('_', '-')}`, Array.isArray(v) ? v.join(',') : `${v}`]);

/** Per run key of the claim, the lab's run ({logs, task, lesion}) from JSON lines of `resnorm train --json` or the script. */
function labRuns(groups) {
  const runs = {};
  for (const { keys, out } of groups) {
    const end = out.at(-1);
    const task = { chance: end.chance_loss, optimal: end.optimal_loss };
    for (const [key, arch] of keys) {
      runs[key] = {
        logs: out.filter((l) => l.arch === arch && l.step !== undefined),
        task,
        lesion: end.summary[arch].lesion,
      };
    }
  }
  return runs;
}

/** The claim's runs grouped by their settings: one CLI run (and one script) per distinct config. */
function groups(claim) {
  const by = new Map();
  for (const r of claim.runs) {
    const config = { ...claim.config, ...(r.overrides ?? {}) };
    const k = JSON.stringify(config);
    if (!by.has(k)) by.set(k, { config, keys: [] });
    by.get(k).keys.push([r.key, r.arch]);
  }
  return [...by.values()];
}

const verdictOf = (v) => ({ holds: v.holds, checks: v.checks.map((c) => `${c.claimed}: ${c.holds}`) });

test('warmup: the exported scripts reach the CLI run\u2019s verdict, in one process and with torchrun over two', () => {
  requireTorch({ gloo: true });
  const claim = CLAIM_BY_ID.warmup;
  const cli = [];
  const one = [];
  const two = [];
  groups(claim).forEach(({ config, keys }, i) => {
    const file = join(tmp, `warmup-${i}.py`);
    const archs = keys.map(([, a]) => a).join(',');
    const args = ['train', ...flags(config), '--arch', archs, '--json', '--export-pytorch', file];
    cli.push({ keys, out: jsonLines(execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 1 << 28 })) });
    const py = spawnSync(PYTHON, [file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(py.status, 0, `the warmup script ${archs} failed:\n${py.stderr}`);
    one.push({ keys, out: jsonLines(py.stdout) });
    const tr = spawnSync(TORCHRUN[0], [...TORCHRUN.slice(1), file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(tr.status, 0, `the warmup script ${archs} under torchrun failed:\n${tr.stderr}`);
    two.push({ keys, out: jsonLines(tr.stdout) });
  });
  const engine = claimVerdict(claim, labRuns(cli));
  assert.ok(engine, 'the CLI runs give a verdict');
  const torch1 = claimVerdict(claim, labRuns(one));
  const torch2 = claimVerdict(claim, labRuns(two));
  assert.ok(torch1 && torch2, 'the scripts give a verdict');
  assert.deepEqual(verdictOf(torch1), verdictOf(engine), 'python3 script.py against the CLI');
  assert.deepEqual(verdictOf(torch2), verdictOf(engine), 'torchrun --nproc_per_node 2 script.py against the CLI');
  // every run logged every step the CLI's did (none stopped at another step)
  for (const r of claim.runs) {
    const steps = (runs) => runs[r.key].logs.map((l) => l.step).join(',');
    assert.equal(steps(labRuns(one)), steps(labRuns(cli)), `${r.key}: the logged steps`);
    assert.equal(steps(labRuns(two)), steps(labRuns(cli)), `${r.key}: the logged steps under torchrun`);
  }
});
