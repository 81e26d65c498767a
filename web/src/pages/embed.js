// embed.html: the explorer, the quiz or the training lab without the
// surrounding page, configured from the fragment (state.js's table: config,
// view and quiz fields), e.g. embed.html#depth=48&arch=post_ln,pre_ln&charts=grad&controls=depth;
// mode=train reads the rest with the lab's table (embed/train.js), e.g.
// embed.html#mode=train&task=copy&depth=4&controls=lr,warmup.
// Reports its height to the parent page (height.js) and posts the embed's
// events to it (events.js).
import { parseHash } from '../shared/state.js';
import { createTheme } from '../shared/theme.js';
import { mountExplorerEmbed } from '../embed/mount.js';
import { mountQuizEmbed } from '../embed/quiz.js';
import { mountTrainEmbed } from '../embed/train.js';
import { trainEmbedFromHash } from '../embed/train-view.js';
import { TRAINING_STATES } from '../train/session.js';
import { shadowWrapper } from '../embed/styles.js';
import { reportHeight } from '../embed/height.js';
import { eventSink } from '../embed/events.js';
import { registerServiceWorker, quietGate } from '../shared/register-sw.js';
import '../embed/page.css';

const host = document.getElementById('embed');
const SITE_URL = new URL('./', location.href);
let mounted = null;
let ac = null;
// The offline copy installs while no embedded run trains (register-sw.js says why).
const offline = quietGate();

function mount() {
  mounted?.destroy();
  offline.set(false);
  ac?.abort();
  ac = new AbortController();
  let state = parseHash(location.hash, { groups: ['config', 'view', 'quiz'] });
  const lab = state.view.mode === 'train';
  if (lab) state = trainEmbedFromHash(location.hash);
  const wrapper = shadowWrapper(host, { lab });
  wrapper.classList.add('in-page');
  const theme = createTheme(null, { root: wrapper, choice: state.view.theme, signal: ac.signal });
  const setPageTheme = (t) => (document.documentElement.dataset.theme = t);
  setPageTheme(theme.current());
  theme.onChange(setPageTheme);
  let renders = 0;
  const onPaint = (snap, { paintedAt = performance.now() } = {}) => {
    window.__resnorm = { ...snap, renders: ++renders, lastPaintMs: paintedAt };
    document.body.dataset.ready = '1';
  };
  if (state.view.mode === 'quiz') {
    mounted = mountQuizEmbed(wrapper, { state, siteUrl: SITE_URL, theme, onPaint, onEvent: eventSink('quiz') });
  } else if (lab) {
    // the lab's hook (as train.html's): what is drawn, exactly as the engine gave it
    const onFrame = (snap) => {
      window.__resnormTrain = snap;
      offline.set(TRAINING_STATES.includes(snap.state));
      document.body.dataset.ready = '1';
    };
    mounted = mountTrainEmbed(wrapper, {
      state,
      siteUrl: SITE_URL,
      theme,
      onPaint: onFrame,
      onEvent: eventSink('train'),
    });
  } else {
    const onEvent = eventSink('explorer');
    mounted = mountExplorerEmbed(wrapper, { state, siteUrl: SITE_URL, theme, onPaint, onEvent });
  }
  reportHeight(host, ac.signal);
}

mount();
// A new fragment (the author edits the link) is a new embed; an anchor is not.
window.addEventListener('hashchange', () => {
  if (!parseHash(location.hash).anchor) mount();
});
registerServiceWorker({ quiet: offline.quiet });
