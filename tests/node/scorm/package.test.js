// SCORM packages as an LMS reads them: package.js against a small site served
// by scripts/serve.js (a launch page, its scripts, CSS and favicon, and the
// scorm-files.json the build writes), unzipped by Debian's `unzip` and the
// manifest parsed by `xmllint` (libxml2-utils): well-formed, one organization
// (the default), one item launching one SCO resource whose href and every
// <file> is in the zip, and every file of the zip listed; each version's
// namespaces, schemaversion, scormtype spelling and the teacher's pass mark.
// Run: node --test tests/node/scorm/package.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../../scripts/serve.js';
import { DEFAULT_TITLE, scormFileName, scormPackage } from '../../../web/src/scorm/package.js';
import { META_NAME, readLaunchConfig, writeLaunchConfig } from '../../../web/src/scorm/launch-config.js';

const LAUNCH_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><title>resnorm quiz</title>
<meta name="resnorm-scorm" content="" />
<link rel="icon" href="./assets/favicon-1.svg" type="image/svg+xml" />
<script type="module" crossorigin src="./assets/scorm-1.js"></script>
<link rel="stylesheet" href="./assets/page-1.css"></head><body><main id="embed"></main></body></html>`;
const FILES = {
  'scorm.html': LAUNCH_HTML,
  'assets/favicon-1.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'assets/scorm-1.js': 'import("./bank-1.js");',
  'assets/bank-1.js': 'export default {items: []};',
  'assets/page-1.css': 'body{margin:0}',
  'assets/launch-1.js': 'export const cmi5 = 1;',
  'index.html': 'not part of the package',
};
const CMI5_ONLY = ['assets/launch-1.js']; // scorm-files.json's `cmi5`: not in a SCORM package
let dir;
let server;
let siteUrl;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'resnorm-scorm-pkg-'));
  const site = join(dir, 'site');
  for (const [name, text] of Object.entries(FILES)) {
    mkdirSync(join(site, name, '..'), { recursive: true });
    writeFileSync(join(site, name), text);
  }
  const list = Object.keys(FILES).filter((f) => f !== 'index.html' && !CMI5_ONLY.includes(f));
  writeFileSync(join(site, 'scorm-files.json'), JSON.stringify({ launch: 'scorm.html', files: list, cmi5: CMI5_ONLY }));
  server = await startServer({ port: 0, root: site, base: '/course/resnorm/' });
  siteUrl = `http://127.0.0.1:${server.address().port}/course/resnorm/`;
});
after(async () => {
  await new Promise((ok) => server?.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

async function unzipped(version, options = {}) {
  const blob = await scormPackage({
    siteUrl,
    items: ['tf-01', 'why-03'],
    version,
    title: 'Norms & "residuals" <1>',
    ...options,
  });
  assert.equal(blob.type, 'application/zip');
  const zip = join(dir, `p-${version}-${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(zip, Buffer.from(await blob.arrayBuffer()));
  assert.match(execFileSync('unzip', ['-t', zip], { encoding: 'utf8' }), /No errors detected/);
  const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
  const out = join(zip, '..', `x-${names.length}-${Math.random().toString(36).slice(2)}`);
  execFileSync('unzip', ['-q', zip, '-d', out]);
  const manifest = join(out, 'imsmanifest.xml');
  execFileSync('xmllint', ['--noout', manifest]); // well-formed, or it throws
  const xpath = (expr) => execFileSync('xmllint', ['--xpath', expr, manifest], { encoding: 'utf8' }).trim();
  return { names, out, manifest, xpath, text: readFileSync(manifest, 'utf8') };
}

const L = (name) => `*[local-name()='${name}']`;

for (const version of ['1.2', '2004']) {
  test(`SCORM ${version}: the manifest describes one SCO and lists exactly the files of the zip`, async () => {
    const { names, out, xpath, text } = await unzipped(version);
    assert.equal(names[0], 'imsmanifest.xml');
    assert.deepEqual(
      names.slice(1).sort(),
      Object.keys(FILES)
        .filter((f) => f !== 'index.html' && !CMI5_ONLY.includes(f))
        .sort(),
      'the launch page and its files, without the cmi5 runtime',
    );
    const id = xpath(`string(/${L('manifest')}/@identifier)`);
    assert.match(id, /^resnorm-[0-9a-f]{8}$/);
    assert.equal(xpath(`string(/${L('manifest')}/${L('metadata')}/${L('schema')})`), 'ADL SCORM');
    assert.equal(
      xpath(`string(/${L('manifest')}/${L('metadata')}/${L('schemaversion')})`),
      version === '1.2' ? '1.2' : '2004 4th Edition',
    );
    const def = xpath(`string(/${L('manifest')}/${L('organizations')}/@default)`);
    assert.equal(xpath(`count(//${L('organization')})`), '1');
    assert.equal(xpath(`string(//${L('organization')}/@identifier)`), def);
    assert.equal(xpath(`string(//${L('organization')}/${L('title')})`), 'Norms & "residuals" <1>');
    const ref = xpath(`string(//${L('organization')}/${L('item')}/@identifierref)`);
    assert.equal(xpath(`count(//${L('resource')})`), '1');
    assert.equal(xpath(`string(//${L('resource')}/@identifier)`), ref);
    const href = xpath(`string(//${L('resource')}/@href)`);
    assert.equal(href, 'scorm.html');
    assert.ok(names.includes(href));
    const scormType = version === '1.2' ? 'scormtype' : 'scormType';
    assert.equal(xpath(`string(//${L('resource')}/@*[local-name()='${scormType}'])`), 'sco');
    assert.equal(xpath(`string(//${L('resource')}/@type)`), 'webcontent');
    const listed = xpath(`//${L('file')}/@href`)
      .split('\n')
      .map((a) => a.trim().replace(/^href="(.*)"$/, '$1'));
    assert.deepEqual(listed.sort(), names.slice(1).sort(), 'every <file> is in the zip and every file is listed');
    if (version === '1.2') {
      assert.match(text, /xmlns="http:\/\/www\.imsproject\.org\/xsd\/imscp_rootv1p1p2"/);
      assert.match(text, /xmlns:adlcp="http:\/\/www\.adlnet\.org\/xsd\/adlcp_rootv1p2"/);
      assert.equal(xpath(`string(//${L('item')}/*[local-name()='masteryscore'])`), '80');
    } else {
      assert.match(text, /xmlns="http:\/\/www\.imsglobal\.org\/xsd\/imscp_v1p1"/);
      assert.match(text, /xmlns:adlcp="http:\/\/www\.adlnet\.org\/xsd\/adlcp_v1p3"/);
      assert.equal(xpath(`string(//${L('primaryObjective')}/@satisfiedByMeasure)`), 'true');
      assert.equal(xpath(`string(//${L('minNormalizedMeasure')})`), '0.8');
    }
    // the launch page knows the package's settings; the other files are as served
    const launch = readFileSync(join(out, 'scorm.html'), 'utf8');
    const content = launch.match(new RegExp(`<meta name="${META_NAME}" content="([^"]*)"`))[1].replaceAll('&amp;', '&');
    const doc = { querySelector: () => ({ getAttribute: () => content }) };
    assert.deepEqual(readLaunchConfig(doc), {
      version,
      items: ['tf-01', 'why-03'],
      selfGraded: 'exclude',
      passMark: 80,
      site: new URL(siteUrl),
    });
    assert.match(launch, /<title>Norms &amp; &quot;residuals&quot; &lt;1&gt;<\/title>/);
    assert.equal(readFileSync(join(out, 'assets/bank-1.js'), 'utf8'), FILES['assets/bank-1.js']);
  });
}

const launchOf = (out) => {
  const launch = readFileSync(join(out, 'scorm.html'), 'utf8');
  const content = launch.match(/content="(version=[^"]*)"/)[1].replaceAll('&amp;', '&');
  return readLaunchConfig({ querySelector: () => ({ getAttribute: () => content }) });
};

test('the teacher\u2019s pass mark and grading: in each manifest where its LMS reads it, and in the launch page', async () => {
  for (const [passMark, score, measure] of [
    [50, '50', '0.5'],
    [90, '90', '0.9'],
    [0, '0', '0'],
    [100, '100', '1'],
    [7, '7', '0.07'],
  ]) {
    const v12 = await unzipped('1.2', { passMark, selfGraded: 'count' });
    assert.equal(v12.xpath(`string(//${L('item')}/*[local-name()='masteryscore'])`), score);
    assert.deepEqual([launchOf(v12.out).passMark, launchOf(v12.out).selfGraded], [passMark, 'count']);
    const v2004 = await unzipped('2004', { passMark });
    assert.equal(v2004.xpath(`string(//${L('minNormalizedMeasure')})`), measure);
    assert.deepEqual([launchOf(v2004.out).passMark, launchOf(v2004.out).selfGraded], [passMark, 'exclude']);
  }
});

test('no pass mark: none in either manifest, and the launch page is told so', async () => {
  const v12 = await unzipped('1.2', { passMark: null });
  assert.doesNotMatch(v12.text, /masteryscore/);
  const v2004 = await unzipped('2004', { passMark: null, items: [] });
  assert.doesNotMatch(v2004.text, /sequencing/);
  const cfg = launchOf(v2004.out);
  assert.equal(cfg.passMark, null);
  assert.deepEqual(cfg.items, [], 'the whole bank');
});

test('a launch page with damaged settings falls back to the defaults', () => {
  const read = (content) => readLaunchConfig({ querySelector: () => ({ getAttribute: () => content }) });
  for (const bad of [
    'pass_mark=120&self_graded=yes',
    'pass_mark=-1',
    'pass_mark=1e400&self_graded=',
    'pass_mark=x',
    '',
  ])
    assert.deepEqual([read(bad).passMark, read(bad).selfGraded], [80, 'exclude'], bad);
});

test('a bad version, a bad id, a bad grading or a missing file is an error that says which', async () => {
  await assert.rejects(scormPackage({ siteUrl, version: '1.3' }), /SCORM version "1.3"/);
  await assert.rejects(scormPackage({ siteUrl, items: ['tf-01', 'nope'] }), /not question ids: nope/);
  for (const [passMark, reason] of [
    [120, /Pass mark \(%\) \(pass_mark\) \u201c120\u201d: out of range \(allowed 0\.\.100\)/],
    [-5, /pass_mark.*out of range \(allowed 0\.\.100\)/],
    [75.5, /pass_mark.*not a whole number/],
    [Number.NaN, /pass_mark.*not a number/],
    ['80', /pass_mark.*not a number/],
  ])
    await assert.rejects(scormPackage({ siteUrl, passMark }), reason, String(passMark));
  await assert.rejects(
    scormPackage({ siteUrl, selfGraded: 'maybe' }),
    /Self-graded answers in the score \(self_graded\) \u201cmaybe\u201d: not one of the choices \(allowed exclude, count\)/,
  );
  await assert.rejects(scormPackage({ siteUrl: `${siteUrl}missing/` }), /scorm-files\.json.*HTTP 404/);
  assert.throws(() => writeLaunchConfig('<html></html>', {}), /no <meta name="resnorm-scorm">/);
});

test('file names: the title as a slug and the version', () => {
  assert.equal(
    scormFileName({ version: '1.2', title: 'Week 3: Norms & Résidus!' }),
    'week-3-norms-residus-scorm12.zip',
  );
  assert.equal(scormFileName({ version: '2004' }), `${DEFAULT_TITLE.replaceAll(' ', '-')}-scorm2004.zip`);
  assert.equal(scormFileName({ version: '2004', title: '***' }), 'resnorm-quiz-scorm2004.zip');
});
