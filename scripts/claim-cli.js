// A lab claim (web/src/claims/lab/<id>.js, or claimAt()'s deep setting of one) trained through
// `resnorm train --json`: its runs grouped by their settings, one CLI run per distinct config with
// every architecture of the group side by side (the C++ reproductions' and the PyTorch tests'
// way), and the lab's runs read back from the JSON lines by common.js's fromCli, so claimVerdict()
// judges them as the lab judges its own. Used by scripts/claim-seeds.js and the Node tests that
// train a claim (tests/node/claims/, tests/node/pytorch/claims.test.js).
//
//   const { runs } = await trainClaim(claim, { cli, seed: 3 });
//   claimVerdict(claim, runs);
import { execFile } from 'node:child_process';
import { fromCli } from '../web/src/claims/lab/index.js';

/** A config object in the JS API's shape as `resnorm train` flags (scripts/claim-settings.js's), one argument each. */
export const flags = (config) =>
  Object.entries(config).flatMap(([k, v]) => [`--${k.replaceAll('_', '-')}`, Array.isArray(v) ? v.join(',') : `${v}`]);

/**
 * The claim's runs grouped by their settings: [{config, keys: [[key, arch, stopWhenTrained], ...]}],
 * one CLI run (or one exported script) per distinct config, its archs the group's.
 */
export function groups(claim) {
  const by = new Map();
  for (const r of claim.runs) {
    const config = { ...claim.config, ...(r.overrides ?? {}) };
    const k = JSON.stringify(config);
    if (!by.has(k)) by.set(k, { config, keys: [] });
    by.get(k).keys.push([r.key, r.arch, Boolean(r.stopWhenTrained)]);
  }
  return [...by.values()];
}

/**
 * Per run key of the claim, the lab's run ({key, arch, config, logs, task, lesion}: fromCli's) from
 * each group's JSON lines (`out`: the parsed lines of `resnorm train --json` or of an exported
 * script). With `stopWhenTrained` a run the claim lets stop once trained keeps its logs up to the
 * first below halfway, where the lab's session stops it; without, every logged step.
 */
export function labRuns(outs, { stopWhenTrained = false } = {}) {
  const runs = {};
  for (const { keys, out } of outs)
    for (const [key, arch, stop] of keys)
      runs[key] = fromCli(out, arch, { key, stopWhenTrained: stopWhenTrained && Boolean(stop) });
  return runs;
}

/** The parsed JSON lines of a run's output. */
export const jsonLines = (text) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** `resnorm train --json` of one config (its arch a list) with `extra` flags after it: the parsed lines. */
export function trainCli(cli, config, extra = []) {
  const args = ['train', ...flags(config), '--json', ...extra];
  return new Promise((done, fail) => {
    execFile(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 }, (err, stdout, stderr) => {
      if (err) fail(new Error(`${cli} ${args.join(' ')}: ${stderr.trim() || err.message}`));
      else done(jsonLines(stdout));
    });
  });
}

/**
 * Every run of `claim` through the CLI, one call per group: {runs (labRuns's, stopping where the
 * lab stops), outs: [{config, keys, out}]}. `seed`: the seed of every run (the claim's own when
 * undefined); `override`: fields set on every group's config (`steps` for a short run); `limit`:
 * how many CLI calls run at once (at most).
 */
export async function trainClaim(claim, { cli, seed, override = {}, limit = 1 } = {}) {
  const todo = groups(claim).map((g) => ({
    keys: g.keys,
    config: {
      ...g.config,
      ...(seed === undefined ? {} : { seed }),
      ...override,
      arch: g.keys.map(([, a]) => a),
    },
  }));
  const outs = await inTurn(todo, limit, async (g) => ({ ...g, out: await trainCli(cli, g.config) }));
  return { runs: labRuns(outs, { stopWhenTrained: true }), outs };
}

/** `work` of each item, at most `limit` at once, the results in the items' order. */
export async function inTurn(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
