// What both embeds (embed.html and <resnorm-explorer>) add to the explorer
// view: ids of their own (several can share a page) and the link that opens
// the same settings in the full explorer.
import { mountExplorer } from '../explorer/view.js';
import { el } from '../shared/dom.js';

let instances = 0;

/**
 * Mounts the explorer view in `wrapper`; options as mountExplorer's (state, siteUrl, theme, onPaint,
 * noticeSource), and onEvent(type, fields) for the host page's events (events.js): `ready` with the
 * config at the first paint, `config` whenever the reader's settings change.
 */
export function mountExplorerEmbed(wrapper, { onEvent = () => {}, ...options }) {
  const open = el('a', { class: 'open-full', target: '_blank', rel: 'noopener' }, 'Open in the explorer \u2197');
  let shown = null;
  const onPaint = (snap, info) => {
    options.onPaint?.(snap, info);
    const key = JSON.stringify(snap.config);
    if (key === shown) return;
    onEvent(shown === null ? 'ready' : 'config', { config: snap.config });
    shown = key;
  };
  const view = mountExplorer(wrapper, {
    ...options,
    onPaint,
    ids: { prefix: `rn${++instances}-`, number: '-n', value: '-v' },
    foot: [open],
  });
  const setLink = (config) => {
    open.href = view.explorerLink(config);
  };
  setLink(view.store.get());
  view.onShown(setLink);
  return view;
}
