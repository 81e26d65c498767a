// A quiz as a SCORM package, built in the browser from the site it runs on:
//
//   const blob = await scormPackage({ siteUrl, items: ['tf-01', 'why-03'], version: '2004', title });
//   download(blob, scormFileName({ version: '2004', title }));
//
// The zip holds imsmanifest.xml (manifest.js) and the launch page scorm.html
// with every file it loads, as the build lists them in scorm-files.json
// (web/build/scorm-plugin.js): its scripts, including the lazily loaded bank,
// its styles and the favicon, each fetched from `siteUrl`. The launch page gets
// the package's settings in its <meta name="resnorm-scorm"> tag
// (launch-config.js), so the package runs offline in the LMS's frame.
import { zipStored, crc32 } from './zip.js';
import { manifestXml } from './manifest.js';
import { DEFAULT_PASS_MARK, DEFAULT_SELF_GRADED, VERSIONS, isItemId, writeLaunchConfig } from './launch-config.js';
import { noticeText, readField } from '../shared/state.js';

export const DEFAULT_TITLE = 'resnorm quiz';
export const FILE_LIST = 'scorm-files.json';

/** A package's title as the start of a file name: lower case ASCII words joined by '-'. */
export const titleSlug = (title) =>
  String(title ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents, once split from their letters
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '') || 'resnorm-quiz';

/** The download's file name: the title as a slug and the version, e.g. resnorm-quiz-scorm2004.zip. */
export function scormFileName({ version, title = DEFAULT_TITLE }) {
  return `${titleSlug(title)}-scorm${String(version).replace('.', '')}.zip`;
}

async function fetchOk(fetchFn, url, what) {
  let res;
  try {
    res = await fetchFn(url);
  } catch (e) {
    throw new Error(`${what} could not be fetched (${url}): ${e.message}`);
  }
  if (!res.ok) throw new Error(`${what} could not be fetched (${url}): HTTP ${res.status}`);
  return res;
}

/** The grading settings as a package takes them, checked through the quiz fields (state.js); throws a sentence naming the field. */
export function checkGrading(selfGraded, passMark) {
  const refuse = (field, value, reason) => {
    throw new Error(noticeText({ field, value: String(value), reason }));
  };
  const self = readField('self_graded', String(selfGraded));
  if (!self.ok) refuse('self_graded', selfGraded, self.reason);
  if (passMark === null) return;
  const pass =
    typeof passMark === 'number' ? readField('pass_mark', String(passMark)) : { ok: false, reason: 'not a number' };
  if (!pass.ok) refuse('pass_mark', passMark, `${pass.reason}; or null for none`);
}

/**
 * The launch page and every file it loads, as the build lists them, fetched from the site `site`
 * (a URL): {launch: the page's name, files: [{name, data}]}, the page's text passed through `rewrite`.
 * `extra` names the list's further parts to add (['cmi5']: the cmi5 runtime, which only a cmi5
 * package runs); `fileList` is the build's list to read (another launch page's, such as the
 * assignment's assignment-files.json; the quiz's unless given).
 */
export async function launchPageFiles(site, fetchFn, rewrite, extra = [], fileList = FILE_LIST) {
  const list = await (
    await fetchOk(fetchFn, new URL(fileList, site), 'the list of the launch page\u2019s files')
  ).json();
  const files = [];
  for (const name of [...list.files, ...extra.flatMap((part) => list[part] ?? [])]) {
    const res = await fetchOk(fetchFn, new URL(name, site), name);
    if (name === list.launch) files.push({ name, data: rewrite(await res.text()) });
    else files.push({ name, data: new Uint8Array(await res.arrayBuffer()) });
  }
  return { launch: list.launch, files };
}

/**
 * The package as a zip Blob.
 * @param {{siteUrl: string|URL, items?: string[], version?: '1.2'|'2004', title?: string,
 *   selfGraded?: 'exclude'|'count', passMark?: number|null, fetch?: typeof fetch, date?: Date,
 *   fileList?: string, launchPage?: (html: string) => string}} options
 *   siteUrl: the built site's folder (where scorm.html and scorm-files.json are);
 *   items: bank ids in the order asked, [] for the whole bank;
 *   selfGraded: whether self-graded answers count in the score (default 'exclude': they do not);
 *   passMark: the percentage of the score's questions to answer right to pass, a whole number
 *   0..100 (default 80), null for none;
 *   fileList: the build's list of the launch page and its files (another page's, such as the
 *   assignment's assignment-files.json; default the quiz's); launchPage(html): the launch page's
 *   text with what else it must carry (an assignment's link), also part of the package's identifier
 * @returns {Promise<Blob>} application/zip
 */
export async function scormPackage({
  siteUrl,
  items = [],
  version = '1.2',
  title = DEFAULT_TITLE,
  selfGraded = DEFAULT_SELF_GRADED,
  passMark = DEFAULT_PASS_MARK,
  fetch: fetchFn = globalThis.fetch.bind(globalThis),
  date = new Date(),
  fileList = FILE_LIST,
  launchPage = null,
}) {
  if (!VERSIONS.includes(version)) throw new Error(`SCORM version ${JSON.stringify(version)}: use '1.2' or '2004'`);
  const bad = items.filter((id) => !isItemId(id));
  if (bad.length) throw new Error(`not question ids: ${bad.join(', ')}`);
  checkGrading(selfGraded, passMark);
  title = String(title ?? '').trim() || DEFAULT_TITLE;
  const site = new URL(siteUrl);
  let extra = [];
  const rewrite = (html) => {
    const page = writeLaunchConfig(html, { version, items, selfGraded, passMark, site: site.href, title });
    if (!launchPage) return page;
    extra = [launchPage(page)];
    return extra[0];
  };
  const { launch, files } = await launchPageFiles(site, fetchFn, rewrite, [], fileList);
  const enc = new TextEncoder();
  const identifier = `resnorm-${crc32(
    enc.encode(JSON.stringify([version, items, title, selfGraded, passMark, ...extra])),
  )
    .toString(16)
    .padStart(8, '0')}`;
  const manifest = manifestXml({
    version,
    identifier,
    title,
    launch,
    files: files.map((f) => f.name),
    passMark,
  });
  const bytes = zipStored([{ name: 'imsmanifest.xml', data: manifest }, ...files], { date });
  return new Blob([bytes], { type: 'application/zip' });
}
