// Preset buttons: the main row is built from PRESETS; any element with
// data-preset="<key>" elsewhere (the explanations) applies that preset too and
// brings the charts into view. A button is pressed while its preset is shown.
import { PRESETS, presetConfig } from './presets.js';
import { sameConfig } from '../shared/state.js';
import { sortArchs } from '../shared/archs.js';
import { setAttr } from '../shared/dom.js';

export function createPresets({ store, charts }) {
  const row = document.getElementById('presets');
  row.replaceChildren(
    ...PRESETS.filter((p) => !p.hidden).map((p) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'preset';
      b.dataset.preset = p.key;
      b.textContent = p.label;
      return b;
    }),
  );
  // arch in the store's order, so a preset compares equal to what it set
  const configs = Object.fromEntries(
    PRESETS.map((p) => {
      const c = presetConfig(p.key);
      return [p.key, { ...c, arch: sortArchs(c.arch) }];
    }),
  );

  document.addEventListener('click', (e) => {
    const b = e.target.closest?.('[data-preset]');
    if (!b || !configs[b.dataset.preset]) return;
    store.set(configs[b.dataset.preset]);
    if (!row.contains(b)) {
      const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
      charts.scrollIntoView({ behavior: reduce ? 'auto' : 'smooth', block: 'start' });
    }
  });

  const mark = (config) => {
    for (const b of document.querySelectorAll('[data-preset]')) {
      const c = configs[b.dataset.preset];
      setAttr(b, 'aria-pressed', String(!!c && sameConfig(c, config)));
    }
  };
  store.subscribe(mark);
  mark(store.get());
}
