// What a SCORM package's launch page is told by the package builder: one tag
// in scorm.html's <head>,
//
//   <meta name="resnorm-scorm" content="version=1.2&amp;items=tf-01,why-03&amp;self_graded=exclude&amp;pass_mark=80&amp;site=https://...">
//
// (a query string: the SCORM version, or cmi5 for a cmi5 package, the bank ids
// in order, empty for the whole bank, the grading as the quiz embed's fields
// (state.js: whether self-graded answers count, the pass mark in percent, empty
// for none), and the site the package was made from, for the "All the questions"
// link). A tag rather than the launch URL's query or fragment, which LMSs do not
// all pass through.
import { FIELDS_TABLE, readField } from '../shared/state.js';

export const META_NAME = 'resnorm-scorm';
export const VERSIONS = ['1.2', '2004'];
/** What the launch page may be told to speak: a SCORM version, or cmi5 (../cmi5/runtime.js). */
export const LAUNCH_KINDS = [...VERSIONS, 'cmi5'];
export const DEFAULT_PASS_MARK = FIELDS_TABLE.pass_mark.default;
export const DEFAULT_SELF_GRADED = FIELDS_TABLE.self_graded.default;
const ID = FIELDS_TABLE.items.pattern;
const TAG = new RegExp(`<meta name="${META_NAME}" content="[^"]*"\\s*/?>`);

const escapeAttr = (s) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/** `html` (the built scorm.html) with the launch settings written into its tag, and `title` as its <title>. */
export function writeLaunchConfig(html, { version, items, selfGraded, passMark, site, title }) {
  if (!TAG.test(html)) throw new Error(`the launch page has no <meta name="${META_NAME}"> tag`);
  const params = new URLSearchParams({
    version,
    items: items.join(','),
    self_graded: selfGraded,
    pass_mark: passMark === null ? '' : String(passMark),
    site,
  });
  return html
    .replace(TAG, `<meta name="${META_NAME}" content="${escapeAttr(params.toString())}" />`)
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeAttr(title).replaceAll('>', '&gt;')}</title>`);
}

/**
 * The launch settings of `doc`: {version, items, selfGraded, passMark, site}, with defaults for
 * what is missing or wrong (passMark null: none).
 */
export function readLaunchConfig(doc) {
  const content = doc.querySelector(`meta[name="${META_NAME}"]`)?.getAttribute('content') ?? '';
  const params = new URLSearchParams(content);
  const version = LAUNCH_KINDS.includes(params.get('version')) ? params.get('version') : '1.2';
  const items = (params.get('items') ?? '').split(',').filter((id) => ID.test(id));
  const field = (key) => {
    const r = readField(key, params.get(key) ?? '');
    return r.ok ? r.value : FIELDS_TABLE[key].default;
  };
  const selfGraded = field('self_graded');
  const passMark = params.get('pass_mark') === '' ? null : field('pass_mark');
  let site = null;
  try {
    site = new URL(params.get('site') ?? '');
    if (site.protocol !== 'https:' && site.protocol !== 'http:') site = null;
  } catch {
    site = null;
  }
  return { version, items, selfGraded, passMark, site };
}

/** Whether `id` is a bank id as links and packages write them. */
export const isItemId = (id) => typeof id === 'string' && ID.test(id);
