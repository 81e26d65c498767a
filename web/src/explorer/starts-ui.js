// Starting-point buttons: the main row is built from STARTS; any element with
// data-start="<key>" elsewhere (the explanations) applies that starting point
// too and brings the charts into view. A button is pressed while its starting
// point is shown, and the line under the row says what that starting point
// shows at initialization (its `caption`, when it has one).
import { STARTS, startConfig } from './starts.js';
import { sameConfig } from '../shared/state.js';
import { sortArchs } from '../shared/archs.js';
import { el, setAttr, setText } from '../shared/dom.js';

export function createStarts({ store, charts }) {
  const row = document.getElementById('starts');
  row.replaceChildren(
    ...STARTS.filter((p) => !p.hidden).map((p) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'start';
      b.dataset.start = p.key;
      b.textContent = p.label;
      return b;
    }),
  );
  const caption = el('p', { class: 'hint start-caption', id: 'start-caption', 'aria-live': 'polite', hidden: true });
  row.after(caption);
  // arch in the store's order, so a starting point compares equal to what it set
  const configs = Object.fromEntries(
    STARTS.map((p) => {
      const c = startConfig(p.key);
      return [p.key, { ...c, arch: sortArchs(c.arch) }];
    }),
  );

  document.addEventListener('click', (e) => {
    const b = e.target.closest?.('[data-start]');
    if (!b || !configs[b.dataset.start]) return;
    store.set(configs[b.dataset.start]);
    if (!row.contains(b)) {
      const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
      charts.scrollIntoView({ behavior: reduce ? 'auto' : 'smooth', block: 'start' });
    }
  });

  const mark = (config) => {
    for (const b of document.querySelectorAll('[data-start]')) {
      const c = configs[b.dataset.start];
      setAttr(b, 'aria-pressed', String(!!c && sameConfig(c, config)));
    }
    const shown = STARTS.find((p) => p.caption && sameConfig(configs[p.key], config));
    setText(caption, shown?.caption ?? '');
    // only a change is written: a slider step rewrites nothing it leaves as it was
    if (caption.hidden !== !shown) caption.hidden = !shown;
  };
  store.subscribe(mark);
  mark(store.get());
}
