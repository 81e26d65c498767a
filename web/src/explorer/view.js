// The explorer view: the controls, the status line, the readout (also the
// legend), the layer charts, the caption, the numbers and the export menu,
// computed by the engine and kept in step with a config store. The explorer
// page (pages/explorer.js), embed.html and <resnorm-explorer> all mount it; several can
// run on one page, each with its own lane of the page's one engine
// (engine/client.js: within a lane the latest request wins).
//
//   const v = mountExplorer(root, { state, siteUrl, theme, onPaint, ... });
//   v.setConfig(config); v.showNotices(notices); v.destroy();
//
// root: an element to fill (the page's charts section, or a shadow root's
// wrapper). state: {config, view, notices} from state.js. siteUrl: the site's
// base URL (links to the explorer). theme: shared/theme.js's createTheme().
// onPaint(snapshot, {paintedAt, timings}): after every paint, snapshot = {config,
// result, plotted, renders}, `plotted` holding the exact arrays the charts got;
// timings: what the paint's parts took (see `timings` below).
// Where the page has its own places, `slots` hands them in: notice, status,
// form (the controls go in there), tools (the export menu goes in there); the
// view makes any that is missing. `ids`, `text`, `sections` go to controls.js;
// `text.chartTitle(metric)` and `text.readoutHint` are nodes that replace the
// plain chart titles and add a hint under the readout. `foot` nodes are added
// after the export menu.
//
// A config the engine refuses as more than one call may compute (a RangeError
// with .field 'depth' and .max, the deepest that fits) is drawn at that depth,
// and the notice says what the asked depth needs. A computation still running
// after a second shows its time and a Cancel button beside the status line;
// Cancel stops the engine's worker (engine/client.js) and puts back the
// settings on screen, with a notice.
//
// Its parts: explorerLayout places the elements, createDisplay draws an
// answer (readout, charts, caption, numbers), createRunner asks the engine and
// keeps the answers in order (with createWaiting's time and Cancel), and
// createNoticeLine keeps the notice.
import { sharedEngine } from '../engine/client.js';
import { firstPaint } from './first-paint.js';
import {
  FIELDS,
  FIELDS_TABLE,
  configToHash,
  createStore,
  defaultConfig,
  sameConfig,
  shownValue,
  writeField,
} from '../shared/state.js';
import { el } from '../shared/dom.js';
import { palette } from '../shared/theme.js';
import { showNotices } from '../shared/notice.js';
import { createStatus } from '../shared/status.js';
import { fixed } from '../shared/format.js';
import { createControls, PAGE_IDS } from './controls.js';
import { createCharts } from './charts.js';
import { createReadout, tipNodes } from './readout.js';
import { renderCaption } from './caption.js';
import { createTable } from './table.js';
import { CHART_INFO } from './chart-info.js';
import { logOf, prepareChart, sqrtReference } from './series.js';
import { createExportMenu } from './export/menu.js';

/**
 * The view's elements in `root`, in page order, each of `slots` used in place
 * of its own: the notice, the form with the controls (when the view shows
 * any), the status line and the waiting box beside it, the readout box, a
 * figure per chart, the caption, the numbers' table and the foot with its
 * button. Returns them, and the controls (null without a form).
 */
function explorerLayout(root, { view, store, slots, ids, text, sections }) {
  const id = (name) => `${ids.prefix}${name}`;
  const parts = [];

  const notice = slots.notice ?? el('div', { class: 'notice', role: 'status' });
  if (!slots.notice) parts.push(notice);

  let controls = null;
  if (view.controls.length) {
    const form = slots.form ?? el('form', { class: 'controls', 'aria-label': 'Settings', novalidate: true });
    if (!slots.form) parts.push(form);
    controls = createControls({ form, store, show: view.controls, lock: view.lock, ids, text, sections });
  }
  const statusEl = slots.status ?? el('p', { class: 'status', role: 'status', 'data-state': 'loading' });
  if (!slots.status) {
    statusEl.textContent = 'loading the engine\u2026';
    parts.push(statusEl);
  }
  // Beside the status line while a computation takes more than a second.
  const pendingTime = el('span', { class: 'pending-time' });
  const cancelButton = el('button', { id: id('cancel'), type: 'button', class: 'secondary' }, 'Cancel');
  const pendingBox = el('div', { class: 'pending', hidden: true }, pendingTime, ' ', cancelButton);
  if (slots.status) statusEl.after(pendingBox);
  else parts.push(pendingBox);

  const readoutBox = el('div', { id: id('readout'), class: 'readout' });
  parts.push(readoutBox);
  const chartEls = {};
  for (const metric of view.charts) {
    const info = CHART_INFO[metric];
    const box = el('div', {
      id: id(`chart-${metric}`),
      class: 'chart',
      role: 'img',
      'aria-label': `${info.aria} The numbers are in the table under Show numbers.`,
    });
    chartEls[metric] = box;
    const title = text.chartTitle?.(metric) ?? [
      el('span', { class: 'chart-title' }, info.title),
      ' ',
      el('span', { class: 'chart-sub' }, info.sub),
    ];
    parts.push(el('figure', { class: 'chart-figure' }, el('figcaption', {}, title), box));
  }
  const caption = el('div', { id: id('caption'), class: 'caption' });
  if (view.caption) parts.push(caption);

  const numbersButton = el(
    'button',
    {
      id: id('show-numbers'),
      type: 'button',
      class: 'secondary',
      'aria-pressed': 'false',
      'aria-controls': id('numbers'),
    },
    'Show numbers',
  );
  const dataTable = el('table', { id: id('data-table'), class: 'data-table' });
  const numbersWrap = el('div', { id: id('numbers'), class: 'numbers-wrap visually-hidden' }, dataTable);
  const foot = el('div', { class: 'foot' }, numbersButton);
  parts.push(foot, numbersWrap);
  root.append(...parts);
  const waiting = { pendingBox, pendingTime, cancelButton };
  return {
    notice,
    controls,
    statusEl,
    waiting,
    readoutBox,
    chartEls,
    caption,
    numbersButton,
    dataTable,
    numbersWrap,
    foot,
  };
}

/**
 * The notice: the link's notices, and one of the view's own (`note`: what the
 * engine refused, or a cancellation) until a config other than note.config is shown.
 */
function createNoticeLine(notice, linkNotices, noticeSource) {
  let note = null; // {items, head, source, config}
  function render() {
    if (note) showNotices(notice, [...linkNotices, ...note.items], { source: note.source, head: note.head });
    else showNotices(notice, linkNotices, { source: noticeSource });
  }
  return {
    render,
    /** The view's own note, shown after the link's notices. */
    setNote(next) {
      note = next;
      render();
    },
    /** `config` is shown: a note about another config goes. */
    shown(config) {
      if (note && !sameConfig(config, note.config)) {
        note = null;
        if (!notice.hidden) render();
      }
    },
    /** The notices of new settings from the outside, in place of the last ones and of the note. */
    setLinkNotices(notices) {
      linkNotices = notices;
      note = null;
      render();
    },
    focusClose() {
      notice.querySelector('.notice-close')?.focus();
    },
  };
}

// A refusal as a notice item: the field, its value, and the engine's words after them.
function refusal(e, config) {
  const field = Object.hasOwn(FIELDS_TABLE, e.field) ? e.field : null;
  if (!field) return { field: null, value: '', reason: e.message };
  const value = writeField(field, config[field]);
  const prefix = `${field}: ${value} `;
  return {
    field,
    value: shownValue(value),
    reason: e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message,
  };
}

/** The note of a cancellation after `seconds`: what was asked that differs from `back`, and what is shown. */
function cancelledNote(seconds, asked, back, hadShown) {
  const changed = FIELDS.filter((k) => writeField(k, asked[k]) !== writeField(k, back[k]))
    .map((k) => `${k.replaceAll('_', ' ')} ${shownValue(writeField(k, asked[k]))}`)
    .join(', ');
  return {
    head: 'Computation cancelled:',
    source: null,
    config: back,
    items: [
      {
        field: null,
        value: '',
        reason:
          `stopped after ${fixed(seconds, 1)} s` +
          (changed ? ` (${changed})` : '') +
          (hadShown ? '; the charts show the settings before it' : '; the default settings are shown'),
      },
    ],
  };
}

// ---- waiting: after a second, the time so far and Cancel
const SLOW_MS = 1000;

/** The waiting box: start() when a request goes out, stop() when none is left; since() when it started (0: none). */
function createWaiting({ pendingBox, pendingTime }) {
  let waitingSince = 0; // when the oldest unanswered request was made; 0 when none
  let slowTimer = 0;
  let tickTimer = 0;
  return {
    since: () => waitingSince,
    start() {
      if (waitingSince) return;
      waitingSince = performance.now();
      slowTimer = setTimeout(() => {
        pendingBox.hidden = false;
        const tick = () => {
          pendingTime.textContent = `computing for ${fixed((performance.now() - waitingSince) / 1000, 1)} s`;
        };
        tick();
        tickTimer = setInterval(tick, 100);
      }, SLOW_MS);
    },
    stop() {
      clearTimeout(slowTimer);
      clearInterval(tickTimer);
      waitingSince = 0;
      if (pendingBox.hidden) return;
      pendingBox.hidden = true;
      pendingTime.textContent = ''; // no time left behind in the hidden box
    },
  };
}

/**
 * What is drawn: the readout, the charts and the numbers' table of `page`
 * (explorerLayout's), and paint(out, step) that fills them with an answer and
 * reports it to onPaint; current() is what is on screen: {out, prepared, archs, ref}.
 */
function createDisplay(root, page, { view, ids, text, theme, onPaint, alive }) {
  const pal = () => palette(root);
  let picking = false; // the readout slider is moving the cursor: not a pointer hover
  const readout = createReadout({
    root: page.readoutBox,
    prefix: ids.prefix,
    hint: text.readoutHint ?? null,
    onPick: (layer) => {
      picking = true;
      charts.showLayer(layer);
      picking = false;
    },
  });
  const charts = createCharts({
    els: page.chartEls,
    palette: pal,
    onCursor: (layer) => !picking && readout.hover(layer),
    onPin: (layer) => readout.pin(layer),
    layer: () => readout.layer(),
    tip: (metric, i) =>
      current ? tipNodes(current.prepared[metric], current.archs, i, metric === 'update' ? current.ref : null) : [],
  });
  const table = createTable({ table: page.dataTable, wrap: page.numbersWrap, button: page.numbersButton });
  let current = null; // what is on screen: {out, prepared, archs, ref}
  let renders = 0;

  // The parts of the last paint (ms), for the test hook and the benchmark:
  // requestMs from run() to the answer (a wait for a busy worker included),
  // computeMs the engine's own time in its worker (the slowest part of a split
  // request), transferMs the rest of the round trip (posting, copies, delivery),
  // prepareMs the series, drawMs the three charts (setData to drawn), textMs
  // the readout and the caption. A shipped first paint has only the last three.
  let timings = {};

  async function paint(out, step = null) {
    const t0 = performance.now();
    const archs = Object.keys(out.results);
    const L = out.config.depth;
    const ref = sqrtReference(L);
    const prepared = {
      grad: prepareChart('grad', out.results, archs),
      stream: prepareChart('stream', out.results, archs),
      update: prepareChart('update', out.results, archs, ref),
    };
    current = { out, prepared, archs, ref };
    const t1 = performance.now();
    const painted = charts.update({
      prepared,
      archs,
      depth: L,
      references: { update: logOf(ref) },
      theme: theme.current(),
    });
    const t2 = performance.now();
    readout.set({ prepared, archs, depth: L });
    if (view.caption) renderCaption(page.caption, current);
    const t3 = performance.now();
    await painted;
    const paintedAt = performance.now();
    timings = {
      ...(step && {
        requestMs: step.answered - step.asked,
        computeMs: step.ms,
        transferMs: step.roundTripMs - step.ms,
      }),
      prepareMs: t1 - t0,
      drawMs: t2 - t1 + (paintedAt - t3),
      textMs: t3 - t2,
    };
    table.update(current);
    publish(paintedAt);
  }

  function publish(paintedAt = performance.now()) {
    if (!alive() || !current) return;
    const { out, prepared } = current;
    const plotted = {};
    for (const m of charts.metrics) plotted[m] = { x: prepared[m].x, series: prepared[m].raw };
    onPaint({ config: out.config, result: out, plotted, renders: ++renders }, { paintedAt, timings });
  }

  return {
    charts,
    pal,
    paint,
    current: () => current,
    /** Recolours the charts in theme `t`, and reports the paint. */
    async retheme(t) {
      if (!current || !alive()) return;
      await charts.retheme(t);
      timings = {}; // a recolouring computed nothing
      publish();
    },
  };
}

/**
 * The requests to the engine and their answers: run(config) asks the engine
 * (its lane made at the first request) and paints the answer through
 * `display`, or shows the refusal; cancel() stops a request that waits and
 * puts back the settings on screen. Answers are drawn in request order: an
 * older answer never paints over a newer one.
 */
function createRunner({ store, controls, status, waiting, line, display, noticeSource, cancelButton, alive }) {
  let lane = null;
  const listeners = new Set(); // (config) after every good paint
  let seq = 0; // the number of the latest request
  let drawnSeq = 0; // the number of the request whose answer is on screen (0: none, or the shipped one)
  let shownConfig = null; // the store's config that the charts show
  let given = store.get(); // the last config from the outside (the link, the attributes)
  let restoring = false; // cancel() is putting back the config on screen: nothing to compute

  function cancel() {
    if (!waiting.since()) return;
    const seconds = (performance.now() - waiting.since()) / 1000;
    const hadFocus = cancelButton.matches(':focus');
    waiting.stop();
    const asked = store.get();
    seq++; // whatever is still on its way is not shown
    lane?.cancel();
    const back = shownConfig ?? defaultConfig();
    line.setNote(cancelledNote(seconds, asked, back, !!shownConfig));
    if (shownConfig) {
      restoring = true;
      store.set(back);
      restoring = false;
      status.cancelled('cancelled \u00b7 the previous settings are shown');
      listeners.forEach((fn) => fn(display.current().out.config)); // the address and the links say what is shown
    } else store.set(back);
    if (hadFocus) line.focusClose();
  }

  /** The engine refused `config` (the latest request): a config that fits, or the message where it belongs. */
  function refused(e, config) {
    waiting.stop();
    const source = sameConfig(config, given) ? noticeSource : null;
    if (e.field === 'depth' && Number.isInteger(e.max) && e.max >= 1 && e.max < config.depth) {
      // Over the budget: the deepest config that fits, and a notice that says so.
      const item = refusal(e, config);
      item.reason += `; showing depth ${e.max}, the deepest that fits`;
      line.setNote({ items: [item], source, config: { ...config, depth: e.max } });
      controls?.clearErrors();
      store.set({ depth: e.max });
      return;
    }
    const placed = controls?.showError(e.field, e.message);
    if (!placed) line.setNote({ items: [refusal(e, config)], source, config: shownConfig ?? config });
    status.error(
      placed && e.field
        ? `not computed: see the message at \u201c${e.field.replaceAll('_', ' ')}\u201d (the charts keep the last good settings)`
        : `not computed: ${e.message}`,
    );
  }

  async function run(config) {
    if (restoring && shownConfig && sameConfig(config, shownConfig)) {
      controls?.clearErrors();
      return;
    }
    const n = ++seq;
    const asked = performance.now();
    let r;
    try {
      lane ??= sharedEngine().lane();
      // Posted before the page writes anything, so the engine starts at once.
      const answer = lane.request('simulate', [config]);
      status.computing();
      // No time and no Cancel for what the charts show already (the shipped
      // first paint's config): there is nothing to wait for, nor to put back.
      if (!shownConfig || !sameConfig(config, shownConfig)) waiting.start();
      r = await answer;
    } catch (e) {
      if (n !== seq || !alive()) return; // a newer request is on its way
      refused(e, config);
      return;
    }
    if (!r || !alive()) return; // superseded before it ran
    // Two workers answer out of order: an older answer never covers a newer one.
    if (n < drawnSeq) return;
    drawnSeq = n;
    if (n === seq) {
      waiting.stop();
      controls?.clearErrors();
      shownConfig = config;
      line.shown(config);
    }
    await display.paint(r.out, { asked, answered: performance.now(), ms: r.ms, roundTripMs: r.roundTripMs });
    if (n === seq && alive()) {
      status.ready(r.ms);
      listeners.forEach((fn) => fn(r.out.config));
    }
  }

  return {
    run,
    cancel,
    /**
     * Opened on the default scene: its numbers as the build computed them, drawn
     * now, while the engine worker loads; the live answer repaints them.
     */
    start() {
      const shipped = firstPaint();
      if (shipped && sameConfig(store.get(), shipped.config)) {
        shownConfig = store.get(); // what the charts show, should a slower change be cancelled before the live answer
        display.paint(shipped);
      }
      run(store.get());
    },
    onShown: (fn) => listeners.add(fn),
    setConfig(config) {
      if (!sameConfig(config, store.get())) store.set(config);
      given = store.get();
    },
    closeLane: () => lane?.close(),
  };
}

export function mountExplorer(
  root,
  {
    state,
    siteUrl,
    theme,
    onPaint = () => {},
    noticeSource = 'link',
    slots = {},
    ids = PAGE_IDS,
    text = {},
    sections = {},
    foot: footExtras = [],
  },
) {
  const { view } = state;
  const ac = new AbortController();
  const store = createStore(state.config);
  // Every change asks the engine first, before the controls and anything else
  // subscribed later redraw, so the engine starts at once (run, once mounted).
  let onConfig = () => {};
  store.subscribe((config) => onConfig(config));
  let destroyed = false;
  const alive = () => !destroyed;

  const page = explorerLayout(root, { view, store, slots, ids, text, sections });
  const { controls, readoutBox, caption, foot } = page;
  const status = createStatus(page.statusEl);
  const display = createDisplay(root, page, { view, ids, text, theme, onPaint, alive });
  const explorerLink = (config) => new URL(`./${configToHash(config)}`, siteUrl).href;

  const menu = createExportMenu({
    signal: ac.signal,
    getData: () => {
      const current = display.current();
      return (
        current && {
          out: current.out,
          prepared: current.prepared,
          archs: current.archs,
          charts: display.charts.canvases(),
          pal: display.pal(),
          link: explorerLink(current.out.config),
        }
      );
    },
  });
  (slots.tools ?? foot).append(menu);
  foot.append(...footExtras);

  const line = createNoticeLine(page.notice, state.notices, noticeSource);
  line.render();
  const waiting = createWaiting(page.waiting);
  const { cancelButton } = page.waiting;
  const runner = createRunner({ store, controls, status, waiting, line, display, noticeSource, cancelButton, alive });
  cancelButton.addEventListener('click', runner.cancel, { signal: ac.signal });

  const offTheme = theme.onChange((t) => display.retheme(t));
  onConfig = runner.run;
  runner.start();

  return {
    store,
    controls,
    explorerLink,
    /**
     * The texts of the readout and the caption as drawn, and the config they were written for:
     * {config, notes: {arch: the readout row's note}, lead, archs: {arch: caption sentence}}; the
     * Embed dialog sizes its iframe by them (embed/heights.js). Null before the first paint.
     */
    textShown() {
      const current = display.current();
      if (!current) return null;
      const rows = [...readoutBox.querySelectorAll('tr[data-arch]')];
      const items = [...caption.querySelectorAll('li[data-arch]')];
      return {
        config: current.out.config,
        notes: Object.fromEntries(rows.map((r) => [r.dataset.arch, r.querySelector('.same-as')?.textContent ?? ''])),
        lead: view.caption ? (caption.querySelector('.caption-lead')?.textContent ?? '') : '',
        archs: Object.fromEntries(items.map((li) => [li.dataset.arch, li.textContent])),
      };
    },
    /** fn(config) after every paint of a good config. */
    onShown(fn) {
      runner.onShown(fn);
    },
    /** New settings from the outside (the address, the element's attributes). */
    setConfig(config) {
      runner.setConfig(config);
    },
    /** The notices of new settings from the outside, in place of the last ones. */
    showNotices(notices) {
      line.setLinkNotices(notices);
    },
    destroy() {
      destroyed = true;
      waiting.stop();
      offTheme?.();
      ac.abort();
      runner.closeLane();
      display.charts.destroy();
      controls?.destroy();
    },
  };
}
