// dist/scorm-files.json: what a SCORM or cmi5 package of the quiz needs from the
// build (web/src/scorm/package.js and web/src/cmi5/package.js fetch each file and
// zip them):
//
//   {"launch": "scorm.html", "files": ["scorm.html", "assets/scorm-....js", ...],
//    "cmi5": ["assets/launch-....js"]}
//
// `files`: the launch page, then every file it loads: the chunks its entry
// imports, statically or lazily (the bank), their CSS, the assets they and the
// page reference (favicon, fonts, images, also through CSS url()), except the
// cmi5 runtime's chunk (web/src/cmi5/launch.js, imported only for a cmi5
// package) and what only it needs: those are `cmi5`, which a cmi5 package adds
// and a SCORM package leaves out. A wasm file, a worker or the service worker
// among them fails the build: the package must run in the LMS's frame with
// nothing else.
//
// An assignment's package (assignment.html, whose experiment runs the engine)
// lists its files in dist/assignment-files.json the same way, with what its
// scripts load by `new URL('...', import.meta.url)`: the engine's worker and
// its wasm, which then run from the package's folder in the LMS's frame. The
// service worker is still refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';

export const LAUNCH = 'scorm.html';
export const FILE_LIST = 'scorm-files.json';
/** The assignment's launch page and its list, whose files include the engine's. */
export const ASSIGNMENT_LAUNCH = 'assignment.html';
export const ASSIGNMENT_FILE_LIST = 'assignment-files.json';
/** The module whose chunk (and what only it needs) only a cmi5 package carries. */
export const CMI5_ENTRY = 'web/src/cmi5/launch.js';

// Relative references in the page (src/href) and in CSS (url()).
const HTML_REF = /\s(?:src|href)="([^"#?]+)[^"]*"/g;
const CSS_REF = /url\(\s*['"]?([^'")#?]+)[^'")]*['"]?\s*\)/g;
// A file a script locates next to itself (the engine's worker, its wasm).
const URL_REF = /new URL\(\s*[`'"]([^`'"#?]+)[`'"]\s*,\s*import\.meta\.url\s*\)/g;
const local = (ref) => !/^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i.test(ref) && !ref.startsWith('/');

/**
 * The files of `bundle` (Rollup's output: fileName -> chunk or asset) that `launch` needs, launch
 * first; a file `skip` names is neither taken nor followed; with `engine`, the engine's worker and
 * wasm among them.
 */
export function launchFiles(
  bundle,
  launch = LAUNCH,
  read = (f) => bundle[f]?.source ?? bundle[f]?.code ?? '',
  skip = () => false,
  { engine = false } = {},
) {
  const out = [launch];
  const seen = new Set(out);
  const queue = [];
  const want = (file) => {
    if (seen.has(file) || skip(file)) return;
    if (!bundle[file]) throw new Error(`${launch} needs ${file}, which the build does not have`);
    seen.add(file);
    out.push(file);
    queue.push(file);
  };
  const refs = (from, text, pattern) => {
    for (const [, ref] of String(text).matchAll(pattern))
      if (local(ref)) want(posix.normalize(posix.join(posix.dirname(from), ref)));
  };
  refs(launch, read(launch), HTML_REF);
  while (queue.length) {
    const file = queue.shift();
    const item = bundle[file];
    if (item.type === 'chunk') {
      for (const f of [...item.imports, ...item.dynamicImports]) want(f);
      for (const f of item.viteMetadata?.importedCss ?? []) want(f);
      for (const f of item.viteMetadata?.importedAssets ?? []) want(f);
    } else if (file.endsWith('.css')) refs(file, read(file), CSS_REF);
    if (engine && file.endsWith('.js')) refs(file, read(file), URL_REF);
  }
  const bad = out.filter((f) => (engine ? /(^|\/)sw\.js$/ : /\.wasm$|(^|\/)sw\.js$|worker/i).test(f));
  if (bad.length) throw new Error(`${launch} would need ${bad.join(', ')}: a SCORM package cannot carry them`);
  return out;
}

/**
 * scorm-files.json's content: {launch, files, cmi5}, `files` without the chunk of CMI5_ENTRY and
 * what only it needs, those in `cmi5`. The build fails if that chunk is not one of its own or is
 * imported statically (a SCORM package would then need the cmi5 client it leaves out).
 */
export function packageFiles(bundle, read) {
  const entry = Object.keys(bundle).find(
    (f) => bundle[f].type === 'chunk' && String(bundle[f].facadeModuleId ?? '').endsWith(`/${CMI5_ENTRY}`),
  );
  if (!entry) throw new Error(`${LAUNCH}: ${CMI5_ENTRY} is not a chunk of its own (it must be imported lazily)`);
  const all = launchFiles(bundle, LAUNCH, read);
  if (!all.includes(entry)) throw new Error(`${LAUNCH} does not load ${CMI5_ENTRY}`);
  const files = launchFiles(bundle, LAUNCH, read, (f) => f === entry);
  const eager = files.filter((f) => bundle[f].type === 'chunk' && bundle[f].imports.includes(entry));
  if (eager.length) throw new Error(`${eager.join(', ')} imports ${CMI5_ENTRY} statically: it must be imported lazily`);
  return { launch: LAUNCH, files, cmi5: all.filter((f) => !files.includes(f)) };
}

export function scormPlugin() {
  return {
    name: 'resnorm-scorm',
    apply: 'build',
    writeBundle(options, bundle) {
      const read = (f) => readFileSync(join(options.dir, f), 'utf8');
      const write = (name, list) => writeFileSync(join(options.dir, name), `${JSON.stringify(list, null, 1)}\n`);
      if (bundle[LAUNCH]) write(FILE_LIST, packageFiles(bundle, read));
      if (bundle[ASSIGNMENT_LAUNCH]) {
        const files = launchFiles(bundle, ASSIGNMENT_LAUNCH, read, () => false, { engine: true });
        write(ASSIGNMENT_FILE_LIST, { launch: ASSIGNMENT_LAUNCH, files });
      }
    },
  };
}
