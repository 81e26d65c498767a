// A quiz as a cmi5 course package, built in the browser from the site it runs on:
//
//   const blob = await cmi5Package({ siteUrl, items: ['tf-01', 'why-03'], title, passMark: 75 });
//   download(blob, cmi5FileName({ title }));
//
// The zip holds cmi5.xml (course-structure.js) at its root and the same launch page and files
// as a SCORM package (../scorm/package.js) with the cmi5 runtime's chunk, which a SCORM package
// leaves out (scorm-files.json's `cmi5`), the page told to speak cmi5 in its
// <meta name="resnorm-scorm"> tag: launched by the LMS with the cmi5 query parameters, it
// reports to the LMS's xAPI endpoint (runtime.js). The course and AU ids are IRIs under the site
// the package was made from, the same for the same questions, title and grading, so that
// uploading a package again updates the course in the LMS rather than adding another.
import { zipStored, crc32 } from '../scorm/zip.js';
import { DEFAULT_TITLE, checkGrading, launchPageFiles, titleSlug } from '../scorm/package.js';
import { DEFAULT_PASS_MARK, DEFAULT_SELF_GRADED, isItemId, writeLaunchConfig } from '../scorm/launch-config.js';
import { courseStructureXml, masteryScoreOf } from './course-structure.js';

export const COURSE_FILE = 'cmi5.xml';

/** The download's file name: the title as a slug, e.g. resnorm-quiz-cmi5.zip. */
export const cmi5FileName = ({ title = DEFAULT_TITLE } = {}) => `${titleSlug(title)}-cmi5.zip`;

/** What the course is about, for the LMS's catalogue. */
function describeCourse(items) {
  const which = items.length
    ? `${items.length} question${items.length === 1 ? '' : 's'} (${items.join(', ')})`
    : 'every question of the bank';
  return `A quiz from resnorm, on why transformers need residual connections and where the normalization goes: ${which}.`;
}

/**
 * The package as a zip Blob.
 * @param {{siteUrl: string|URL, items?: string[], title?: string, selfGraded?: 'exclude'|'count',
 *   passMark?: number|null, fetch?: typeof fetch, date?: Date}} options
 *   siteUrl: the built site's folder (where scorm.html and scorm-files.json are);
 *   items: bank ids in the order asked, [] for the whole bank;
 *   selfGraded, passMark: the grading, as scormPackage takes it (default 'exclude' and 80); the
 *   course structure's masteryScore is passMark / 100, none when passMark is null
 * @returns {Promise<Blob>} application/zip
 */
export async function cmi5Package({
  siteUrl,
  items = [],
  title = DEFAULT_TITLE,
  selfGraded = DEFAULT_SELF_GRADED,
  passMark = DEFAULT_PASS_MARK,
  fetch: fetchFn = globalThis.fetch.bind(globalThis),
  date = new Date(),
}) {
  const bad = items.filter((id) => !isItemId(id));
  if (bad.length) throw new Error(`not question ids: ${bad.join(', ')}`);
  checkGrading(selfGraded, passMark);
  const masteryScore = passMark === null ? null : masteryScoreOf(passMark / 100);
  title = String(title ?? '').trim() || DEFAULT_TITLE;
  const site = new URL(siteUrl);
  const { launch, files } = await launchPageFiles(
    site,
    fetchFn,
    (html) => writeLaunchConfig(html, { version: 'cmi5', items, selfGraded, passMark, site: site.href, title }),
    ['cmi5'],
  );
  const key = crc32(new TextEncoder().encode(JSON.stringify(['cmi5', items, title, selfGraded, passMark])))
    .toString(16)
    .padStart(8, '0');
  const courseId = new URL(`cmi5/course/${key}`, site).href;
  const structure = courseStructureXml({
    courseId,
    auId: `${courseId}/au/quiz`,
    title,
    description: describeCourse(items),
    url: launch,
    masteryScore,
  });
  const bytes = zipStored([{ name: COURSE_FILE, data: structure }, ...files], { date });
  return new Blob([bytes], { type: 'application/zip' });
}
