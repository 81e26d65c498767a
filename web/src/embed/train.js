// The training lab embedded: embed.html#mode=train&... and <resnorm-train>
// mount the lab's one view (train/view.js's mountTrainer) with what both
// embeds add: the fields of the embed's own view (which settings the reader
// sees and which are fixed, the theme), read with the training field table
// (shared/train-fields.js) through state.js, and the link that opens the same
// settings in the full lab.
//
//   embed.html#mode=train&task=copy&depth=4&steps=200&controls=lr,warmup,steps&lock=steps
//   <resnorm-train task="copy" depth="4" controls="lr,warmup,steps" lock="steps"></resnorm-train>
//
//   embed.html#mode=train&preset=warmup&controls=warmup,preset&lock=preset
//
// The fields are train-view.js's. `preset` names a claim: its runs,
// settings (those the link gives over them) and verdict. `controls` lists the
// settings shown (all of them unless given) and `preset` for the claims'
// buttons, `lock` those shown but fixed; a hidden setting keeps the link's
// value, and the buttons are live only while every setting is the reader's
// (claimsMode). Every other setting is the reader's, and the view locks them
// all while a run exists.
import { TRAIN_KEYS } from '../shared/train-fields.js';
import { TRAIN_EMBED_TABLE, labLink, claimsMode } from './train-view.js';
import { sharedEngine } from '../engine/client.js';
import { mountTrainer } from '../train/view.js';
import { el } from '../shared/dom.js';

/**
 * Mounts the lab in `wrapper` (a shadow root's, styles.js): state {train, lab, view, notices} from
 * trainEmbedFromHash or trainEmbedEntries; siteUrl, theme as the explorer's embed; onPaint(snapshot)
 * after every drawn frame; onEvent(type, fields) for the host page's events (events.js): `ready`
 * with the config and the claim (`preset`, as the link names it) at the first frame, `config`
 * whenever the reader's settings or the claim change.
 */
export function mountTrainEmbed(
  wrapper,
  { state, siteUrl, theme, onPaint = () => {}, onEvent = () => {}, noticeSource = 'link', engine = sharedEngine() },
) {
  wrapper.classList.add('lab', 'rn-lab');
  // the heatmaps' titles are h3s: the lab page has its h2 above them, the embed its own
  wrapper.append(el('h2', { class: 'visually-hidden' }, 'Training lab: settings, run and charts'));
  const { controls, lock } = state.view;
  let view = null; // the first frame is drawn inside mountTrainer, before it returns
  view = mountTrainer(wrapper, {
    state: { config: state.train, notices: state.notices, preset: state.lab.preset },
    theme,
    engine,
    controls: { show: controls, lock: lock.filter((k) => controls.includes(k)) },
    claims: claimsMode(state.view),
    noticeTable: TRAIN_EMBED_TABLE,
    noticeSource,
    // config: the settings on screen; run: those of the run (null before one)
    onUpdate: (snap) => onPaint({ ...snap, config: view ? view.store.get() : state.train, run: snap.config }),
  });
  if (!TRAIN_KEYS.some((k) => controls.includes(k))) wrapper.querySelector('form.controls').hidden = true;
  const open = el('a', { class: 'open-full', target: '_blank', rel: 'noopener' }, 'Open in the lab \u2197');
  wrapper.append(el('div', { class: 'foot' }, open));
  const setLink = (config, claim) => {
    open.href = labLink(siteUrl, config, claim);
  };
  setLink(view.store.get(), view.preset());
  onEvent('ready', { config: view.store.get(), preset: view.preset() });
  // a claim's button changes the claim and then the settings: one event when both are set
  let sent = JSON.stringify([view.store.get(), view.preset()]);
  let queued = false;
  view.onSettings(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      const config = view.store.get();
      const claim = view.preset();
      setLink(config, claim);
      const key = JSON.stringify([config, claim]);
      if (key === sent) return;
      sent = key;
      onEvent('config', { config, preset: claim });
    });
  });
  return view;
}
