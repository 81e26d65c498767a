// The sentence under each panel, written from the numbers (pure: text only, no
// DOM), so it says whether the claim holds at the settings that ran: the lead
// from the verdict, the text from the claim's own caption() (../claims/papers/<id>.js).
import { claimOf } from '../claims/papers/index.js';
import { summarize } from './repro.js';

export const VERDICT_TEXT = { holds: 'Holds', partly: 'Holds in part', fails: 'Does not hold' };

const LEAD = {
  holds: 'The claim holds at these settings.',
  partly: 'The claim holds only in part at these settings.',
  fails: 'The claim does not hold at these settings.',
};

/** {verdict, lead, text} for a panel's result; `view` as in summarize(). */
export function caption(id, result, view = {}) {
  const s = summarize(id, result, view);
  const text = claimOf(id).caption(result, s);
  return { verdict: s.verdict, lead: LEAD[s.verdict], text, summary: s };
}
