// The training lab view: the settings (controls.js, from the training field
// table), Start / Pause / Step / Reset, the progress, the readout, the line
// charts on one step axis and, per architecture, layer x step heatmaps of the
// gradient norm and the update ratio, and for BatchNorm runs the distance of
// each BatchNorm layer's batch statistics from its running ones
// (heat-panels.js). Each architecture
// trains in its own trainer on the page's pool of engine workers (session.js);
// the view draws at most once a frame, whatever the workers answer in between,
// each part of a frame in its own animation frame (createLabRender). The lab
// page (pages/train.js) mounts it.
//
//   const v = mountTrainer(root, { state, theme, engine, slots, onUpdate });
//   v.setConfig(config); v.showNotices(notices); v.destroy();
//
// root: the element to fill. state: {config, notices, preset, setting} (train/link.js's trainFromHash;
// preset: a claim's id of claims/lab/, named as the link names it; setting: its setting, 'quick'
// or 'deep', which the reader chooses only where `chooseSetting` is true: the lab page; an embed
// keeps the quick one). theme: shared/theme.js's
// createTheme(). engine: the page's engine client (engine/client.js), whose trainer(config) makes a trainer.
// slots: {notice, status, form}: the page's places for the notices, the
// status line and the settings. onUpdate(snapshot) after every drawn frame:
// what is on screen, exactly as the engine gave it (the page's test hook).
// An embed (embed/train.js) also gives `controls` ({show, lock} for
// controls.js), `claims` (the claims' buttons: 'live', 'fixed' or
// 'hidden', paper-panel.js), `noticeTable` (the table its notices' fields are
// of) and `noticeSource` (where its settings came from).
import { createStore } from '../shared/state.js';
import { el, setAttr, setText } from '../shared/dom.js';
import { byTheme, heatColours, palette, themeColor } from '../shared/theme.js';
import { showNotices } from '../shared/notice.js';
import { LAB_KEYS, LAB_TABLE, defaultLabConfig } from '../shared/train-fields.js';
import { TRAIN_LINK_TABLE } from './link.js';
import { createSession, runSpecs } from './session.js';
import { createTrainControls } from './controls.js';
import { chartRuns, createLineCharts } from './charts.js';
import { createTrainReadout } from './readout.js';
import { STATE_WORDS, createProgress } from './progress.js';
import { createHeatPanels } from './heat-panels.js';
import { lineSeries, nonfiniteSteps, seedsRun } from './series.js';
import { archLabel } from '../shared/archs.js';
import { createLabTools } from './tools.js';
import { createLabNumbers } from './numbers.js';
import { looksOf } from './looks.js';
import { createPaperClaims } from './paper-panel.js';
import { createAfterTraining } from './lesion-chart.js';
import { createLearned } from './learned.js';
import { createNormScatter } from './norm-scatter.js';
import { createComparison } from './comparison.js';
import { createSeedPick } from './seed-pick.js';
import { FAR_ABOVE_TEXT, farAboveChance, runEnd } from '../claims/lab/common.js';
import { significant } from '../shared/format.js';

/**
 * The line charts: [key, title, what it shows, in the figure's caption]. The last two are shown only
 * while some run logs their number (charts.js); the readout gives the first three's numbers at a
 * step, the numbers table every chart's.
 */
const CHARTS = [
  ['loss', 'Loss', 'held-out (thick) and training (thin), log scale; grey: the task\u2019s chance and optimal losses'],
  ['grad', 'Gradient norm', 'of every parameter together, before clipping, log scale'],
  ['lr', 'Learning rate', 'of each update, after warmup and the schedule'],
  [
    'logit',
    'Largest attention logit',
    'of the step\u2019s batch: the largest |q\u00b7k|/\u221ad\u2095 over blocks and heads, log scale',
  ],
  [
    'gain',
    'Composite gain of the stream mixing',
    'the mixing matrices multiplied over depth: largest absolute row sum (forward, thick), column sum (backward, thin); grey: 1',
  ],
];

/** The charts whose numbers the readout does not give (the numbers table does), and the line keys each reports. */
const NOTED = { logit: ['max_logit'], gain: ['hc_gain_fwd', 'hc_gain_bwd'] };

/** The charts printed side by side in one row under the gradient norm (print.css), in order. */
const ROW_CHARTS = ['lr', 'logit', 'gain'];

/** Which buttons do something in each state of the session. */
const ENABLED = {
  idle: ['start', 'step'],
  error: ['start', 'step'],
  starting: ['reset'],
  running: ['pause', 'reset'],
  pausing: ['reset'],
  paused: ['start', 'step', 'reset'],
  stepping: ['reset'],
  done: ['reset'],
};

/** The least time between two frames drawn for the workers' answers, in ms. */
const ENGINE_FRAME_MS = 100;

/**
 * After a drawing for the workers' answers, the main thread waits this many times what the drawing
 * cost it (drawCost) before the next: drawing then takes at most a sixth of the main thread's time.
 * The workers train on the same cores (one worker per core), so each millisecond the page draws is
 * one a worker waits, the more so on a slower machine, where the drawing costs more and comes less
 * often.
 */
const ENGINE_DRAW_SHARE = 5;

/** The longest that wait, in ms: a run in training is drawn again at least this often. */
const ENGINE_DRAW_MAX_MS = 1000;

/** A refusal of the engine as one line: its message, which names the field. */
const refusalText = (e) => (e?.message ? e.message : String(e));

// ---- layout

/** The run bar: Start / Pause / Step / Reset and the progress, why Start waits, and the run's error. */
function createRunBar() {
  const button = (key, text) =>
    el('button', { type: 'button', id: `train-${key}`, class: `run-button run-${key}` }, text);
  const buttons = {
    start: button('start', 'Start'),
    pause: button('pause', 'Pause'),
    step: button('step', 'Step'),
    reset: button('reset', 'Reset'),
  };
  buttons.start.classList.add('primary');
  const progressBox = el('div', { class: 'run-progress' });
  const progress = createProgress(progressBox);
  const runError = el('p', { class: 'field-error run-error', role: 'alert', hidden: true });
  // why Start and Step wait: a setting whose box holds a value that was not taken (named beside it
  // too, but on a phone the settings may be closed behind "All settings")
  const blockedNote = el('p', { class: 'hint run-blocked', id: 'train-blocked', hidden: true });
  buttons.start.setAttribute('aria-describedby', 'train-blocked');
  buttons.step.setAttribute('aria-describedby', 'train-blocked');
  const nodes = [
    el(
      'div',
      { class: 'run-bar', role: 'group', 'aria-label': 'Run' },
      el('div', { class: 'run-buttons' }, Object.values(buttons)),
      progressBox,
    ),
    blockedNote,
    runError,
  ];
  return { buttons, progress, runError, blockedNote, nodes };
}

/**
 * The line charts' figures: {els: {key: the chart's box}, notes: {loss: the warning over the loss
 * chart, and per NOTED chart the note of its non-finite values}, nodes}. The charts of ROW_CHARTS are
 * in one box, a row on paper.
 */
function lineChartFigures() {
  const els = {};
  const figures = [];
  const notes = { loss: el('span', { class: 'chart-note', id: 'train-diverged' }) };
  for (const [key, title, sub] of CHARTS) {
    const where = NOTED[key]
      ? 'The numbers table (Show numbers) gives its numbers at each logged step; the arrow keys move the readout\u2019s step.'
      : 'The readout above gives the numbers at a step; the arrow keys move it.';
    els[key] = el('div', {
      id: `train-chart-${key}`,
      class: `chart train-chart train-chart-${key}`,
      role: 'img',
      tabindex: 0,
      'aria-keyshortcuts': 'ArrowLeft ArrowRight Home End Escape',
      'aria-label': `Chart: ${title.toLowerCase()} per step, ${sub}. ${where}`,
    });
    if (NOTED[key]) notes[key] = el('span', { class: 'chart-note', id: `train-${key}-note` });
    figures.push(
      el(
        'figure',
        { class: 'chart-figure', id: `train-figure-${key}`, hidden: Boolean(NOTED[key]) },
        el(
          'figcaption',
          {},
          el('span', { class: 'chart-title' }, title),
          ' ',
          el('span', { class: 'chart-sub' }, sub),
          notes[key] ?? null,
        ),
        els[key],
      ),
    );
  }
  const row = (f) => ROW_CHARTS.includes(f.id.replace('train-figure-', ''));
  const nodes = [...figures.filter((f) => !row(f)), el('div', { class: 'train-chart-row' }, figures.filter(row))];
  return { els, notes, nodes };
}

/**
 * The note over a NOTED chart (`keys`: its line keys) for the runs `archs` it draws: each run with a
 * value that is not finite, its first such step and how many ('' when every value is finite).
 */
function nonfiniteNote(data, archs, looks, keys) {
  const out = [];
  for (const key of keys)
    for (const n of nonfiniteSteps(data, archs, key)) {
      const what = keys.length > 1 ? ` (${key.endsWith('_bwd') ? 'backward' : 'forward'})` : '';
      const more = n.count > 1 ? ` and at ${n.count - 1} later logged step${n.count > 2 ? 's' : ''}` : '';
      out.push(`${looks[n.key]?.label ?? n.key}${what}: not finite at step ${n.step}${more}`);
    }
  return out.join('; ');
}

/**
 * The panels under the run bar, in order: the readout, the line charts, the comparison of the reader's
 * runs (comparison.js), the claim's `paperPanel`, after training and the heatmaps (heat-panels.js).
 * `root`: whose theme (`theme`, the view's) colours them.
 */
function createLabPanels(root, theme, paperPanel) {
  const readoutBox = el('div', { class: 'readout train-readout', id: 'train-readout' });
  const readout = createTrainReadout(readoutBox);
  const figures = lineChartFigures();
  // ---- after training (lesion-chart.js): the lesion study and the contributions, when every run has
  // finished; then (learned.js) DenseFormer's averaging weights, Attention Residuals' read weights and
  // the ReZero and LayerScale gates
  const afterBox = el(
    'section',
    { class: 'after-training', id: 'train-after', 'aria-labelledby': 'train-after-title' },
    el('h3', { class: 'heat-title', id: 'train-after-title' }, 'After training: lesions and contributions'),
  );
  // a comparison of the reader's own runs: one line from its numbers (comparison.js)
  const comparisonBox = el('p', { class: 'caption train-comparison', id: 'train-comparison' });
  const comparison = createComparison(comparisonBox);
  const pal = byTheme(theme, () => palette(root));
  const after = createAfterTraining(afterBox, { palette: pal });
  // ---- heatmaps: one section per metric, its legend, one map per architecture
  const colours = byTheme(theme, () => heatColours(root));
  const learned = createLearned(afterBox, { colours });
  // the DyT claim's panel, after training: Pre-LN's LayerNorm input against output (norm-scatter.js)
  const normScatter = createNormScatter(paperPanel, { palette: pal });
  const heat = createHeatPanels({ colours });
  // on several seeds: which seed the heatmaps show (seed-pick.js); onChange is the view's, set once it has frames
  const seedPick = createSeedPick({ onChange: () => seedPick.onChange?.() });
  const nodes = [readoutBox, ...figures.nodes, comparisonBox, paperPanel, afterBox, seedPick.el, ...heat.sections];
  return { nodes, readout, figures, comparison, after, learned, normScatter, heat, seedPick };
}

// A focused chart moves the readout's step with the arrow keys, Home and End; Escape goes back to the latest.
const STEP_KEYS = ['ArrowLeft', 'ArrowRight', 'Home', 'End', 'Escape'];

/** The step keys on every chart of `els`: `count()` steps, `at()` the step shown (null: the latest), `show(i)`. */
function moveStepByKeys(els, { count, at, show }) {
  for (const box of Object.values(els))
    box.addEventListener('keydown', (e) => {
      const n = count();
      if (!STEP_KEYS.includes(e.key) || !n) return;
      e.preventDefault();
      const from = at() ?? n - 1;
      const to = { ArrowLeft: from - 1, ArrowRight: from + 1, Home: 0, End: n - 1, Escape: null }[e.key];
      show(to === null ? null : Math.max(0, Math.min(n - 1, to)));
    });
}

// ---- the run's state on screen

/** The buttons, why Start waits, the settings' lock, the status line and the run's error, for the session's `snap`. */
function showRunState(snap, { bar, controls, statusEl }) {
  const { buttons, blockedNote, runError } = bar;
  const on = ENABLED[snap.state] ?? [];
  const reasons = controls.reasons();
  const blocked = reasons.length > 0;
  for (const [key, b] of Object.entries(buttons)) {
    const ok = on.includes(key) && !(blocked && (key === 'start' || key === 'step'));
    setAttr(b, 'aria-disabled', String(!ok));
  }
  const waits = blocked && (on.includes('start') || on.includes('step'));
  setText(blockedNote, waits ? `Start waits until these settings are put right: ${reasons.join(' ')}` : '');
  if (blockedNote.hidden === waits) blockedNote.hidden = !waits;
  controls.lock(snap.state !== 'idle' && snap.state !== 'error');
  // every frame calls this: what reads the same is not written again (a live region would be announced again)
  setAttr(statusEl, 'data-state', { error: 'error', idle: 'ready', done: 'ready' }[snap.state] ?? 'computing');
  const failed = (snap.all ?? snap.runs).filter((r) => r.error);
  setText(statusEl, snap.state === 'done' && failed.length ? 'done, with an error' : STATE_WORDS[snap.state]);
  if (snap.state === 'error' && snap.error) {
    const field = Object.hasOwn(LAB_TABLE, snap.error.field) ? snap.error.field : null;
    if (!field || !controls.showError(field, refusalText(snap.error))) {
      setText(runError, `Not started: ${refusalText(snap.error)}`);
      runError.hidden = false;
    } else runError.hidden = true;
  } else {
    runError.hidden = !failed.length;
    const name = (r) =>
      `${r.label ?? archLabel(r.arch)}${r.seeds?.length > 1 || r.seedIndex ? ` (seed ${r.seed})` : ''}`;
    setText(runError, failed.map((r) => `${name(r)} stopped: ${refusalText(r.error)}`).join(' '));
  }
}

/**
 * A click on a button of the run bar's `buttons` runs it on the session, unless the button is disabled.
 * Start and Step train the settings on screen (of `store`, with the claim's runs of `papers`): never
 * while a box of `controls` holds a value that was not taken (then `refresh()` shows why they wait).
 */
function wireRunButtons(buttons, { session, controls, store, papers, refresh }) {
  const settingsTaken = () => !controls.invalid().length;
  const train = (how) => {
    if (!settingsTaken()) return refresh();
    controls.clearErrors();
    return session[how](store.get(), papers.specs());
  };
  const actions = {
    start: () => train('start'),
    pause: () => session.pause(),
    step: () => train('step'),
    reset: () => session.reset(),
  };
  const usable = (key) => buttons[key].getAttribute('aria-disabled') !== 'true';
  for (const [key, b] of Object.entries(buttons))
    b.addEventListener('click', () => {
      if (!usable(key)) return;
      actions[key]();
    });
}

/**
 * The runs of the numbers table: the session's, or on several seeds every seed's, each named and
 * keyed by its seed (reading through to the run itself, so it stays current); the same list while
 * the session's is.
 */
function seedRowsOf() {
  let of = null;
  let list = [];
  return (snap) => {
    if (!snap.runs.some((r) => (r.seeds?.length ?? 1) > 1)) return snap.runs;
    if (of !== snap.all) {
      of = snap.all;
      list = snap.all.map((r) =>
        Object.create(r, {
          key: { value: `${r.key}_seed_${r.seed}` },
          label: { value: `${r.label ?? archLabel(r.arch)}, seed ${r.seed}` },
        }),
      );
    }
    return list;
  };
}

/**
 * `looks` with each run on several seeds named by its first seed ("Pre-LN, seed 20"): what the
 * comparison, the lesions and the learned weights show is that seed's run.
 */
function firstSeedLooks(runs, looks) {
  if (!runs.some((r) => (r.seeds?.length ?? 1) > 1)) return looks;
  const out = { ...looks };
  for (const r of runs) {
    const key = r.key ?? r.arch;
    if (out[key]) out[key] = { ...out[key], label: `${out[key].label}, seed ${r.seed}` };
  }
  return out;
}

// ---- the frames

/**
 * When the drawing (`drawingOf()`, createLabRender's) renders: at the next frame for what the reader does,
 * at most once every ENGINE_FRAME_MS for the workers' answers and no sooner than ENGINE_DRAW_SHARE times
 * the last drawing's cost (its cost(), ms; at most ENGINE_DRAW_MAX_MS) after its end, and for them never while it is busy() (the
 * frames of the last drawing still to come): `idle()` says they are drawn, and a drawing the workers
 * asked for meanwhile follows. A new state of the session (started, running, done, paused) is drawn at
 * the next frame the drawing under way leaves free, without the wait: the buttons answer the reader's
 * press, and the verdict is what the reader waits for. A
 * drawing lays out and paints every chart and heatmap, and at the display's rate it would keep the
 * main thread busy and take a core from the workers; begun over one still under way, the two
 * would share frames.
 */
function createFrameScheduler(drawingOf) {
  // the drawing, once made (it is made after its scheduler)
  const drawing = {
    render: () => drawingOf().render(),
    busy: () => drawingOf().busy(),
    cost: () => drawingOf().cost(),
  };
  let frame = 0;
  let lastRender = -Infinity;
  let engineTimer = 0;
  let destroyed = false;
  let lastIdle = -Infinity; // when the last drawing's last frame was drawn
  let lastState; // the session's state the workers' last change was in
  let waiting = false; // the workers asked for a drawing while drawing.busy()
  let waitingPrompt = false; // ... and that drawing is of a new state
  const now = () => {
    frame = 0;
    lastRender = performance.now();
    drawing.render();
  };
  const schedule = () => {
    if (!destroyed) frame ||= requestAnimationFrame(now);
  };
  // a drawing for the workers: `prompt` (a new state) at the next frame the last drawing leaves free
  const ask = (prompt) => {
    if (destroyed || frame) return;
    if (engineTimer && !prompt) return;
    if (drawing.busy()) {
      waiting = true;
      waitingPrompt ||= prompt;
      return;
    }
    const rest = lastIdle + Math.min(ENGINE_DRAW_SHARE * drawing.cost(), ENGINE_DRAW_MAX_MS);
    const wait = Math.max(lastRender + ENGINE_FRAME_MS, rest) - performance.now();
    if (prompt && engineTimer) {
      clearTimeout(engineTimer);
      engineTimer = 0;
    }
    if (wait <= 0 || prompt) schedule();
    else
      engineTimer = setTimeout(() => {
        engineTimer = 0;
        if (drawing.busy()) waiting = true;
        else schedule();
      }, wait);
  };
  return {
    /** Draws now. */
    now,
    /** Draws at the next frame (what the reader does). */
    schedule,
    /** Draws for the workers' answers, the session in `state`: a new state (started, done, paused) without the wait. */
    fromEngine(state) {
      const prompt = state !== lastState;
      lastState = state;
      ask(prompt);
    },
    /** The last drawing's frames are drawn: the one the workers asked for meanwhile, if any. */
    idle() {
      lastIdle = performance.now();
      if (!waiting) return;
      const prompt = waitingPrompt;
      waiting = waitingPrompt = false;
      ask(prompt);
    },
    destroy() {
      destroyed = true;
      cancelAnimationFrame(frame);
      clearTimeout(engineTimer);
    },
  };
}

/**
 * fn(config, claim, setting) after every change of the settings of `store` or of the claim of
 * `papers` (or its setting); returns its off.
 */
function onSettings(store, papers, fn) {
  const offStore = store.subscribe(() => fn(store.get(), papers.id(), papers.setting()));
  const offClaim = papers.onChange(() => fn(store.get(), papers.id(), papers.setting()));
  return () => {
    offStore();
    offClaim();
  };
}

/** An engine without trainers (a build from before them) refuses Start with a message, never a crash. */
const trainersOf = (engine) =>
  typeof engine?.trainer === 'function'
    ? engine
    : { trainer: () => Promise.reject(new Error('this build of the engine cannot train: it has no trainer')) };

/** The runs before a run exists: one per arch, or the claim's of `papers` (with its overrides). */
function pendingRuns(config, papers) {
  let specs;
  try {
    specs = runSpecs(config, papers.specs());
  } catch {
    specs = runSpecs(config);
  }
  return specs.map((s) => ({ ...s, steps: s.config.steps, logs: [], firstNonfinite: null, lesion: null }));
}

/**
 * The warning over the loss chart: each run that diverged, or whose loss rose far above chance, and
 * of a run on several seeds (`seeded`: its seeds, by key) each seed that did. A run that stopped
 * once trained is said in the readout above and over its heatmaps.
 */
function lossNoteText(archs, looks, ends, far, seeded = {}) {
  const out = [];
  for (const key of archs) {
    const seeds = seeded[key];
    if (!seeds || seeds.length < 2) continue;
    const label = looks[key].label;
    for (const s of seeds) {
      const end = runEnd(s);
      if (end?.kind === 'diverged') out.push(`${label}: seed ${s.seed} diverged at step ${end.step}`);
      const f = farAboveChance(s);
      if (f)
        out.push(
          `${label}: seed ${s.seed}: ${FAR_ABOVE_TEXT} (${significant(f.loss, 3)} at step ${f.step}, chance ${significant(f.chance, 3)})`,
        );
    }
  }
  for (const key of archs) {
    if ((seeded[key]?.length ?? 1) > 1) continue; // its seeds are named above
    const label = looks[key].label;
    const end = ends[key];
    if (end?.kind === 'diverged') out.push(`${label} diverged at step ${end.step} (dashed line)`);
    const f = far[key];
    if (f)
      out.push(
        `${label}: ${FAR_ABOVE_TEXT} (${significant(f.loss, 3)} at step ${f.step}, chance ${significant(f.chance, 3)})`,
      );
  }
  return out.join('; ');
}

/** The runs as the page's test hook holds them, by key. */
function hookRuns(runs, looks) {
  return Object.fromEntries(
    runs.map((r) => [
      r.key ?? r.arch,
      {
        stepsDone: r.stepsDone,
        stopped: r.stopped,
        firstNonfinite: r.firstNonfinite,
        task: r.task,
        logs: r.logs,
        arch: r.arch,
        label: looks[r.key ?? r.arch].label,
        config: r.config,
        lesion: r.lesion,
        dwaWeights: r.dwaWeights ?? null,
        attnResWeights: r.attnResWeights ?? null,
        gates: r.gates ?? null,
        // every seed's run, the first (this one) first
        seeds: (r.seeds ?? [r]).map((x) => ({
          seed: x.seed,
          stepsDone: x.stepsDone,
          stopped: x.stopped,
          firstNonfinite: x.firstNonfinite,
          logs: x.logs,
          lesion: x.lesion,
        })),
      },
    ]),
  );
}

/**
 * What a drawing of several frames costs the main thread: begin() at its first frame; timed(fn, last)
 * wraps a frame's part, fn(arg), counting from its start until that frame is painted (a message
 * posted then is handled once the frame's style, layout and paint are done); cost(): the ms of the
 * last drawing whose `last` part was painted.
 */
function createDrawCost() {
  let sum = 0;
  let last = 0;
  return {
    begin: () => (sum = 0),
    timed:
      (fn, isLast = false) =>
      (arg) => {
        const t0 = performance.now();
        fn(arg);
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          ch.port1.close();
          sum += performance.now() - t0;
          if (isLast) last = sum;
        };
        ch.port2.postMessage(null);
      },
    cost: () => last,
  };
}

/**
 * The lab's rendering of the session's snapshot, over a few frames: the loss chart, the readout and
 * the run's state first (showState), then the gradient-norm chart and the heatmaps, then the
 * learning-rate chart (while the heatmaps draw), then the numbers, the claim's verdict and the
 * comparison, then the after-training charts and onUpdate (the page's test hook): each frame lays
 * out and rasterizes a part of the page, not all of it. `hover()`: the step
 * the readout shows (null: the latest); `onIdle()` after the last of a render's frames. {render,
 * busy, cancel, cost}: busy() while a render's frames are still to come, cancel drops them, cost() the
 * main thread's ms of the last render drawn to its end (each frame's part until that frame is painted).
 */
function createLabRender({ session, store, papers, theme, hover, showState, onUpdate, onIdle, views, loadedRuns }) {
  const { charts, readout, notes, progress, tools, heat, numbers, comparison, after, learned, normScatter, seedPick } =
    views;
  let rest = 0; // the next frame of a render (renderRest, renderLast, renderAfter)
  const seedRows = seedRowsOf();
  let frames = 0;
  const { timed, begin, cost } = createDrawCost();

  function render() {
    begin();
    timed(renderFirst)();
  }

  function renderFirst() {
    const snap = session.snapshot();
    const config = snap.config ?? store.get();
    const runs = snap.runs.length ? snap.runs : pendingRuns(config, papers);
    // the line charts and the readout draw the runs loaded from a file (a PyTorch run's JSON) beside the lab's
    const loaded = loadedRuns();
    // a run on several seeds: its median over them, with a band (series.js's seedsRun)
    const lined = [...runs.map(seedsRun), ...loaded];
    const seeded = Object.fromEntries(runs.map((r) => [r.key ?? r.arch, r.seeds ?? null]));
    const archs = lined.map((r) => r.key ?? r.arch);
    const looks = looksOf([...runs, ...loaded]);
    const lineLooks = looksOf(lined);
    const data = lineSeries(lined);
    const diverged = lined
      .filter((r) => r.firstNonfinite !== null)
      .map((r) => ({ arch: r.key ?? r.arch, colour: r.arch, step: r.firstNonfinite }));
    // how each run ended before its last step, and a loss far above chance (claims/lab/common.js)
    const ends = Object.fromEntries(lined.map((r) => [r.key ?? r.arch, runEnd(r)]));
    const far = Object.fromEntries(lined.map((r) => [r.key ?? r.arch, farAboveChance(r)]));
    const task = snap.runs[0]?.task ?? loaded[0]?.task ?? null;
    const hoverIndex = hover();
    const index = hoverIndex !== null && hoverIndex < data.x.length ? hoverIndex : null;
    const xMax = Math.max(config.steps, ...loaded.map((r) => r.logs.at(-1)?.step ?? 0));

    charts.update({ data, archs, looks: lineLooks, xMax, task, diverged, theme: theme.current() });
    readout.set({ data, archs, looks: lineLooks, ends, far, index });
    setText(notes.loss, lossNoteText(archs, looks, ends, far, seeded));
    for (const [key, keys] of Object.entries(NOTED))
      setText(notes[key], nonfiniteNote(data, chartRuns(key, archs, data), lineLooks, keys));
    progress.update(snap.progress, snap.state);
    showState(snap);
    tools.update(snap);
    // The rest in the next frame: one frame drawing everything would be one task
    // long enough to hold up the page (a pointer, a key) while it trains.
    cancelAnimationFrame(rest);
    rest = requestAnimationFrame(() =>
      timed(renderRest)({ snap, config, runs, lined, archs, looks, data, index, ends }),
    );
  }

  /** The next line chart and the heatmaps of render()'s frame; then the rest of the charts, the numbers, the claim's verdict and after training. */
  function renderRest({ snap, config, runs, lined, archs, looks, data, index, ends }) {
    rest = 0;
    const step = index === null ? null : data.x[index];
    // on several seeds, each run's seed the menu picks (the median seed unless another), named so
    const picked = seedPick.pick(runs, looks);
    const heatEnds = picked.runs === runs ? ends : Object.fromEntries(picked.runs.map((r) => [r.key, runEnd(r)]));
    charts.drawNext();
    const { shown, scales, rows } = heat.update({
      runs: picked.runs,
      looks: picked.looks,
      config,
      ends: heatEnds,
      step,
    });
    // the numbers table, the claim's verdict and the after-training charts (three charts made when a run ends)
    // a frame after the heatmaps, which draw in the frame after their update: each new row lays the table out again
    rest = requestAnimationFrame(() => {
      timed(() => charts.drawNext())();
      rest = requestAnimationFrame(() =>
        timed(renderLast)({
          snap,
          config,
          archs,
          looks,
          shown,
          scales,
          rows,
          data:
            runs === snap.runs && lined.length === runs.length && !Object.keys(data.bands ?? {}).length
              ? data
              : undefined,
        }),
      );
    });
  }

  function renderLast({ snap, config, archs, looks, shown, scales, rows, data }) {
    const rowsOf = seedRows(snap);
    numbers.update(rowsOf, config, rowsOf === snap.runs ? data : undefined, papers.about());
    const verdictShown = papers.update({ runs: snap.runs, state: snap.state, config: snap.config ?? store.get() });
    const seedLooks = firstSeedLooks(snap.runs, looks);
    const comparisonShown = comparison.update({
      runs: snap.runs,
      looks: seedLooks,
      state: snap.state,
      claim: papers.id(),
    });
    // the after-training charts (three made when every run has ended) in a frame of their own, then the hook
    rest = requestAnimationFrame(() =>
      timed(renderAfter, true)({ snap, archs, looks, shown, scales, rows, verdictShown, comparisonShown }),
    );
  }

  function renderAfter({ snap, archs, looks, shown, scales, rows, verdictShown, comparisonShown }) {
    rest = 0;
    charts.drawAll();
    const seedLooks = firstSeedLooks(snap.runs, looks);
    const lesions = after.update({ runs: snap.runs, looks: seedLooks, state: snap.state, theme: theme.current() });
    const learnedShown = learned.update({ runs: snap.runs, looks: seedLooks, state: snap.state });
    const normScatterShown = normScatter.update({ runs: snap.runs, looks, state: snap.state, claim: papers.id() });
    frames++;
    onUpdate({
      state: snap.state,
      config: snap.config,
      progress: snap.progress,
      archs,
      runs: hookRuns(snap.runs, looks),
      loaded: loadedRuns().map((r) => ({ key: r.key, arch: r.arch, label: looks[r.key]?.label, source: r.source })),
      preset: papers.id(),
      setting: papers.setting(),
      verdict: verdictShown,
      comparison: comparisonShown,
      lesions,
      lesionPlot: after.plotted(),
      learned: learnedShown,
      learnedLegend: learned.legendTicks(),
      normScatter: normScatterShown,
      plotted: charts.plotted(),
      heatmaps: shown,
      heatRows: rows,
      scales,
      legends: heat.legends(),
      frames,
    });
    onIdle();
  }

  return { render, busy: () => rest !== 0, cancel: () => cancelAnimationFrame(rest), cost };
}

/**
 * The claims (paper-panel.js): their buttons and setting (`claimBar`, above the run bar) and their
 * panel (`paperPanel`, under the line charts), for the view's `store` and link `state`.
 */
function createClaims({ store, state, claims, chooseSetting, apply }) {
  const claimBar = el('div', { class: 'field train-presets', id: 'train-presets' });
  const paperPanel = el('section', { class: 'paper-panel', id: 'train-paper', 'aria-label': 'The claim' });
  const papers = createPaperClaims({
    bar: claimBar,
    panel: paperPanel,
    store,
    defaults: defaultLabConfig(),
    initial: state.preset,
    initialSetting: state.setting,
    chooseSetting,
    mode: claims,
    apply,
  });
  return { claimBar, paperPanel, papers };
}

export function mountTrainer(
  root,
  {
    state,
    theme,
    engine,
    slots = {},
    onUpdate = () => {},
    controls: shown = {},
    claims = 'live',
    chooseSetting = false,
    noticeTable,
    noticeSource,
  },
) {
  const store = createStore(state.config, { keys: LAB_KEYS });
  const notice = slots.notice ?? el('div', { class: 'notice', role: 'status' });
  const form = slots.form ?? el('form', { class: 'controls', 'aria-label': 'Settings', novalidate: true });
  const parts = [];
  if (!slots.notice) parts.push(notice);
  if (!slots.form) parts.push(form);
  const controls = createTrainControls({ form, store, ...shown });
  const statusEl = slots.status ?? el('p', { class: 'status', role: 'status' });
  if (!slots.status) parts.push(statusEl);
  // the frames of the view (createLabRender's, below)
  const frames = createFrameScheduler(() => draw);

  // ---- the run bar, and the claims (paper-panel.js): their buttons above the run bar, their
  // verdict under the line charts
  const bar = createRunBar();
  /** New settings (`claim` a claim's id or 'none', at `setting`): any run is reset first. */
  const setSettings = async (config, claim, setting = 'quick') => {
    await session.reset();
    controls.reset();
    papers.choose(claim, setting);
    store.set(config);
    frames.schedule();
  };
  const { claimBar, paperPanel, papers } = createClaims({ store, state, claims, chooseSetting, apply: setSettings });
  parts.push(claimBar, ...bar.nodes);

  // ---- the readout, the line charts, the comparison, the claim's verdict, after training and the heatmaps
  const { nodes, readout, figures, comparison, after, learned, normScatter, heat, seedPick } = createLabPanels(
    root,
    theme,
    paperPanel,
  );
  seedPick.onChange = () => frames.schedule();
  parts.push(...nodes);
  root.append(...parts);

  const pal = byTheme(theme, () => ({ ...palette(root), danger: themeColor('--danger', root) }));
  let hoverIndex = null;
  const charts = createLineCharts({
    els: figures.els,
    palette: pal,
    onCursor: (i) => {
      if (i === hoverIndex) return;
      hoverIndex = i;
      frames.schedule();
    },
  });
  // the runs loaded from a PyTorch script's JSON (tools.js), drawn beside the lab's until another file is loaded
  let loaded = [];
  moveStepByKeys(figures.els, {
    count: () => lineSeries([...session.snapshot().runs, ...loaded]).x.length,
    at: () => hoverIndex,
    show: (i) => charts.showIndex(i),
  });

  // ---- the session
  const session = createSession({ engine: trainersOf(engine), onChange: (snap) => frames.fromEngine(snap.state) });
  // ---- exports, the model file and the numbers (tools.js, numbers.js)
  const showLoaded = (runs) => {
    loaded = runs;
    frames.schedule();
  };
  const tools = createLabTools({ root, session, store, engine, papers, onLoadedRuns: showLoaded });
  bar.runError.after(tools.el);
  const numbersBox = el('div', { class: 'foot train-numbers' });
  root.append(numbersBox);
  const numbers = createLabNumbers(numbersBox);

  const showState = (snap) => showRunState(snap, { bar, controls, statusEl });
  const views = { charts, readout, notes: figures.notes, progress: bar.progress, tools, heat, numbers };
  const lab = { session, store, papers, theme, showState, onUpdate, hover: () => hoverIndex, loadedRuns: () => loaded };
  const more = { comparison, after, learned, normScatter, seedPick };
  const draw = createLabRender({ ...lab, onIdle: () => frames.idle(), views: { ...views, ...more } });

  // A value typed and not taken changes no setting, yet Start and Step wait until it is put right:
  // the buttons' state again, not a frame of every chart
  const refreshButtons = () => showState(session.snapshot());
  wireRunButtons(bar.buttons, { session, controls, store, papers, refresh: refreshButtons });

  let linkNotices = state.notices;
  const renderNotice = () =>
    showNotices(notice, linkNotices, { table: noticeTable ?? TRAIN_LINK_TABLE, source: noticeSource });
  renderNotice();
  // A new setting after a refusal: the refusal is of the old settings, so it goes, and the next Start asks again.
  store.subscribe(() => {
    if (session.state === 'error') {
      controls.clearErrors();
      session.reset();
    }
    frames.schedule();
  });
  form.addEventListener('input', refreshButtons);
  form.addEventListener('change', refreshButtons);
  const offTheme = theme.onChange(() => {
    charts.retheme(theme.current());
    heat.redraw();
    learned.redraw();
    normScatter.redraw();
    frames.schedule();
  });
  frames.now();

  return {
    store,
    controls,
    session,
    /** New settings from the outside (a link; `claim` a claim's id or 'none', at `setting`): any run is reset first. */
    setConfig: (config, claim = 'none', setting = 'quick') => setSettings(config, claim, setting),
    /** The claim's id, or 'none'. */
    preset: () => papers.id(),
    /** The claim's setting, 'quick' or 'deep'. */
    setting: () => papers.setting(),
    /** fn(config, claim, setting) after every change of the settings or of the claim (the page's link). */
    onSettings: (fn) => onSettings(store, papers, fn),
    showNotices(notices) {
      linkNotices = notices;
      renderNotice();
    },
    destroy() {
      frames.destroy();
      draw.cancel();
      offTheme?.();
      session.reset();
      charts.destroy();
      after.destroy();
      learned.destroy();
      normScatter.destroy();
      controls.destroy();
      form.removeEventListener('input', refreshButtons);
      form.removeEventListener('change', refreshButtons);
      tools.destroy();
      heat.destroy();
    },
  };
}
