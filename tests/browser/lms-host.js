// An LMS for browser tests of SCORM packages: a folder with the unzipped package (pkg/), a host
// page whose API object is scorm-again's (SCORM 1.2's `API` or 2004's `API_1484_11`, set up before
// the package's frame loads, with the mastery score its manifest gives), and the host's calls:
//
//   const lms = lmsFolder(dir, zipBytes);         // {root, href, manifest}
//   await page.goto(`${origin}/lms/host.html`);   // root served at /lms/
//   await startSco(page, version, lms);           // launches pkg/<href> in the iframe #sco
//   await lmsValues(page, version, ['cmi.core.lesson_status']);   // value and error code of each
//   await page.evaluate(() => window.unloadSco()); // the learner leaves: the SCO finishes
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './harness.js';

const HOST_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>LMS</title><link rel="icon" href="data:,">
<script src="scorm-again.js"></script><script src="host.js"></script></head>
<body><iframe id="sco" title="The activity" width="900" height="800"></iframe></body></html>`;

// window.__lms: {api, commits, finished, saved (the data model at the last commit or finish)}
const HOST_JS = `
window.__lms = null;
window.startLms = function (version, src, data) {
  var v12 = version === '1.2';
  var api = v12 ? new Scorm12API({ logLevel: 4 }) : new Scorm2004API({ logLevel: 4 });
  api.loadFromJSON(data);
  var lms = { api: api, commits: 0, finished: false, saved: null };
  var keep = function () { lms.saved = JSON.parse(JSON.stringify(api.cmi)); };
  api.on(v12 ? 'LMSCommit' : 'Commit', function () { lms.commits++; keep(); });
  api.on(v12 ? 'LMSFinish' : 'Terminate', function () { lms.finished = true; keep(); });
  window.__lms = lms;
  window[v12 ? 'API' : 'API_1484_11'] = api;
  document.getElementById('sco').src = src;
};
window.unloadSco = function () { document.getElementById('sco').src = 'about:blank'; };
`;

/** The LMS's folder in `dir`: the package unzipped into pkg/, the host page, scorm-again. */
export function lmsFolder(dir, zipBytes) {
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg, { recursive: true });
  const zip = join(dir, 'package.zip');
  writeFileSync(zip, zipBytes);
  assert.match(execFileSync('unzip', ['-t', zip], { encoding: 'utf8' }), /No errors detected/);
  execFileSync('unzip', ['-q', '-o', zip, '-d', pkg]);
  writeFileSync(join(dir, 'host.html'), HOST_HTML);
  writeFileSync(join(dir, 'host.js'), HOST_JS);
  copyFileSync(join(ROOT, 'node_modules/scorm-again/dist/scorm-again.js'), join(dir, 'scorm-again.js'));
  const manifest = readFileSync(join(pkg, 'imsmanifest.xml'), 'utf8');
  return { root: dir, href: manifest.match(/<resource [^>]*href="([^"]+)"/)[1], manifest };
}

/** What an LMS takes from the manifest at launch (the mastery score), and a learner. */
function launchData(version, manifest) {
  if (version === '1.2') {
    const m = manifest.match(/<adlcp:masteryscore>(\d+)</);
    return {
      core: { student_id: 'u1', student_name: 'Learner, Ann' },
      ...(m && { student_data: { mastery_score: m[1] } }),
    };
  }
  const m = manifest.match(/<imsss:minNormalizedMeasure>([\d.]+)</);
  return { learner_id: 'u1', learner_name: 'Ann Learner', ...(m && { scaled_passing_score: m[1] }) };
}

/** Launches the package's SCO in the host page and returns its frame once its page is ready. */
export async function startSco(page, version, { href, manifest }) {
  await page.evaluate(
    ([v, src, d]) => window.startLms(v, src, d),
    [version, `pkg/${href}`, launchData(version, manifest)],
  );
  await page.waitForFunction(() => document.getElementById('sco').contentDocument?.body?.dataset.ready === '1');
  return page.frames().find((f) => f !== page.mainFrame() && f.url().includes('/pkg/'));
}

/** The LMS's value of each data-model element and its error code (`${name} error`). */
export const lmsValues = (page, version, names) =>
  page.evaluate(
    ([ns, v12]) => {
      const api = window.__lms.api;
      const out = {};
      for (const n of ns) {
        out[n] = v12 ? api.LMSGetValue(n) : api.GetValue(n);
        out[`${n} error`] = String(v12 ? api.LMSGetLastError() : api.GetLastError());
      }
      return out;
    },
    [names, version === '1.2'],
  );
