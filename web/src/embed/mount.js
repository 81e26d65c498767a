// What both embeds (embed.html and <resnorm-explorer>) add to the explorer
// view: ids of their own (several can share a page) and the link that opens
// the same settings in the full explorer.
import { mountExplorer } from '../explorer/view.js';
import { el } from '../shared/dom.js';

let instances = 0;

/** Mounts the explorer view in `wrapper`; options as mountExplorer's (state, siteUrl, theme, onPaint, noticeSource). */
export function mountExplorerEmbed(wrapper, options) {
  const open = el('a', { class: 'open-full', target: '_blank', rel: 'noopener' }, 'Open in the explorer \u2197');
  const view = mountExplorer(wrapper, {
    ...options,
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
