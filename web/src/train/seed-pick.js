// Which seed the lab's heatmaps show when its runs train on several seeds: a
// menu, "the median seed" (each run's median by its held-out loss at its last
// logged step, series.js's medianSeed) or one seed for every run; hidden while
// every run has one seed. Each map's name says which seed it is.
//
//   const p = createSeedPick({ onChange });   // onChange(): draw again
//   box.append(p.el);
//   const { runs, looks } = p.pick(runs, looks); // the seed run of each run, and their names
import { el } from '../shared/dom.js';
import { medianSeed } from './series.js';

const MEDIAN = 'median';

export function createSeedPick({ onChange = () => {} } = {}) {
  const select = el('select', { id: 'train-heat-seed' });
  const node = el(
    'div',
    { class: 'field small train-heat-seed', hidden: true },
    el('label', { for: 'train-heat-seed' }, 'Heatmaps of'),
    select,
  );
  let offered = null; // the seeds the menu offers, as text
  select.addEventListener('change', onChange);

  /** The menu's options for `seeds` (numbers), kept when they are the same. */
  function offer(seeds) {
    const text = seeds.join();
    if (text === offered) return;
    offered = text;
    const was = select.value;
    select.replaceChildren(
      new Option('the median seed of each run (by held-out loss)', MEDIAN),
      ...seeds.map((s) => new Option(`seed ${s}`, String(s))),
    );
    select.value = seeds.map(String).includes(was) ? was : MEDIAN;
  }

  return {
    el: node,
    /** The menu's choice: 'median' or a seed. */
    choice: () => (select.value === MEDIAN || !select.value ? MEDIAN : Number(select.value)),
    /**
     * The run each heatmap shows of `runs` (session.js's, each with its seeds) and `looks` (looks.js's,
     * by key) with each name saying its seed: the runs as they are while each has one seed.
     */
    pick(runs, looks) {
      const seeds = runs[0]?.seeds?.map((s) => s.seed) ?? [];
      const several = runs.some((r) => (r.seeds?.length ?? 1) > 1);
      if (node.hidden === several) node.hidden = !several;
      if (!several) return { runs, looks };
      offer(seeds);
      const want = this.choice();
      const picked = runs.map((r) =>
        want === MEDIAN ? medianSeed(r) : (r.seeds.find((s) => s.seed === want) ?? medianSeed(r)),
      );
      const named = { ...looks };
      picked.forEach((p, i) => {
        const key = runs[i].key ?? runs[i].arch;
        const what = want === MEDIAN ? `median seed ${p.seed}` : `seed ${p.seed}`;
        named[key] = { ...looks[key], label: `${looks[key].label}, ${what}` };
      });
      return { runs: picked, looks: named };
    },
  };
}
