// The explorer without the surrounding page, for embed.html and
// <resnorm-explorer>: the chosen charts, the chosen controls (live or locked),
// the readout (also the legend), the caption, the numbers and the export menu,
// all inside `root` (normally a shadow root's wrapper). Several can run on one
// page; they share one engine worker through lanes (engine.js).
import { createStore, configToHash, sameConfig } from '../shared/state.js';
import { createReadout } from '../explorer/readout.js';
import { renderCaption } from '../explorer/caption.js';
import { createTable } from '../explorer/table.js';
import { logOf, prepareChart, sqrtReference } from '../explorer/series.js';
import { createEmbedControls } from './controls.js';
import { createChartSet } from './charts.js';
import { CHART_INFO } from '../explorer/chart-info.js';
import { paletteOf } from '../shared/palette.js';
import { showNotices } from '../shared/notice.js';
import { openLane } from './engine.js';
import { createExportMenu } from '../explorer/export/menu.js';

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
};

/**
 * root: an element to fill (emptied first). state: {config, view, notices}
 * from state.js. siteUrl: the site's base URL (for "open in the explorer").
 * theme: {current(), onChange(fn)}. onPaint(snapshot): after every paint.
 * Returns {setConfig(config), destroy()}.
 */
export function mountExplorer(root, { state, siteUrl, theme, onPaint = () => {}, noticeSource = 'link' }) {
  const { view } = state;
  const ac = new AbortController();
  const store = createStore(state.config);
  const lane = openLane();

  const notice = el('div', 'notice');
  notice.setAttribute('role', 'status');
  showNotices(notice, state.notices, { source: noticeSource });

  const parts = [notice];
  let controls = null;
  if (view.controls.length) {
    const form = el('form', 'controls');
    form.setAttribute('aria-label', 'Settings');
    form.noValidate = true;
    controls = createEmbedControls({ root: form, show: view.controls, lock: view.lock, store });
    parts.push(form);
  }
  const status = el('p', 'status', 'loading the engine\u2026');
  status.setAttribute('role', 'status');
  status.dataset.state = 'loading';
  parts.push(status);

  // the readout: also the legend (readout.js looks its parts up inside `readoutBox`)
  const readoutBox = el('div', 'readout');
  readoutBox.innerHTML =
    '<div class="readout-head"><label for="readout-layer">Values at</label>' +
    '<input type="range" id="readout-layer" min="0" max="96" step="1" value="0">' +
    '<output id="readout-layer-value" for="readout-layer" class="value"></output></div>' +
    '<div class="readout-scroll"><table class="readout-table"><caption class="visually-hidden">Values at the chosen layer, one row per architecture; also the legend of the charts</caption>' +
    '<thead><tr><th scope="col">architecture</th><th scope="col">gradient</th><th scope="col">stream RMS</th><th scope="col">update</th></tr></thead><tbody></tbody></table></div>';
  parts.push(readoutBox);

  const chartEls = {};
  for (const metric of view.charts) {
    const info = CHART_INFO[metric];
    const fig = el('figure', 'chart-figure');
    const cap = el('figcaption');
    cap.append(el('span', 'chart-title', info.title), el('span', 'chart-sub', info.sub));
    const box = el('div', 'chart');
    box.setAttribute('role', 'img');
    box.setAttribute('aria-label', `${info.aria} The numbers are in the table under Show numbers.`);
    chartEls[metric] = box;
    fig.append(cap, box);
    parts.push(fig);
  }
  const caption = el('div', 'caption');
  if (view.caption) parts.push(caption);

  const foot = el('div', 'foot');
  const numbersButton = el('button', 'secondary', 'Show numbers');
  numbersButton.type = 'button';
  numbersButton.setAttribute('aria-pressed', 'false');
  const numbersWrap = el('div', 'numbers-wrap visually-hidden');
  const dataTable = el('table', 'data-table');
  numbersWrap.append(dataTable);
  const open = el('a', 'open-full', 'Open in the explorer \u2197');
  open.target = '_blank';
  open.rel = 'noopener';
  foot.append(numbersButton);
  parts.push(foot, numbersWrap);
  root.replaceChildren(...parts);

  const palette = () => paletteOf(root);
  let picking = false;
  const readout = createReadout({
    root: readoutBox,
    onPick: (layer) => {
      picking = true;
      charts.showLayer(layer);
      picking = false;
    },
  });
  const charts = createChartSet({ els: chartEls, palette, onCursor: (layer) => !picking && readout.hover(layer) });
  const table = createTable({ table: dataTable, wrap: numbersWrap, button: numbersButton });
  let current = null;
  const menu = createExportMenu({
    signal: ac.signal,
    getData: () =>
      current && {
        out: current.out,
        prepared: current.prepared,
        archs: current.archs,
        charts: charts.canvases(),
        pal: palette(),
        link: explorerLink(current.out.config),
      },
  });
  foot.append(menu, open);

  const explorerLink = (config) => new URL(`./${configToHash(config)}`, siteUrl).href;
  const setLink = (config) => {
    open.href = explorerLink(config);
  };
  setLink(store.get());

  let seq = 0;
  let renders = 0;
  let destroyed = false;
  async function run(config) {
    const id = ++seq;
    status.dataset.state = 'computing';
    status.textContent = 'computing\u2026';
    let r;
    try {
      r = await lane.request(config);
    } catch (e) {
      if (id !== seq || destroyed) return;
      status.dataset.state = 'error';
      status.textContent = `not computed: ${e.message}`;
      return;
    }
    if (!r || destroyed) return;
    await paint(r.out);
    if (id === seq && !destroyed) {
      status.dataset.state = 'ready';
      status.textContent = `ready \u00b7 computed in ${r.ms < 10 ? r.ms.toFixed(1) : Math.round(r.ms)} ms`;
      setLink(r.out.config);
    }
  }

  async function paint(out) {
    const archs = Object.keys(out.results);
    const L = out.config.depth;
    const ref = sqrtReference(L);
    const prepared = {
      grad: prepareChart('grad', out.results, archs),
      stream: prepareChart('stream', out.results, archs),
      update: prepareChart('update', out.results, archs, ref),
    };
    current = { out, prepared, archs };
    const painted = charts.update({
      prepared,
      archs,
      depth: L,
      references: { update: logOf(ref) },
      theme: theme.current(),
    });
    readout.set({ prepared, archs, depth: L });
    if (view.caption) renderCaption(caption, current);
    await painted;
    table.update(current);
    publish();
  }

  function publish() {
    if (destroyed || !current) return;
    const { out, prepared } = current;
    const plotted = {};
    for (const m of charts.metrics) plotted[m] = { x: prepared[m].x, series: prepared[m].raw };
    onPaint({ config: out.config, result: out, plotted, renders: ++renders });
  }

  theme.onChange(async (t) => {
    if (!current || destroyed) return;
    await charts.retheme(t);
    publish();
  });
  store.subscribe(run);
  run(store.get());

  return {
    store,
    controls,
    /** New settings from the outside (the element's attributes changed). */
    setConfig(config) {
      if (!sameConfig(config, store.get())) store.set(config);
    },
    destroy() {
      destroyed = true;
      ac.abort();
      lane.close();
      charts.destroy();
      controls?.destroy();
    },
  };
}
