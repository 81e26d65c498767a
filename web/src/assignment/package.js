// An assignment as a SCORM package: the quiz's package builder (../scorm/package.js) with the
// assignment page as its launch page, the files the build lists for it (assignment-files.json:
// its scripts, the engine's worker and wasm, the bank, the styles), and the assignment's link
// written into the page's tag
//
//   <meta name="resnorm-assignment" content="title=...&experiment=lab&...">
//
// (a tag rather than the launch URL's fragment, which LMSs do not all pass through; the quiz's
// questions and the pass mark go in the quiz's tag, launch-config.js, as for the quiz's package).
import { scormPackage } from '../scorm/package.js';
import { escapeAttr } from '../embed/snippets.js';
import { assignmentHash } from './link.js';

export const ASSIGNMENT_META = 'resnorm-assignment';
export const ASSIGNMENT_FILES = 'assignment-files.json';
const TAG = new RegExp(`<meta name="${ASSIGNMENT_META}" content="[^"]*"\\s*/?>`);

/** `html` (the built assignment.html) with the assignment's fragment (no '#') in its tag. */
export function writeAssignmentTag(html, hash) {
  if (!TAG.test(html)) throw new Error(`the assignment page has no <meta name="${ASSIGNMENT_META}"> tag`);
  const content = escapeAttr(String(hash).replace(/^#/, ''));
  return html.replace(TAG, () => `<meta name="${ASSIGNMENT_META}" content="${content}" />`);
}

/** The fragment a package's page carries ('' on the site, where the link's own fragment holds it). */
export const readAssignmentTag = (doc) =>
  doc.querySelector(`meta[name="${ASSIGNMENT_META}"]`)?.getAttribute('content') ?? '';

/**
 * The package as a zip Blob: `assignment` as assignmentHash takes it; version, title (the LMS's
 * name for it), mastery (the passing fraction of the questions, null for none), siteUrl and fetch
 * as scormPackage's. The questions are the assignment's items, which must not be empty: the
 * package reports the quiz's score.
 */
export function assignmentPackage({ assignment, ...options }) {
  if (!assignment.items?.length) throw new Error('an assignment\u2019s package needs at least one question');
  const hash = assignmentHash(assignment);
  return scormPackage({
    ...options,
    items: assignment.items,
    fileList: ASSIGNMENT_FILES,
    launchPage: (html) => writeAssignmentTag(html, hash),
  });
}
