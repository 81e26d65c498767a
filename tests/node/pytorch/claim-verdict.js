// A lab claim's verdict from PyTorch, the driver of tests/node/pytorch/claims*.test.js: the claim
// (web/src/claims/lab/<id>.js) exported through the CLI, one script per distinct config of its
// runs (the lab's settings as CLI flags, as scripts/claim-settings.js writes them), trained by the
// script with /usr/bin/python3 (and, for the claims PART names so, with `torchrun
// --nproc_per_node 2`: DDP, gloo, CPU), and judged by the claim's own judge() (claimVerdict) on
// the script's JSON lines: the same verdict, check by check, as on the CLI's own run of the same
// settings, and the same logged steps.
//
// The verdict is what is compared, not the losses: the engine trains in float (the lab's
// precision), the script in float64, and over hundreds of steps the two roundings lead to other
// numbers; the claim's checks (diverged or not, trained or not, which run ends lower) are what
// both must agree on. Each claim trains its full steps, as the lab does.
//
// A run with stopWhenTrained (depth.js) is read as the lab reads it: fromCli ends its logs at the
// first step below halfway, where the lab's session stops it; the CLI and the script train on.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAIMS, CLAIM_BY_ID, claimVerdict } from '../../../web/src/claims/lab/index.js';
import { flags, groups, jsonLines, labRuns } from '../../../scripts/claim-cli.js';
import { CLI, TORCHRUN, PYTHON } from '../helpers.js';
import { requireTorch } from './torch.js';

/**
 * The test files that check named claims (tests/node/pytorch/<file>.test.js), so that `node --test
 * --test-concurrency=2` trains them side by side; claims.test.js checks every other exported claim.
 */
export const PARTS = {
  'claims-warmup': ['warmup'],
  'claims-depth': ['depth'],
  'claims-late': ['late'],
};

/** The claims claims.test.js checks: every claim of CLAIMS that no part names. */
export const REST = CLAIMS.map((c) => c.id).filter((id) => !Object.values(PARTS).flat().includes(id));

const BUFFER = 1 << 28;

/** Runs read as the lab reads them: a stopWhenTrained run ends where the lab's session stops it. */
const LAB = { stopWhenTrained: true };

const verdictOf = (v) => ({ holds: v.holds, checks: v.checks.map((c) => `${c.claimed}: ${c.holds}`) });

/** What a verdict's checks measured, one line each, for the test's output. */
const measured = (v) => v.checks.map((c) => `  ${c.holds ? 'holds' : 'not  '} ${c.claimed}: ${c.measured}`).join('\n');

/**
 * Registers the test of claim `id`: the CLI's verdict against the script's under python3 (and
 * under torchrun when `torchrun`).
 */
export function claimTest(id, { torchrun = false } = {}) {
  const claim = CLAIM_BY_ID[id];
  const ways = torchrun ? 'in one process and with torchrun over two' : 'in one process';
  test(`${id}: the exported scripts reach the CLI run\u2019s verdict, ${ways}`, (t) => {
    requireTorch({ gloo: torchrun });
    const tmp = mkdtempSync(join(tmpdir(), `resnorm-pytorch-claim-${id}-`));
    t.after(() => rmSync(tmp, { recursive: true, force: true }));
    const ran = { cli: [], python: [], torchrun: [] };
    groups(claim).forEach(({ config, keys }, i) => {
      const file = join(tmp, `${id}-${i}.py`);
      const archs = [...new Set(keys.map(([, a]) => a))].join(',');
      const args = ['train', ...flags(config), '--arch', archs, '--json', '--export-pytorch', file];
      ran.cli.push({ keys, out: jsonLines(execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: BUFFER })) });
      const py = spawnSync(PYTHON, [file, '--json'], { encoding: 'utf8', maxBuffer: BUFFER });
      assert.equal(py.status, 0, `the ${id} script ${archs} failed:\n${py.stderr}`);
      ran.python.push({ keys, out: jsonLines(py.stdout) });
      if (!torchrun) return;
      const tr = spawnSync(TORCHRUN[0], [...TORCHRUN.slice(1), file, '--json'], {
        encoding: 'utf8',
        maxBuffer: BUFFER,
      });
      assert.equal(tr.status, 0, `the ${id} script ${archs} under torchrun failed:\n${tr.stderr}`);
      ran.torchrun.push({ keys, out: jsonLines(tr.stdout) });
    });
    const engine = claimVerdict(claim, labRuns(ran.cli, LAB));
    assert.ok(engine, 'the CLI runs give a verdict');
    t.diagnostic(`CLI (float):\n${measured(engine)}`);
    for (const way of torchrun ? ['python', 'torchrun'] : ['python']) {
      const runs = labRuns(ran[way], LAB);
      const script = claimVerdict(claim, runs);
      assert.ok(script, `the scripts give a verdict (${way})`);
      t.diagnostic(`script under ${way} (float64):\n${measured(script)}`);
      assert.deepEqual(verdictOf(script), verdictOf(engine), `${way}: the script against the CLI`);
      // every run logged the steps the CLI's did (none stopped, diverged or was trained at another step)
      const cli = labRuns(ran.cli, LAB);
      for (const r of claim.runs) {
        const steps = (of) => of[r.key].logs.map((l) => l.step).join(',');
        assert.equal(steps(runs), steps(cli), `${r.key}: the logged steps (${way})`);
      }
    }
  });
}
