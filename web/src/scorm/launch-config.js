// What a SCORM package's launch page is told by the package builder: one tag
// in scorm.html's <head>,
//
//   <meta name="resnorm-scorm" content="version=1.2&amp;items=tf-01,why-03&amp;mastery=0.8&amp;site=https://...">
//
// (a query string: the SCORM version, or cmi5 for a cmi5 package, the bank ids in order, empty for the
// whole bank, the mastery score as a fraction, empty for none, and the site the
// package was made from, for the "All the questions" link). A tag rather than
// the launch URL's query or fragment, which LMSs do not all pass through.
import { FIELDS_TABLE } from '../shared/state.js';

export const META_NAME = 'resnorm-scorm';
export const VERSIONS = ['1.2', '2004'];
/** What the launch page may be told to speak: a SCORM version, or cmi5 (../cmi5/runtime.js). */
export const LAUNCH_KINDS = [...VERSIONS, 'cmi5'];
export const DEFAULT_MASTERY = 0.8;
const ID = FIELDS_TABLE.items.pattern;
const TAG = new RegExp(`<meta name="${META_NAME}" content="[^"]*"\\s*/?>`);

const escapeAttr = (s) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/** `html` (the built scorm.html) with the launch settings written into its tag, and `title` as its <title>. */
export function writeLaunchConfig(html, { version, items, mastery, site, title }) {
  if (!TAG.test(html)) throw new Error(`the launch page has no <meta name="${META_NAME}"> tag`);
  const params = new URLSearchParams({
    version,
    items: items.join(','),
    mastery: mastery === null ? '' : String(mastery),
    site,
  });
  return html
    .replace(TAG, `<meta name="${META_NAME}" content="${escapeAttr(params.toString())}" />`)
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeAttr(title).replaceAll('>', '&gt;')}</title>`);
}

/** The launch settings of `doc`: {version, items, mastery, site}, with defaults for what is missing or wrong. */
export function readLaunchConfig(doc) {
  const content = doc.querySelector(`meta[name="${META_NAME}"]`)?.getAttribute('content') ?? '';
  const params = new URLSearchParams(content);
  const version = LAUNCH_KINDS.includes(params.get('version')) ? params.get('version') : '1.2';
  const items = (params.get('items') ?? '').split(',').filter((id) => ID.test(id));
  const m = params.get('mastery');
  let mastery = DEFAULT_MASTERY;
  if (m === '') mastery = null;
  else if (m !== null && Number(m) >= 0 && Number(m) <= 1) mastery = Number(m);
  let site = null;
  try {
    site = new URL(params.get('site') ?? '');
    if (site.protocol !== 'https:' && site.protocol !== 'http:') site = null;
  } catch {
    site = null;
  }
  return { version, items, mastery, site };
}

/** Whether `id` is a bank id as links and packages write them. */
export const isItemId = (id) => typeof id === 'string' && ID.test(id);
