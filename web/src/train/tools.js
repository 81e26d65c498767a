// The lab's exports and model file: the logged numbers as CSV or JSON, the
// charts (line charts and heatmaps with their legends) as PNG or SVG, the
// settings' runs as a PyTorch script (pytorch-export.js, written by the
// engine's exporter in its worker: usable before any step), "Save
// model" (the settings and every run's logs and engine state, model-file.js)
// and "Load model" (a file's trainers made again, their states loaded, the
// settings and the link restored; a file that cannot be loaded is named in a
// notice and the current run is kept). Every button is a button the keyboard
// reaches; those that need logged steps say they are unavailable
// (aria-disabled) until there are some. "PyTorch run…" reads the JSON lines a
// PyTorch script (or `resnorm train --json`) wrote (pytorch-run.js) and hands
// its runs to onLoadedRuns, which draws them beside the lab's; a damaged or
// foreign file is named in a notice as a model file is.
//
//   const t = createLabTools({ root, session, store, engine, papers });
//   t.el; t.update(snapshot); t.destroy();
//
// root: the lab's element (its charts and heatmaps are drawn from there);
// session: session.js's; store: the settings (set on load); engine: the
// page's engine client (its call('exportPytorch')); papers: the claims
// (paper-panel.js: the claim's id, setting and run specs the script is of;
// the exports and the model file name the claim and its setting, and a
// model file of a claim opens it at the file's setting);
// onLoadedRuns(runs): the runs of a loaded JSON file, to draw.
import { archLabel } from '../shared/archs.js';
import { el, setAttr } from '../shared/dom.js';
import { download } from '../shared/download.js';
import { fmtValue } from '../shared/format.js';
import { logLabel, logTicks } from '../shared/log-axis.js';
import { stackToPng } from '../shared/png.js';
import { palette, themeColor } from '../shared/theme.js';
import { trainToHash } from './link.js';
import { VIRIDIS } from '../shared/colormap.js';
import { labFileBase, toLabCsv, toLabJson } from './export-data.js';
import { labToSvg } from './export-svg.js';
import { ZERO_RGB } from './heatmap.js';
import { hatchPattern, stoppedPattern } from '../shared/heat-cells.js';
import { runEnd } from '../claims/lab/common.js';
import { runLook } from './looks.js';
import { MODEL_EXT, ModelFileError, decodeModel, encodeModel, tooLarge } from './model-file.js';
import { PYTORCH_TYPE, pytorchScript } from './pytorch-export.js';
import { PYTORCH_SOURCE, decodeTrainJson, trainJsonTooLarge } from './pytorch-run.js';
import { HEAT_METRICS, heatRuns, heatScale, heatSectionId } from './series.js';

export const LAB_EXPORTS = [
  { key: 'csv', text: 'CSV', label: 'Export the numbers as CSV' },
  { key: 'json', text: 'JSON', label: 'Export the numbers and settings as JSON' },
  { key: 'png', text: 'PNG', label: 'Export the charts as PNG' },
  { key: 'svg', text: 'SVG', label: 'Export the charts as SVG' },
];

/** The claim of `papers` and its setting, {id, setting}, or null without one. */
const claimOf = (papers) =>
  papers && papers.id() !== 'none' ? { id: papers.id(), setting: papers.setting?.() ?? 'quick' } : null;

/** One line naming the run, for the images. */
export function labCaption(c, step, claim = null) {
  const block = c.block === 'transformer' ? `transformer, ${c.heads} heads` : 'MLP blocks';
  const of = claim ? `claim ${claim.id} at its ${claim.setting} setting \u00b7 ` : '';
  return `${of}${c.task} \u00b7 n ${c.seq} \u00b7 V ${c.vocab} \u00b7 depth ${c.depth} \u00b7 width ${c.width} \u00b7 ${block} \u00b7 ${c.optimizer} lr ${fmtValue(c.lr)} \u00b7 ${c.schedule} \u00b7 batch ${c.batch} \u00b7 seed ${c.seed} \u00b7 step ${step} of ${c.steps}`;
}

const SAVABLE = ['paused', 'done'];
const BUSY = ['starting', 'stepping', 'pausing'];

/** The tools' elements: the export buttons, Save, Load with its file input, the status and the problem lines. */
function toolsLayout() {
  const button = (key, text, extra = {}) =>
    el('button', { type: 'button', class: 'secondary lab-tool', id: `train-${key}`, ...extra }, text);
  const exports = LAB_EXPORTS.map((e) =>
    button(`export-${e.key}`, e.text, { 'data-export': e.key, 'aria-label': e.label }),
  );
  const pytorch = button('export-pytorch', 'PyTorch script', {
    'aria-label': 'Export the settings as a PyTorch script',
  });
  const save = button('save-model', 'Save', { 'aria-label': 'Save the model to a file' });
  const load = button('load-model', 'Load\u2026', { 'aria-label': 'Load a model from a file\u2026' });
  const file = el('input', {
    type: 'file',
    id: 'train-model-file',
    accept: `${MODEL_EXT},application/octet-stream`,
    hidden: true,
    'aria-hidden': 'true',
    tabindex: -1,
  });
  const loadRun = button('load-run', `${PYTORCH_SOURCE} run\u2026`, {
    'aria-label': `${PYTORCH_SOURCE} run\u2026: load a script's --json output to draw beside the lab's runs`,
  });
  const runFile = el('input', {
    type: 'file',
    id: 'train-run-file',
    accept: '.json,.jsonl,.txt,application/json,text/plain',
    hidden: true,
    'aria-hidden': 'true',
    tabindex: -1,
  });
  const status = el('p', { class: 'lab-tools-status', role: 'status' });
  const problem = el('p', { class: 'field-error lab-tools-error', role: 'alert', hidden: true });
  const box = el(
    'div',
    { class: 'lab-tools', role: 'group', 'aria-label': 'Exports and model file' },
    el(
      'div',
      { class: 'lab-tools-row' },
      el('span', { class: 'lab-tools-group' }, el('span', { class: 'lab-tools-label' }, 'Export'), ...exports, pytorch),
      el(
        'span',
        { class: 'lab-tools-group' },
        el('span', { class: 'lab-tools-label' }, 'Model'),
        save,
        load,
        file,
        loadRun,
        runFile,
      ),
    ),
    status,
    problem,
  );
  return { box, exports, pytorch, save, load, file, loadRun, runFile, status, problem };
}

/** The colours of the images: the theme's, with the danger and the not-run-yet colours. */
const imagePalette = (root) => ({
  ...palette(root),
  danger: themeColor('--danger', root),
  pending: themeColor('--surface-2', root),
});
/** The page's link for `config` (and `claim`, claimOf's), as the exports and the model file name it. */
const linkOf = (config, claim = null) =>
  new URL(trainToHash(config, claim?.id, claim?.setting) || '#', location.href).href;
const lastStep = (runs) => Math.max(0, ...runs.map((r) => r.logs.at(-1)?.step ?? 0));

/** The legend of a metric's heatmaps, drawn into the PNG: colour bar, ticks, the four marks (as the page's). */
function legendBlock(metric, runs, p) {
  const info = HEAT_METRICS[metric];
  const scale = heatScale(runs, metric);
  return {
    title: `${info.title} per ${info.rowLabel} and step`,
    sub: `${info.metric}, log scale shared by every architecture; ${info.rowLabel} ${info.firstRow} at the bottom`,
    height: 70,
    width: 600,
    paint(ctx, x, y, s, text) {
      const w = 360 * s;
      for (let i = 0; i < 256; i++) {
        ctx.fillStyle = `rgb(${VIRIDIS[i].join(',')})`;
        ctx.fillRect(x + (w * i) / 256, y, w / 256 + 1, 14 * s);
      }
      if (scale)
        for (const t of logTicks(scale.lo, scale.hi, 6)) {
          const tx = x + (w * (t - scale.lo)) / (scale.hi - scale.lo);
          ctx.fillStyle = p.muted;
          ctx.fillRect(tx, y + 14 * s, 1 * s, 5 * s);
          text(logLabel(t), tx, y + 32 * s, 11, p.muted, 400, 'center');
        }
      const marks = [
        [hatchPattern(ctx, p.danger, p.surface, s), 'not finite (diverged)'],
        [`rgb(${ZERO_RGB.join(',')})`, 'exactly 0'],
        [stoppedPattern(ctx, p.muted, p.pending, s), 'after the run stopped'],
        [p.pending, 'not run (yet)'],
      ];
      marks.forEach(([fill, label], i) => {
        const mx = x + w + 24 * s;
        const my = y + i * 17 * s - 2 * s;
        ctx.fillStyle = fill;
        ctx.fillRect(mx, my, 12 * s, 12 * s);
        text(label, mx + 18 * s, my + 10 * s, 12, p.text);
      });
    },
  };
}

/** The PNG: the page's line-chart canvases, then per metric its legend and every run's map, named as on the page. */
function labPng(root, s, caption) {
  const p = imagePalette(root);
  const blocks = [];
  for (const fig of root.querySelectorAll('.train-chart')) {
    const canvas = fig.querySelector('canvas');
    const cap = fig.closest('figure')?.querySelector('figcaption');
    if (canvas)
      blocks.push({
        title: cap?.querySelector('.chart-title')?.textContent ?? '',
        sub: cap?.querySelector('.chart-sub')?.textContent ?? '',
        canvas,
      });
  }
  for (const [metric, info] of Object.entries(HEAT_METRICS)) {
    const mapped = heatRuns(info, s.runs);
    if (!mapped.length) continue;
    blocks.push(legendBlock(metric, mapped, p));
    const section = root.querySelector(`#${heatSectionId(metric)}`);
    for (const r of mapped) {
      const look = runLook(r);
      const canvas = section?.querySelector(`figure[data-arch="${look.key}"] canvas.heatmap-canvas`);
      const end = runEnd(r);
      if (canvas) blocks.push({ title: `${look.label}${end ? ` \u00b7 ${end.text}` : ''}`, sub: '', canvas });
    }
  }
  return stackToPng({
    title: 'resnorm: training, step by step',
    caption,
    blocks,
    archs: s.runs.map(runLook),
    pal: p,
  });
}

/** The file of export `kind` of the session's snapshot `s` (of `claim`, claimOf's): {blob, name}. */
async function makeExport(kind, root, s, claim) {
  const config = s.config;
  const base = labFileBase(config, s.runs);
  const caption = labCaption(config, lastStep(s.runs), claim);
  // the numbers of every seed's run (the images draw the first seed's)
  const data = { config, runs: s.all ?? s.runs, link: linkOf(config, claim), claim };
  switch (kind) {
    case 'csv':
      return { blob: new Blob([toLabCsv(data)], { type: 'text/csv;charset=utf-8' }), name: `${base}.csv` };
    case 'json':
      return { blob: new Blob([toLabJson(data)], { type: 'application/json' }), name: `${base}.json` };
    case 'png':
      return { blob: await labPng(root, s, caption), name: `${base}.png` };
    case 'svg': {
      const svg = labToSvg({ config, runs: s.runs, pal: imagePalette(root), caption });
      return { blob: new Blob([svg], { type: 'image/svg+xml' }), name: `${base}.svg` };
    }
    default:
      throw new Error(`unknown export ${kind}`);
  }
}

/**
 * Loading model files into `session` (its settings into `store`), one after another, the last one
 * picked winning: a file picked while another loads waits for it (two loads at once would each take
 * the other's for a reset), and one that a later pick overtook before it began is dropped unread.
 * say(text) and refuse(text) report how each went.
 */
function createModelLoader({ session, store, papers, say, refuse }) {
  let picked = 0;
  let loads = Promise.resolve();

  async function loadOne(f, mine) {
    const name = String(f.name ?? 'the file').slice(0, 80);
    try {
      if (tooLarge(f.size)) throw new ModelFileError(tooLarge(f.size), 'file');
      const model = decodeModel(new Uint8Array(await f.arrayBuffer()));
      if (mine !== picked) return; // a later file was picked while this one was read
      await session.loadModel(model);
      store.set(model.config);
      // a claim's file: its claim at its setting (without resetting the runs just loaded); a file
      // that names no claim (one from before the setting) keeps the lab's claim, at the quick setting
      if (papers) papers.choose(model.claim !== 'none' ? model.claim : papers.id(), model.setting);
      // a later file waiting to load keeps its "Loading" line until it has
      if (mine === picked)
        say(
          `Loaded ${name}: ${model.runs.map((r) => `${archLabel(r.arch)} at step ${r.logs.at(-1)?.step ?? 0}`).join(', ')}`,
        );
    } catch (e) {
      refuse(`Not loaded: ${name}: ${e.message}. The current run is kept.`);
    }
  }

  /** Reads, checks and loads a model file; any refusal is named and the run on the page is kept. */
  return function loadFile(f) {
    const mine = ++picked;
    say(`Loading ${String(f.name ?? 'the file').slice(0, 80)}\u2026`);
    const load = () => (mine === picked ? loadOne(f, mine) : undefined);
    loads = loads.then(load, load);
    return loads;
  };
}

/**
 * What a loaded file's settings are against the lab's: the same, or the fields they differ in (a
 * field of a file of several settings differs when none of them has the lab's value).
 */
function settingsAgainst(theirs, ours) {
  const differ = Object.keys(ours).filter(
    (k) =>
      k !== 'arch' &&
      theirs.some((c) => k in c) &&
      theirs.every((c) => k in c && JSON.stringify(c[k]) !== JSON.stringify(ours[k])),
  );
  return differ.length ? `its settings differ from the lab\u2019s in ${differ.join(', ')}` : 'the lab\u2019s settings';
}

/**
 * Reads the JSON lines of a run trained elsewhere from file `f` and hands its runs to `show`;
 * say(text) and refuse(text) report how it went (a refusal names the file and keeps what is drawn).
 */
async function loadRunFile(f, { store, show, say, refuse }) {
  const name = String(f.name ?? 'the file').slice(0, 80);
  try {
    const big = trainJsonTooLarge(f.size);
    if (big) throw new ModelFileError(big, 'file');
    const { configs, runs } = decodeTrainJson(await f.text());
    show(runs);
    const ran = runs.filter((r) => r.logs.length);
    say(
      `Loaded ${name}: ${ran.map((r) => `${r.label} to step ${r.logs.at(-1).step}`).join(', ')}, ` +
        `drawn beside the lab\u2019s runs (${settingsAgainst(configs, store.get())})`,
    );
  } catch (e) {
    refuse(`Not loaded: ${name}: ${e.message}. What is drawn is kept.`);
  }
}

/** The model's file: the session's saved model with the page's link and `claim` (claimOf's), and its file name. */
async function savedModelFile(session, claim) {
  const s = session.snapshot();
  const model = await session.saveModel();
  const bytes = encodeModel({
    ...model,
    link: linkOf(model.config, claim),
    claim: claim?.id ?? 'none',
    setting: claim?.setting ?? 'quick',
  });
  return { bytes, name: `${labFileBase(s.config, s.runs)}${MODEL_EXT}` };
}

export function createLabTools({ root, session, store, engine = null, papers = null, onLoadedRuns = () => {} }) {
  const { box, exports, pytorch, save, load, file, loadRun, runFile, status, problem } = toolsLayout();
  const usable = (b) => b.getAttribute('aria-disabled') !== 'true';
  const say = (text) => {
    problem.hidden = true;
    status.textContent = text;
  };
  const refuse = (text) => {
    status.textContent = '';
    problem.textContent = text;
    problem.hidden = false;
  };

  for (const b of exports)
    b.addEventListener('click', async () => {
      if (!usable(b)) return;
      try {
        const { blob, name } = await makeExport(b.dataset.export, root, session.snapshot(), claimOf(papers));
        download(blob, name, blob.type, box);
        say(`Saved ${name}`);
      } catch (e) {
        refuse(`Export failed: ${e.message}`);
      }
    });

  // The script of the settings as they are, from their initial weights: no step needed.
  let exporting = false;
  pytorch.addEventListener('click', async () => {
    if (exporting) return;
    exporting = true;
    say('Writing the PyTorch script\u2026');
    try {
      const { text, name } = await pytorchScript(engine, store.get(), papers?.specs() ?? null, papers?.id() ?? 'none');
      download(new Blob([text], { type: PYTORCH_TYPE }), name, PYTORCH_TYPE, box);
      say(`Saved ${name} (${Math.ceil(text.length / 1024)} kB): run it with python3 ${name}`);
    } catch (e) {
      refuse(`No PyTorch script: ${e.message}.`);
    } finally {
      exporting = false;
    }
  });

  save.addEventListener('click', async () => {
    if (!usable(save)) return;
    try {
      const { bytes, name } = await savedModelFile(session, claimOf(papers));
      download(new Blob([bytes], { type: 'application/octet-stream' }), name, 'application/octet-stream', box);
      say(`Saved ${name} (${Math.ceil(bytes.length / 1024)} kB)`);
    } catch (e) {
      refuse(`Not saved: ${e.message}`);
    }
  });

  const loadFile = createModelLoader({ session, store, papers, say, refuse });
  load.addEventListener('click', () => {
    if (usable(load)) file.click();
  });
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    file.value = '';
    if (f) await loadFile(f);
  });

  loadRun.addEventListener('click', () => runFile.click());
  runFile.addEventListener('change', async () => {
    const f = runFile.files?.[0];
    runFile.value = '';
    if (f) await loadRunFile(f, { store, show: onLoadedRuns, say, refuse });
  });

  return {
    el: box,
    loadFile,
    update(s) {
      const has = s.runs.some((r) => r.logs.length > 0);
      for (const b of exports) setAttr(b, 'aria-disabled', String(!has));
      setAttr(save, 'aria-disabled', String(!(has && SAVABLE.includes(s.state))));
      setAttr(load, 'aria-disabled', String(BUSY.includes(s.state)));
    },
    destroy() {
      box.remove();
    },
  };
}
