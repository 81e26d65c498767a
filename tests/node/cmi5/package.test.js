// cmi5 course packages as an LMS reads them (cmi5 spec sections 13 and 14): cmi5.js's package
// built against a small site served by scripts/serve.js, unzipped by Debian's `unzip`, and its
// cmi5.xml read by `xmllint`: well-formed, in the CourseStructure namespace, at the zip's root;
// the course and the AU with absolute IRI ids (different, stable for the same package), a title
// and a description; the AU's url relative and in the zip; masteryScore a decimal 0..1 with at
// most 4 decimals; moveOn one of the five values (Passed with a pass mark, Completed without);
// launchMethod AnyWindow. The course structure writer refuses what breaks those rules, naming the
// field. Run: node --test tests/node/cmi5/package.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../../scripts/serve.js';
import { cmi5FileName, cmi5Package } from '../../../web/src/cmi5/package.js';
import {
  COURSE_STRUCTURE_NS,
  MOVE_ON,
  courseStructureXml,
  isAbsoluteIri,
  isRelativeLaunchUrl,
} from '../../../web/src/cmi5/course-structure.js';
import { META_NAME, readLaunchConfig } from '../../../web/src/scorm/launch-config.js';

const FILES = {
  'scorm.html': `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><title>resnorm quiz</title>
<meta name="resnorm-scorm" content="" />
<script type="module" crossorigin src="./assets/scorm-1.js"></script></head><body><main id="embed"></main></body></html>`,
  'assets/scorm-1.js': 'import("./launch-1.js");',
  'assets/launch-1.js': 'export const cmi5 = 1;',
};
let dir;
let server;
let siteUrl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'resnorm-cmi5-pkg-'));
  const site = join(dir, 'site');
  for (const [name, text] of Object.entries(FILES)) {
    mkdirSync(join(site, name, '..'), { recursive: true });
    writeFileSync(join(site, name), text);
  }
  // the cmi5 runtime's chunk is listed apart (a SCORM package leaves it out); a cmi5 package takes it
  writeFileSync(
    join(site, 'scorm-files.json'),
    JSON.stringify({ launch: 'scorm.html', files: ['scorm.html', 'assets/scorm-1.js'], cmi5: ['assets/launch-1.js'] }),
  );
  server = await startServer({ port: 0, root: site, base: '/course/resnorm/' });
  // Node's fetch reuses an idle connection; the server must not close it meanwhile (its default
  // is after 5 s), or a request on it fails with "fetch failed" whatever it asked
  server.keepAliveTimeout = 10 * 60 * 1000;
  siteUrl = `http://127.0.0.1:${server.address().port}/course/resnorm/`;
});
after(async () => {
  await new Promise((ok) => server?.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

async function unzipped(options = {}) {
  const blob = await cmi5Package({ siteUrl, items: ['tf-01', 'why-03'], title: 'Norms & "residuals" <1>', ...options });
  assert.equal(blob.type, 'application/zip');
  const zip = join(dir, `p-${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(zip, Buffer.from(await blob.arrayBuffer()));
  assert.match(execFileSync('unzip', ['-t', zip], { encoding: 'utf8' }), /No errors detected/);
  const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
  const out = `${zip}.d`;
  execFileSync('unzip', ['-q', zip, '-d', out]);
  const file = join(out, 'cmi5.xml');
  return { names, out, ...readStructure(file) };
}

const L = (name) => `*[local-name()='${name}']`;
/** cmi5.xml through xmllint: well-formed (or it throws), and an xpath reader. */
function readStructure(file) {
  execFileSync('xmllint', ['--noout', file]);
  const xpath = (expr) => execFileSync('xmllint', ['--xpath', expr, file], { encoding: 'utf8' }).trim();
  return { xpath, text: readFileSync(file, 'utf8') };
}

/** The course structure rules an LMS checks on import, in words; [] when all hold. */
function structureProblems(xpath, names) {
  const out = [];
  const root = `/${L('courseStructure')}`;
  if (xpath(`namespace-uri(${root})`) !== COURSE_STRUCTURE_NS) out.push('not in the CourseStructure namespace');
  if (xpath(`count(${root}/${L('course')})`) !== '1') out.push('not one <course>');
  const ids = [xpath(`string(${root}/${L('course')}/@id)`), ...xpath(`${root}//${L('au')}/@id`).split('\n')].map((a) =>
    a.trim().replace(/^id="(.*)"$/, '$1'),
  );
  for (const id of ids) if (!isAbsoluteIri(id)) out.push(`id ${id} is not an absolute IRI`);
  if (new Set(ids).size !== ids.length) out.push('ids repeat');
  for (const el of ['course', 'au'])
    for (const part of ['title', 'description'])
      if (xpath(`count(${root}//${L(el)}[not(${L(part)}/${L('langstring')}[normalize-space()])])`) !== '0')
        out.push(`an <${el}> without a <${part}> langstring`);
  const aus = Number(xpath(`count(${root}//${L('au')})`));
  if (aus < 1) out.push('no <au>');
  for (let i = 1; i <= aus; i++) {
    const au = `(${root}//${L('au')})[${i}]`;
    const url = xpath(`string(${au}/${L('url')})`);
    if (!isRelativeLaunchUrl(url) || !names.includes(url))
      out.push(`au ${i}: url ${url} is not a relative url of the zip`);
    const mastery = xpath(`string(${au}/@masteryScore)`);
    if (mastery && !(/^(0(\.\d{1,4})?|1(\.0{1,4})?)$/.test(mastery) && Number(mastery) <= 1))
      out.push(`au ${i}: masteryScore ${mastery}`);
    const moveOn = xpath(`string(${au}/@moveOn)`);
    if (moveOn && !MOVE_ON.includes(moveOn)) out.push(`au ${i}: moveOn ${moveOn}`);
    if (['Passed', 'CompletedAndPassed'].includes(moveOn) && !mastery)
      out.push(`au ${i}: moveOn ${moveOn} without masteryScore`);
    const method = xpath(`string(${au}/@launchMethod)`);
    if (method && !['AnyWindow', 'OwnWindow'].includes(method)) out.push(`au ${i}: launchMethod ${method}`);
  }
  return out;
}

test('cmi5.xml at the root: a course and one AU by the course structure rules, launching the page in the zip', async () => {
  const { names, out, xpath, text } = await unzipped({ passMark: 75 });
  assert.equal(names[0], 'cmi5.xml');
  assert.deepEqual(names.slice(1).sort(), Object.keys(FILES).sort());
  assert.deepEqual(structureProblems(xpath, names), []);
  const courseId = xpath(`string(//${L('course')}/@id)`);
  assert.match(courseId, new RegExp(`^${siteUrl.replaceAll('.', '\\.')}cmi5/course/[0-9a-f]{8}$`));
  assert.equal(xpath(`string(//${L('au')}/@id)`), `${courseId}/au/quiz`);
  assert.equal(xpath(`string(//${L('au')}/@masteryScore)`), '0.75');
  assert.equal(xpath(`string(//${L('au')}/@moveOn)`), 'Passed');
  assert.equal(xpath(`string(//${L('au')}/@launchMethod)`), 'AnyWindow');
  assert.equal(xpath(`string(//${L('au')}/${L('url')})`), 'scorm.html');
  assert.equal(xpath(`normalize-space(//${L('course')}/${L('title')}/${L('langstring')})`), 'Norms & "residuals" <1>');
  assert.match(xpath(`normalize-space(//${L('au')}/${L('description')})`), /2 questions \(tf-01, why-03\)/);
  assert.match(text, /<langstring lang="en">/);
  // the launch page is told to speak cmi5, with the questions and the pass mark
  const launch = readFileSync(join(out, 'scorm.html'), 'utf8');
  const content = launch.match(new RegExp(`<meta name="${META_NAME}" content="([^"]*)"`))[1].replaceAll('&amp;', '&');
  assert.deepEqual(readLaunchConfig({ querySelector: () => ({ getAttribute: () => content }) }), {
    version: 'cmi5',
    items: ['tf-01', 'why-03'],
    selfGraded: 'exclude',
    passMark: 75,
    site: new URL(siteUrl),
  });
  assert.equal(readFileSync(join(out, 'assets/launch-1.js'), 'utf8'), FILES['assets/launch-1.js']);
  // the same package twice: the same ids (a re-upload updates the course); another: others
  const again = await unzipped({ passMark: 75 });
  assert.equal(again.xpath(`string(//${L('course')}/@id)`), courseId);
  const other = await unzipped({ passMark: 80 });
  assert.notEqual(other.xpath(`string(//${L('course')}/@id)`), courseId);
});

test('no pass mark: no masteryScore and moveOn Completed; the pass mark in percent as a fraction', async () => {
  const none = await unzipped({ passMark: null, items: [] });
  assert.deepEqual(structureProblems(none.xpath, none.names), []);
  assert.equal(none.xpath(`count(//${L('au')}/@masteryScore)`), '0');
  assert.equal(none.xpath(`string(//${L('au')}/@moveOn)`), 'Completed');
  assert.match(none.xpath(`normalize-space(//${L('au')}/${L('description')})`), /every question of the bank/);
  const fine = await unzipped({ passMark: 67 });
  assert.equal(fine.xpath(`string(//${L('au')}/@masteryScore)`), '0.67');
  assert.deepEqual(structureProblems(fine.xpath, fine.names), []);
});

test('the rules the test reads cmi5.xml by catch a structure that breaks them', () => {
  const file = join(dir, 'bad.xml');
  const check = (xml) => {
    writeFileSync(file, xml);
    const { xpath } = readStructure(file);
    return structureProblems(xpath, ['scorm.html']);
  };
  const good = courseStructureXml({
    courseId: 'https://example.org/c',
    auId: 'https://example.org/c/au',
    title: 't',
    description: 'd',
    url: 'scorm.html',
    masteryScore: 0.5,
  });
  assert.deepEqual(check(good), []);
  assert.match(check(good.replace('id="https://example.org/c"', 'id="c1"')).join(), /id c1 is not an absolute IRI/);
  assert.match(check(good.replace('<url>scorm.html', '<url>https://elsewhere.org/scorm.html')).join(), /url/);
  assert.match(check(good.replace('masteryScore="0.5"', 'masteryScore="1.5"')).join(), /masteryScore 1\.5/);
  assert.match(check(good.replace('masteryScore="0.5"', 'masteryScore="0.12345"')).join(), /masteryScore 0\.12345/);
  assert.match(check(good.replace('moveOn="Passed"', 'moveOn="Done"')).join(), /moveOn Done/);
  assert.match(check(good.replace(' masteryScore="0.5"', '')).join(), /Passed without masteryScore/);
  assert.match(check(good.replace(COURSE_STRUCTURE_NS, 'urn:x')).join(), /namespace/);
});

test('the writer refuses what breaks the rules, naming the field', () => {
  const base = { courseId: 'https://e.org/c', auId: 'https://e.org/c/au', title: 't', description: 'd', url: 'a.html' };
  assert.throws(
    () => courseStructureXml({ ...base, courseId: 'not an iri' }),
    /courseId "not an iri": use an absolute IRI/,
  );
  assert.throws(() => courseStructureXml({ ...base, auId: base.courseId }), /courseId and auId must differ/);
  assert.throws(() => courseStructureXml({ ...base, url: '/abs.html' }), /url "\/abs\.html": use a path relative/);
  assert.throws(() => courseStructureXml({ ...base, url: '../up.html' }), /url "\.\.\/up\.html"/);
  assert.throws(() => courseStructureXml({ ...base, url: 'https://x.org/a.html' }), /url/);
  assert.throws(() => courseStructureXml({ ...base, masteryScore: 1.2 }), /masteryScore 1\.2: use a fraction 0\.\.1/);
  assert.throws(() => courseStructureXml({ ...base, masteryScore: -0.1 }), /masteryScore -0\.1/);
  assert.throws(() => courseStructureXml({ ...base, moveOn: 'Passed' }), /moveOn Passed needs a masteryScore/);
  assert.throws(() => courseStructureXml({ ...base, moveOn: 'passed' }), /moveOn "passed": use one of/);
  assert.throws(() => courseStructureXml({ ...base, launchMethod: 'Popup' }), /launchMethod "Popup"/);
});

test('a bad id or grading is an error that says which; the file name is the title and cmi5', async () => {
  await assert.rejects(cmi5Package({ siteUrl, items: ['tf-01', 'nope'] }), /not question ids: nope/);
  await assert.rejects(cmi5Package({ siteUrl, passMark: 200 }), /pass_mark.*200.*0\.\.100/i);
  await assert.rejects(cmi5Package({ siteUrl, selfGraded: 'maybe' }), /self_graded.*maybe/i);
  await assert.rejects(cmi5Package({ siteUrl: `${siteUrl}missing/` }), /scorm-files\.json.*HTTP 404/);
  assert.equal(cmi5FileName({ title: 'Week 3: Norms & Résidus!' }), 'week-3-norms-residus-cmi5.zip');
  assert.equal(cmi5FileName({}), 'resnorm-quiz-cmi5.zip');
});
