// What the PyTorch tests share: the engine's architectures, the JSON lines the CLI and the
// scripts print, and the check that Debian's Python has torch (a missing torch fails a test
// with the setup hint, never skips it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import FIELDS from '../../../web/src/shared/engine-fields.js';
import { PYTHON } from '../helpers.js';

/** Every architecture the engine has, from its field table. */
export const ARCHS = FIELDS.find((f) => f.name === 'arch').choices;

/** The JSON documents of `resnorm train --json` or a script's `--json`, one per line. */
export { jsonLines } from '../../../scripts/claim-cli.js';

/** Fails the test unless PYTHON imports torch (and, with gloo, has torch.distributed's gloo backend). */
export function requireTorch({ gloo = false } = {}) {
  const code = gloo ? 'import torch.distributed as d; assert d.is_gloo_available()' : 'import torch';
  const r = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' });
  assert.equal(
    r.status,
    0,
    gloo
      ? `${PYTHON} cannot use torch.distributed with gloo: run \`npm run setup\``
      : `${PYTHON} cannot import torch: run \`npm run setup\` (it installs python3-torch)`,
  );
}
