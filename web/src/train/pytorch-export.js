// The lab's settings as one PyTorch script (docs/pytorch.md): the engine's
// exporter (rn.exportPytorch, asked through the page's engine client) writes
// every run of the settings into one file, starting from their initial
// weights. Runs that differ only in the architecture share one group (one
// config); a claim's runs that differ in more (depth, warmup) are groups of
// their own, and the script trains each group in turn, every line under its
// run's key. Pure but for the engine call; no DOM.
//
//   const groups = pytorchGroups(store.get(), papers.specs());   // [{config, keys, labels}]
//   const { text, name } = await pytorchScript(engine, store.get(), papers.specs(), papers.id());
import { TRAIN_PRESENTATION as SHOWN, engineSettings } from '../shared/train-fields.js';
import { archLabel } from '../shared/archs.js';
import { runSpecs } from './session.js';

/** The PyTorch script's media type. */
export const PYTORCH_TYPE = 'text/x-python;charset=utf-8';

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The runs of `config` (one per arch, or the claim's `specs`) as the exporter's groups, in the
 * runs' order: runs whose settings differ only in the architecture share a group {config (its
 * runs' architectures as `arch`), keys, labels}; a run that differs in more, or whose
 * architecture its group has already, starts another.
 */
export function pytorchGroups(config, specs = null) {
  const groups = [];
  for (const r of runSpecs(engineSettings(config), specs)) {
    const shared = { ...r.config };
    delete shared.arch;
    const label = r.label ?? archLabel(r.arch);
    const g = groups.find((x) => same(x.shared, shared) && !x.config.arch.includes(r.arch));
    if (g) {
      g.config.arch.push(r.arch);
      g.keys.push(r.key);
      g.labels.push(label);
    } else groups.push({ shared, config: { ...shared, arch: [r.arch] }, keys: [r.key], labels: [label] });
  }
  return groups.map(({ config: c, keys, labels }) => ({ config: c, keys, labels }));
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
  const groups = pytorchGroups(config, specs);
  if (typeof engine?.call !== 'function') throw new Error('this build of the engine has no PyTorch export');
  let text;
  try {
    text = await engine.call('exportPytorch', [groups]);
  } catch (e) {
    throw new Error(pytorchRefusal(e));
  }
  return { text, name: pytorchFileName({ arch: [...new Set(groups.flatMap((g) => g.config.arch))] }, claim) };
}
