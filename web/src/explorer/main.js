// Wiring: store -> engine (worker) -> charts, readout, caption, table; the
// link's settings (with a notice for any it could not use), the export menu,
// the "Embed" dialog and the offline service worker.
import { EngineClient } from '../engine/client.js';
import { createStore, configToHash, parseHash } from '../shared/state.js';
import { createControls } from './controls.js';
import { createCharts } from './charts.js';
import { createReadout } from './readout.js';
import { renderCaption } from './caption.js';
import { createTable } from './table.js';
import { createTheme, palette } from '../shared/theme.js';
import { createStatus } from '../shared/status.js';
import { createPresets } from './presets-ui.js';
import { logOf, prepareChart, sqrtReference } from './series.js';
import { showNotices } from '../shared/notice.js';
import { createEmbedDialog } from '../embed/dialog.js';
import { registerServiceWorker } from '../shared/register-sw.js';
import { createExportMenu } from './export/menu.js';
import '../shared/app.css'; // after uPlot's CSS (imported by charts.js), so ours wins

const $ = (id) => document.getElementById(id);

const theme = createTheme($('theme-toggle'));
const fromLink = parseHash(location.hash, { groups: ['config'] });
const store = createStore(fromLink.config);
showNotices($('notice'), fromLink.notices);
const status = createStatus($('status'));
const controls = createControls({ store });
createPresets({ store, charts: $('charts') });

let picking = false; // the readout slider is moving the cursor: not a pointer hover
const readout = createReadout({
  root: $('readout'),
  onPick: (layer) => {
    picking = true;
    charts.showLayer(layer);
    picking = false;
  },
});
const charts = createCharts({ onCursor: (layer) => !picking && readout.hover(layer) });
const table = createTable({ table: $('data-table'), wrap: $('numbers'), button: $('show-numbers') });

let engine;
try {
  engine = new EngineClient();
} catch (e) {
  status.error(`The engine could not start: ${e.message}`);
}

const SITE_URL = new URL('..', location.href);
const METRICS = [
  ['grad', 'chart-grad'],
  ['stream', 'chart-stream'],
  ['update', 'chart-update'],
];
$('chart-tools').append(
  createExportMenu({
    getData: () =>
      current && {
        out: current.out,
        prepared: current.prepared,
        archs: current.archs,
        pal: palette(),
        link: new URL(configToHash(current.out.config) || './', location.href).href,
        charts: METRICS.map(([metric, id]) => ({
          metric,
          canvas: document.querySelector(`#${id} canvas`),
          reference: metric === 'update' ? logOf(sqrtReference(current.out.config.depth)) : null,
        })).filter((c) => c.canvas),
      },
  }),
);
createEmbedDialog({
  button: $('embed-button'),
  getConfig: () => current?.out.config ?? store.get(),
  siteUrl: SITE_URL,
});

let seq = 0;
let renders = 0;
let current = null; // what is on screen: {out, prepared, archs}

async function run(config) {
  if (!engine) return;
  const id = ++seq;
  status.computing();
  let r;
  try {
    r = await engine.request(config);
  } catch (e) {
    if (id !== seq) return; // a newer request is on its way
    controls.showError(e.field, e.message);
    status.error(
      e.field
        ? `not computed: see the message at “${e.field.replace('_', ' ')}” (the charts keep the last good settings)`
        : `not computed: ${e.message}`,
    );
    return;
  }
  if (!r) return; // superseded before it ran
  if (id === seq) controls.clearErrors();
  await paint(r.out);
  if (id === seq) {
    status.ready(r.ms);
    rememberInUrl(r.out.config);
  }
}

// The last good config goes into the URL fragment, at most a few times a
// second: browsers throttle (and warn about) rapid history updates while a
// slider is dragged.
let urlTimer = 0;
function rememberInUrl(config) {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const hash = configToHash(config);
    if (hash !== location.hash) history.replaceState(null, '', hash || location.pathname + location.search);
  }, 300);
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
  renderCaption($('caption'), current);
  await painted;
  const paintedAt = performance.now();
  table.update(current);
  publish(paintedAt);
}

// The test hook: what was drawn, exactly as the engine gave it.
function publish(lastPaintMs = performance.now()) {
  const { out, prepared } = current;
  const plotted = {};
  for (const m of ['grad', 'stream', 'update']) plotted[m] = { x: prepared[m].x, series: prepared[m].raw };
  window.__resnorm = { config: out.config, result: out, plotted, renders: ++renders, lastPaintMs };
  document.body.dataset.ready = '1';
}

theme.onChange(async (t) => {
  if (!current) return;
  await charts.retheme(t);
  publish();
});

store.subscribe(run);
// A link pasted into the address bar: its settings, or a notice; an anchor
// (#charts, the skip link) is not settings.
window.addEventListener('hashchange', () => {
  const next = parseHash(location.hash, { groups: ['config'] });
  if (next.anchor) return;
  showNotices($('notice'), next.notices);
  store.set(next.config);
  rememberInUrl(store.get()); // the link in the address bar says what is shown, nothing else
});
run(store.get());
registerServiceWorker();
