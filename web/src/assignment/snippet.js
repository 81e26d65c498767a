// The iframe snippet of an assignment and the height it starts at: its content in a narrow
// course column of 420 px (taller there than in a wider one), summed from the embeds' own
// heights at that width (embed/heights.js for the experiment at its tallest,
// quiz-grading-snippets.js for the questions) and the assignment's head and instructions. The
// page reports its real height once it runs (embed/height.js; resnorm-iframe.js sizes the frame
// to it); the estimate is what stays where the host strips the script. Pure.
import { frameSnippet } from '../embed/snippets.js';
import { explorerHeight, labHeight } from '../embed/heights.js';
import { gradedQuizHeight } from '../embed/quiz-grading-snippets.js';
import { instructionBlocks } from './instructions.js';
import { UNTITLED, assignmentUrl } from './link.js';

/** The column the height is for, in CSS px. */
const COLUMN = 420;

// The page's parts in a 420 px column, in px: its padding, a line of the title and the characters
// it holds, a line of the instructions and its characters, the space between two blocks, each
// part's heading and hint.
const PAGE_PARTS_420 = Object.freeze({
  head: 60,
  titleLine: 32,
  titleChars: 26,
  line: 26,
  chars: 48,
  block: 14,
  part: 120,
  margin: 32,
});

/** The assignment page's height in a 420 px column; `bankItems`: the bank items its questions are. */
export function estimateAssignmentHeight(assignment, bankItems) {
  const p = PAGE_PARTS_420;
  const lines = (t, chars) => Math.max(1, Math.ceil(t.length / chars));
  let h = p.head + p.titleLine * lines(assignment.title || UNTITLED, p.titleChars) + p.margin;
  for (const b of instructionBlocks(assignment.text))
    h += p.block + p.line * (b.type === 'p' ? b.lines : b.items).reduce((n, t) => n + lines(t, p.chars), 0);
  const { state } = assignment;
  if (assignment.experiment === 'lab' && state)
    h += p.part + labHeight(state.view, state.train, state.lab?.preset, COLUMN);
  if (assignment.experiment === 'explorer' && state) h += p.part + explorerHeight(state.view, state.config, COLUMN);
  if (bankItems.length) h += p.part + gradedQuizHeight(bankItems);
  return Math.round(h);
}

/** The iframe of the assignment page with its link, titled by the assignment's title. */
export function assignmentIframeSnippet({ siteUrl, assignment, bankItems }) {
  return frameSnippet({
    siteUrl,
    src: assignmentUrl(siteUrl, assignment),
    title: `resnorm assignment: ${assignment.title || UNTITLED}`,
    height: estimateAssignmentHeight(assignment, bankItems),
  });
}
