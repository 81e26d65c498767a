// The line under the lab's charts for a comparison of the reader's own runs
// (no claim, whose panel has its verdict and caption): once every run
// has finished, which trained, which ended at chance, which diverged, from
// each run's numbers (claims/lab/common.js's comparisonCaption).
//
//   const c = createComparison(box);
//   c.update({ runs, looks, state, claim })   // returns the line shown, or null
import { setText } from '../shared/dom.js';
import { comparisonCaption } from '../claims/lab/common.js';

export function createComparison(box) {
  box.hidden = true;
  let shownFor = null;
  let text = null;
  return {
    update({ runs, looks, state, claim }) {
      const ended = state === 'done' && claim === 'none' && runs.length > 0;
      const from = ended ? runs : null;
      if (from !== shownFor) {
        shownFor = from;
        text = from ? comparisonCaption(runs.map((r) => ({ ...r, label: looks[r.key ?? r.arch]?.label }))) : null;
      }
      setText(box, text ?? '');
      if (box.hidden !== !text) box.hidden = !text;
      return text;
    },
  };
}
