// The explorer page (index.html): the explorer view in the page's own places,
// plus what only the page has: the starting points, the "Embed" dialog, the link in
// the address bar (read on load and on hashchange, written after each good
// paint), the theme toggle, the test hook and the offline service worker.
import '../shared/uplot.css';
import '../explorer/page.css';
import { FIELDS, configToHash, defaultView, parseHash } from '../shared/state.js';
import { createTheme } from '../shared/theme.js';
import { registerServiceWorker } from '../shared/register-sw.js';
import { mountExplorer } from '../explorer/view.js';
import { createStarts } from '../explorer/starts-ui.js';
import { createEmbedDialog } from '../embed/dialog.js';
import { watchPrint } from '../shared/print.js';
import { printCharts, settingsList } from '../explorer/print.js';
import { el, replace, setAttr } from '../shared/dom.js';
import { sharedEngine } from '../engine/client.js';
import { noticeWorkerLost } from '../shared/notice.js';
import { scrollRegions } from '../shared/scroll-region.js';

const $ = (id) => document.getElementById(id);

// The page's words for the view, with math rendered at build time (index.html's <template>).
const words = $('explorer-text').content;
const nodesOf = (selector) => {
  const from = words.querySelector(selector);
  return from ? [...from.cloneNode(true).childNodes] : null;
};
const text = {
  label: (field) => nodesOf(`[data-label="${field}"]`),
  hint: (field) => nodesOf(`[data-hint="${field}"]`),
  chartTitle: (metric) => nodesOf(`[data-chart="${metric}"]`),
  readoutHint: words.querySelector('[data-readout-hint]').cloneNode(true),
};

const theme = createTheme($('theme-toggle'));
// On paper the charts are redrawn at the printed size in the light theme's colours (explorer/print.js).
const printTheme = watchPrint(
  theme,
  printCharts($('charts'), () => view.store.get().arch.length),
);
const fromLink = parseHash(location.hash, { groups: ['config'] });
const SITE_URL = new URL('./', location.href);
const view = mountExplorer($('charts'), {
  state: { config: fromLink.config, view: { ...defaultView(), controls: FIELDS }, notices: fromLink.notices },
  siteUrl: new URL('./', location.href),
  theme: printTheme,
  slots: { notice: $('notice'), status: $('status'), form: $('controls'), tools: $('chart-tools') },
  sections: { main: $('fields'), arch: $('arch-fields'), model: $('model-fields') },
  text,
  onPaint(snapshot, { paintedAt, timings }) {
    // The test hook: what was drawn, exactly as the engine gave it, and what its parts took.
    window.__resnorm = { ...snapshot, ...timings, lastPaintMs: paintedAt };
    if (document.body.dataset.ready !== '1') document.body.dataset.ready = '1';
  },
});

createStarts({ store: view.store, charts: $('charts') });

// On a narrow screen the architectures and the model wait behind "All
// settings" (app.css), so the charts come right after depth and gain.
const toggle = $('settings-toggle');
toggle.addEventListener('click', () => {
  const open = toggle.getAttribute('aria-expanded') !== 'true';
  toggle.setAttribute('aria-expanded', String(open));
  $('controls').classList.toggle('is-open', open);
});
let shown = null; // the last config on screen
createEmbedDialog({
  button: $('embed-button'),
  getConfig: () => shown ?? view.store.get(),
  getShown: () => view.textShown(),
  siteUrl: SITE_URL,
});

// The last good config goes into the URL fragment, at most a few times a
// second: browsers throttle (and warn about) rapid history updates while a
// slider is dragged.
// data-url on the body says whether a write is still waiting ("pending") or done ("written").
let urlTimer = 0;
function rememberInUrl(config) {
  clearTimeout(urlTimer);
  setAttr(document.body, 'data-url', 'pending');
  urlTimer = setTimeout(() => {
    const hash = configToHash(config);
    if (hash !== location.hash) history.replaceState(null, '', hash || location.pathname + location.search);
    setAttr(document.body, 'data-url', 'written');
  }, 300);
}
// The printed settings under the caption, and the link that shows them again.
const printed = el('section', { class: 'print-settings print-only' });
$('charts').append(printed);
view.onShown((config) => {
  shown = config;
  rememberInUrl(config);
  replace(
    printed,
    el('h3', {}, 'Settings'),
    settingsList(config),
    el('p', { class: 'print-link' }, view.explorerLink(config)),
  );
});

// A link pasted into the address bar: its settings, or a notice; an anchor
// (#charts, the skip link) is not settings.
// The link is read from the event: the address bar may have been rewritten since, by a write of
// the config shown before (rememberInUrl's timer) that ran first.
window.addEventListener('hashchange', (event) => {
  const next = parseHash(new URL(event.newURL).hash, { groups: ['config'] });
  if (next.anchor) return;
  view.showNotices(next.notices);
  view.setConfig(next.config);
  rememberInUrl(view.store.get()); // the link in the address bar says what is shown, nothing else
});
// A formula wider than a phone scrolls sideways, so the keyboard can reach it.
scrollRegions(document, 'math[display="block"]');
registerServiceWorker();

noticeWorkerLost(sharedEngine(), $('notice'));
