// The training lab page (train.html): the lab view in the page's own places,
// plus what only the page has: the link in the address bar (read on load and
// on hashchange, written after each change of the settings), the theme
// toggle, "All settings" on a narrow screen, the Embed dialog (the lab's
// snippets for another page), the test hook and the offline service worker.
import '../shared/uplot.css';
import '../train/train.css';
import '../train/print.css';
import { createTheme } from '../shared/theme.js';
import { registerServiceWorker, quietGate } from '../shared/register-sw.js';
import { noticeWorkerLost } from '../shared/notice.js';
import { trainFromHash, trainToHash } from '../train/link.js';
import { sharedEngine } from '../engine/client.js';
import { mountTrainer } from '../train/view.js';
import { TRAINING_STATES } from '../train/session.js';
import { createTrainEmbedDialog } from '../embed/dialog.js';
import { el } from '../shared/dom.js';
import { watchPrint } from '../shared/print.js';
import { labPrint } from '../train/print.js';
import { CLAIM_BY_ID, claimConfig } from '../claims/lab/index.js';
import { defaultLabConfig } from '../shared/train-fields.js';

const $ = (id) => document.getElementById(id);

const theme = createTheme($('theme-toggle'));
const engine = sharedEngine();
const fromLink = trainFromHash(location.hash);
let claim = fromLink.preset; // the claim chosen and its setting (view.onSettings below keeps them)
let setting = fromLink.setting;
// On paper: the settings as text, and the charts and heatmaps redrawn at the printed size in the
// light theme's colours (train/print.js).
const printTheme = watchPrint(
  theme,
  labPrint({
    intro: document.querySelector('.intro'),
    lab: $('lab'),
    current: () => ({ config: view.store.get(), preset: claim, setting }),
    link: (config, id, at) => {
      const url = new URL(location.href);
      url.hash = trainToHash(config, id, at);
      return url.href;
    },
  }),
);
// The offline copy installs while no run trains (register-sw.js says why).
const offline = quietGate();
const view = mountTrainer($('lab'), {
  state: { config: fromLink.config, notices: fromLink.notices, preset: fromLink.preset, setting: fromLink.setting },
  // the page offers each claim at its quick and its deep setting (an embed keeps the quick one)
  chooseSetting: true,
  theme: printTheme,
  engine,
  slots: { notice: $('notice'), status: $('status'), form: $('controls') },
  onUpdate(snapshot) {
    // The test hook: what is drawn, exactly as the engine gave it.
    window.__resnormTrain = snapshot;
    offline.set(TRAINING_STATES.includes(snapshot.state));
  },
});
document.body.dataset.ready = '1';

// "Embed": the snippets for this lab's settings, beside the run's heading.
const embedButton = el('button', { type: 'button', id: 'train-embed-button', class: 'secondary' }, 'Embed');
document.querySelector('#lab .charts-head').append(embedButton);
createTrainEmbedDialog({
  button: embedButton,
  // an embed trains a claim at its quick setting: a claim chosen at Deep is embedded at its quick settings
  getConfig: () =>
    view.setting() === 'deep'
      ? { ...claimConfig(CLAIM_BY_ID[view.preset()], defaultLabConfig()), seeds: view.store.get().seeds }
      : view.store.get(),
  getClaim: () => view.preset(),
  siteUrl: new URL('./', location.href),
});

// On a narrow screen the settings wait behind "All settings" (train.css), so the run comes first.
const toggle = $('settings-toggle');
toggle.addEventListener('click', () => {
  const open = toggle.getAttribute('aria-expanded') !== 'true';
  toggle.setAttribute('aria-expanded', String(open));
  $('controls').classList.toggle('is-open', open);
});

// The settings (and the claim at its setting) go into the URL fragment, at most a few times a second
// (browsers throttle rapid history updates).
let urlTimer = 0;
view.onSettings((config, id, at) => {
  claim = id;
  setting = at;
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const hash = trainToHash(config, id, at);
    if (hash !== location.hash) history.replaceState(null, '', hash || location.pathname + location.search);
  }, 300);
});

// A link pasted into the address bar: its settings (the run so far is reset), or a notice; an anchor is not settings.
// The link is read from the event: the address bar may have been rewritten since, by a write of
// the settings shown before (the timer above) that ran first.
window.addEventListener('hashchange', (event) => {
  const next = trainFromHash(new URL(event.newURL).hash);
  if (next.anchor) return;
  view.showNotices(next.notices);
  view.setConfig(next.config, next.preset, next.setting);
});

registerServiceWorker({ quiet: offline.quiet });
if (typeof engine.onWorkerLost === 'function') noticeWorkerLost(engine, $('notice'));
