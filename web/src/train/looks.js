// How a run is drawn and named: its key (the arch in the ordinary lab, the
// claim's run key otherwise), its colour's arch, its label and its dash. A
// claim's two runs of one architecture share its colour and differ in
// dash and label. Pure, no DOM.
import { ARCH_BY_KEY } from '../shared/archs.js';

/** {key, arch, label, dash} of a session run (or run spec). */
export function runLook(run) {
  const a = ARCH_BY_KEY[run.arch];
  return {
    key: run.key ?? run.arch,
    arch: run.arch,
    label: run.label ?? a?.label ?? run.arch,
    dash: run.dash ?? a?.dash ?? [],
  };
}

/** The look of `key` in `looks` (keyed by run key), else of the arch of that name. */
export const lookOf = (looks, key) => looks?.[key] ?? runLook({ arch: key });

/** The looks of runs, keyed by run key. */
export const looksOf = (runs) => Object.fromEntries(runs.map((r) => [r.key ?? r.arch, runLook(r)]));
