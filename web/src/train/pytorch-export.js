// The lab's settings as one PyTorch script (docs/pytorch.md): the engine's
// exporter (rn.exportPytorch, asked through the page's engine client) writes
// every run of the settings into one file, starting from their initial
// weights. One script holds one config with several architectures, so a
// claim's runs that differ in more than the architecture cannot share one;
// the refusal names the fields they differ in. Pure but for the engine call; no DOM.
//
//   const { config, differ } = pytorchConfig(store.get(), papers.specs());
//   const { text, name } = await pytorchScript(engine, store.get(), papers.specs(), papers.id());
import { TRAIN_PRESENTATION as SHOWN } from '../shared/train-fields.js';
import { runSpecs } from './session.js';

/** The PyTorch script's media type. */
export const PYTORCH_TYPE = 'text/x-python;charset=utf-8';

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The runs of `config` (one per arch, or the claim's `specs`) as one config
 * for the exporter: the shared settings with every run's architecture, in
 * order. differ: the fields two runs set differently (then no one script holds them).
 */
export function pytorchConfig(config, specs = null) {
  const runs = runSpecs(config, specs);
  const base = { ...runs[0].config };
  delete base.arch;
  const differ = new Set();
  for (const r of runs)
    for (const k of new Set([...Object.keys(base), ...Object.keys(r.config)]))
      if (k !== 'arch' && !same(r.config[k], base[k])) differ.add(k);
  const arch = runs.map((r) => r.arch);
  if (new Set(arch).size !== arch.length && !differ.size) differ.add('arch');
  return { config: { ...base, arch }, differ: [...differ] };
}

/** The file's name: resnorm-<claim>.py for a claim's runs, else resnorm-<the architectures>.py. */
export function pytorchFileName(config, claim = 'none') {
  const what = claim && claim !== 'none' ? claim : config.arch.join('-');
  return `resnorm-${String(what).replace(/[^A-Za-z0-9_.-]+/g, '-')}.py`;
}

/**
 * The words the lab says for an exporter's refusal `e` (an EngineError naming
 * its field): the size limit in the lab's terms, anything else (an architecture) as the engine put it.
 */
export function pytorchRefusal(e) {
  const why = String(e?.message ?? e);
  switch (e?.field) {
    case 'steps':
      return (
        `${why.replace(/^steps: /, '').replace(/: lower --steps or --batch$/, '')}. ` +
        `Lower ${SHOWN.steps.label} or ${SHOWN.batch.label} to export`
      );
    default:
      return why;
  }
}

/**
 * The script of the lab's settings from `engine` (engine/client.js: call('exportPytorch')):
 * {text, name}. Rejects with an Error whose message is the lab's words for the refusal.
 */
export async function pytorchScript(engine, config, specs, claim) {
  const { config: one, differ } = pytorchConfig(config, specs);
  if (differ.length)
    throw new Error(
      `this claim\u2019s runs differ in ${differ.join(', ')}, and one script holds one setting for all its runs. ` +
        'Choose no claim to export the settings in the form',
    );
  if (typeof engine?.call !== 'function') throw new Error('this build of the engine has no PyTorch export');
  let text;
  try {
    text = await engine.call('exportPytorch', [one]);
  } catch (e) {
    throw new Error(pytorchRefusal(e));
  }
  return { text, name: pytorchFileName(one, claim) };
}
