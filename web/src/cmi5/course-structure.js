// cmi5.xml: the course structure of a cmi5 course with one assignable unit (AU), as the cmi5
// specification (section 13) and its CourseStructure.xsd describe it. The course and the AU each
// have an id (an absolute IRI, which the LMS keeps as the "publisher id"), a title and a
// description; the AU has its launch url (relative to the zip's root, where cmi5.xml sits), its
// masteryScore (a fraction 0..1 with at most 4 decimals; absent when the quiz has no pass mark) and
// its moveOn: "Passed" with a mastery score (the LMS counts the AU done once the learner passes),
// "Completed" without one (done once every question is answered).

import { xml } from '../scorm/manifest.js';

export const COURSE_STRUCTURE_NS = 'https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd';
export const MOVE_ON = ['NotApplicable', 'Passed', 'Completed', 'CompletedAndPassed', 'CompletedOrPassed'];
export const LAUNCH_METHODS = ['AnyWindow', 'OwnWindow'];

/** Whether `id` is an absolute IRI as cmi5 ids must be: a scheme, no spaces or control characters. */
export const isAbsoluteIri = (id) =>
  typeof id === 'string' && /^[a-z][a-z0-9+.-]*:[^\s"<>\\^`{|}]+$/i.test(id) && !/\p{Cc}/u.test(id);

/** Whether `url` is a launch url relative to the package's root: no scheme, not rooted, not leaving the folder. */
export const isRelativeLaunchUrl = (url) =>
  typeof url === 'string' &&
  url.length > 0 &&
  !/^[a-z][a-z0-9+.-]*:/i.test(url) &&
  !url.startsWith('/') &&
  !/\s/.test(url) &&
  !url.split(/[?#]/)[0].split('/').includes('..');

/** A mastery score as the course structure writes it: 0..1, rounded to 4 decimals; null stays null. */
export function masteryScoreOf(mastery) {
  if (mastery === null) return null;
  if (typeof mastery !== 'number' || !(mastery >= 0 && mastery <= 1))
    throw new Error(`masteryScore ${mastery}: use a fraction 0..1 (e.g. 0.8) or null for no pass mark`);
  return Math.round(mastery * 10000) / 10000;
}

/**
 * The text of cmi5.xml.
 * @param {{courseId: string, auId: string, title: string, description: string, url: string,
 *   masteryScore?: number|null, moveOn?: string, launchMethod?: string, lang?: string}} options
 *   courseId, auId: absolute IRIs, different from each other; url: the AU's launch page, relative;
 *   moveOn: "Passed" with a mastery score, else "Completed", unless given
 */
export function courseStructureXml({
  courseId,
  auId,
  title,
  description,
  url,
  masteryScore = null,
  moveOn = masteryScore === null ? 'Completed' : 'Passed',
  launchMethod = 'AnyWindow',
  lang = 'en',
}) {
  for (const [name, id] of [
    ['courseId', courseId],
    ['auId', auId],
  ])
    if (!isAbsoluteIri(id)) throw new Error(`${name} ${JSON.stringify(id)}: use an absolute IRI (e.g. https://...)`);
  if (courseId === auId) throw new Error('courseId and auId must differ');
  if (!isRelativeLaunchUrl(url))
    throw new Error(`url ${JSON.stringify(url)}: use a path relative to the package's root (e.g. scorm.html)`);
  if (!MOVE_ON.includes(moveOn)) throw new Error(`moveOn ${JSON.stringify(moveOn)}: use one of ${MOVE_ON.join(', ')}`);
  if (!LAUNCH_METHODS.includes(launchMethod))
    throw new Error(`launchMethod ${JSON.stringify(launchMethod)}: use ${LAUNCH_METHODS.join(' or ')}`);
  const mastery = masteryScoreOf(masteryScore);
  if (['Passed', 'CompletedAndPassed'].includes(moveOn) && mastery === null)
    throw new Error(`moveOn ${moveOn} needs a masteryScore: without a pass mark nothing is passed`);
  const text = (s) => `\n      <langstring lang="${xml(lang)}">${xml(s)}</langstring>\n    `;
  const masteryAttr = mastery === null ? '' : ` masteryScore="${mastery}"`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<courseStructure xmlns="${COURSE_STRUCTURE_NS}">
  <course id="${xml(courseId)}">
    <title>${text(title)}</title>
    <description>${text(description)}</description>
  </course>
  <au id="${xml(auId)}" moveOn="${moveOn}"${masteryAttr} launchMethod="${launchMethod}">
    <title>${text(title)}</title>
    <description>${text(description)}</description>
    <url>${xml(url)}</url>
  </au>
</courseStructure>
`;
}
