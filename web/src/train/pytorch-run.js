// A run trained elsewhere, read back into the lab: the JSON lines the PyTorch
// script writes with --json (docs/pytorch.md), the same lines as `resnorm
// train --json`: one per logged step per architecture, {arch, step, lr,
// train_loss, ...}, then {config, chance_loss, optimal_loss, summary}. A
// script of several settings' runs (a lab claim's) prints these once per
// setting, every line with its run's key, each summary with the runs' keys and
// labels and which of the file's settings it ends ({group, groups}). The lab
// draws the runs beside its own, each labelled as PyTorch's. Pure, no DOM.
//
//   const file = decodeTrainJson(text);   // {config, configs, task, runs: [{key, arch, label, dash, source, logs, ...}]}
//
// A damaged, truncated or foreign file is refused with a ModelFileError
// (model-file.js's) naming what is wrong, as a model file is.
import { ARCH_BY_KEY } from '../shared/archs.js';
import { fromCli } from '../claims/lab/common.js';
import { ModelFileError } from './model-file.js';
import { LINE_KEYS } from './series.js';

/** The largest such file read: 64 MB (a million logged steps of a deep run is far less per line). */
export const TRAIN_JSON_MAX = 64 * 1024 * 1024;
/** Where the runs came from, as the legend and the readout say it. */
export const PYTORCH_SOURCE = 'PyTorch';
/** The dash of a loaded run's lines: dotted, beside the lab's own. */
const LOADED_DASH = [1, 3];

const fail = (message) => {
  throw new ModelFileError(message, 'file');
};
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const FOREIGN = 'it is not the JSON lines of a training run (the PyTorch script\u2019s or resnorm train\u2019s --json)';

/** The refusal of a file of `size` bytes before it is read, or null. */
export const trainJsonTooLarge = (size) =>
  size > TRAIN_JSON_MAX
    ? `the file is ${Math.round(size / 2 ** 20)} MB; a run\u2019s JSON is read up to ${TRAIN_JSON_MAX / 2 ** 20} MB`
    : null;

/** Each non-empty line of `text` parsed; a line that is not JSON is named. */
function parseLines(text) {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (!lines.length) fail('the file is empty');
  return lines.map((l, i) => {
    try {
      return JSON.parse(l);
    } catch {
      return fail(i === 0 ? FOREIGN : `line ${i + 1} is not JSON: the file is damaged`);
    }
  });
}

/** A logged step's numbers as the engine hands them to the page: NaN where the JSON has null. */
function engineLog(l) {
  const out = { ...l };
  for (const k of LINE_KEYS) if (out[k] === null) out[k] = NaN;
  return out;
}

const isSummary = (l) => isObject(l) && isObject(l.config) && isObject(l.summary);

/**
 * The runs of one setting's lines `lines` (its logged steps, then its summary `final`): each
 * architecture's run, under its key and label when the summary names them (a script of several
 * settings), else under its architecture's.
 */
function settingRuns(lines, final) {
  const archs = final.config.arch;
  if (!Array.isArray(archs) || !archs.length || archs.some((a) => !Object.hasOwn(ARCH_BY_KEY, a)))
    fail(`its config names no architecture the lab knows (${String(archs).slice(0, 60)})`);
  const keyed = isObject(final.keys);
  if (keyed && archs.some((a) => typeof final.keys[a] !== 'string' || typeof final.labels?.[a] !== 'string'))
    fail('a summary line names no key or label for one of its architectures: the file is damaged');
  const steps = final.config.steps;
  lines.slice(0, -1).forEach((l) => {
    const where = `line ${l.at}`;
    if (!isObject(l.line) || !archs.includes(l.line.arch) || (keyed && l.line.key !== final.keys[l.line.arch]))
      fail(`${where} is not a logged step of the run\u2019s architectures`);
    if (!Number.isInteger(l.line.step) || l.line.step < 1 || l.line.step > steps)
      fail(`${where}: step ${l.line.step} is not 1..${steps}`);
    for (const k of LINE_KEYS)
      if (l.line[k] !== null && typeof l.line[k] !== 'number')
        fail(`${where}: ${k} is not a number: the file is damaged`);
  });
  const parsed = lines.map((l) => l.line);
  return archs.map((arch) => {
    const name = keyed ? final.keys[arch] : arch;
    const r = fromCli(parsed, arch, {
      key: `pytorch-${name}`,
      label: `${keyed ? final.labels[arch] : ARCH_BY_KEY[arch].label} \u00b7 ${PYTORCH_SOURCE}`,
    });
    r.logs.forEach((l, j) => {
      if (j > 0 && l.step <= r.logs[j - 1].step) fail(`${name}: step ${l.step} comes after step ${r.logs[j - 1].step}`);
    });
    const logs = r.logs.map(engineLog);
    const stop = logs.find((l) => l.first_nonfinite !== null && l.first_nonfinite !== undefined);
    return {
      ...r,
      logs,
      dash: LOADED_DASH,
      source: PYTORCH_SOURCE,
      firstNonfinite: stop?.first_nonfinite ?? null,
      stepsDone: final.summary[arch]?.steps ?? logs.at(-1)?.step ?? 0,
      stopped: stop !== undefined,
    };
  });
}

/**
 * The runs of a `--json` file's text: {config (the first setting's), configs (each setting's),
 * task: {chance, optimal}, runs}, each run {key: 'pytorch-<arch>' (or 'pytorch-<run key>' from a
 * script of several settings), arch, label '<architecture> · PyTorch' (or '<run label> ·
 * PyTorch'), dash, source, config, task, logs, lesion, firstNonfinite, stepsDone, stopped}.
 * Throws a ModelFileError naming what is wrong.
 */
export function decodeTrainJson(text) {
  if (typeof text !== 'string') fail(FOREIGN);
  const lines = parseLines(text);
  if (!isSummary(lines.at(-1))) {
    if (lines.length > 1 && lines.slice(0, -1).every((l) => isObject(l) && typeof l.arch === 'string'))
      fail('it ends before its summary line: the file is truncated, or the run did not finish');
    fail(FOREIGN);
  }
  // one setting's lines end at its summary
  const settings = [];
  let current = [];
  lines.forEach((line, i) => {
    current.push({ line, at: i + 1 });
    if (isSummary(line)) {
      settings.push(current);
      current = [];
    }
  });
  const finals = settings.map((s) => s.at(-1).line);
  const groups = finals[0].groups ?? 1;
  if (finals.some((f, i) => (f.group ?? 0) !== i || (f.groups ?? 1) !== groups)) fail(FOREIGN);
  if (finals.length < groups)
    fail(`it ends after ${finals.length} of its ${groups} settings: the file is truncated, or the run did not finish`);
  const runs = settings.flatMap((s, i) => settingRuns(s, finals[i]));
  if (runs.every((r) => !r.logs.length)) fail('it holds no logged step');
  return { config: finals[0].config, configs: finals.map((f) => f.config), task: runs[0].task, runs };
}
