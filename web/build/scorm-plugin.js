// dist/scorm-files.json: what a SCORM package of the quiz needs from the build
// (web/src/scorm/package.js fetches each file and zips them):
//
//   {"launch": "scorm.html", "files": ["scorm.html", "assets/scorm-....js", ...]}
//
// The launch page, then every file it loads: the chunks its entry imports,
// statically or lazily (the bank), their CSS, the assets they and the page
// reference (favicon, fonts, images, also through CSS url()). A wasm file, a
// worker or the service worker among them fails the build: the package must
// run in the LMS's frame with nothing else.
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
/** The packages the build lists files for: each launch page, its list, and whether it runs the engine. */
export const PACKAGES = [
  { launch: LAUNCH, list: FILE_LIST, engine: false },
  { launch: 'assignment.html', list: 'assignment-files.json', engine: true },
];

// Relative references in the page (src/href) and in CSS (url()).
const HTML_REF = /\s(?:src|href)="([^"#?]+)[^"]*"/g;
const CSS_REF = /url\(\s*['"]?([^'")#?]+)[^'")]*['"]?\s*\)/g;
// A file a script locates next to itself (the engine's worker, its wasm).
const URL_REF = /new URL\(\s*[`'"]([^`'"#?]+)[`'"]\s*,\s*import\.meta\.url\s*\)/g;
const local = (ref) => !/^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i.test(ref) && !ref.startsWith('/');

/**
 * The files of `bundle` (Rollup's output: fileName -> chunk or asset) that `launch` needs, launch
 * first; with `engine`, the engine's worker and wasm among them.
 */
export function launchFiles(
  bundle,
  launch = LAUNCH,
  read = (f) => bundle[f]?.source ?? bundle[f]?.code ?? '',
  { engine = false } = {},
) {
  const out = [launch];
  const seen = new Set(out);
  const queue = [];
  const want = (file) => {
    if (seen.has(file)) return;
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

export function scormPlugin() {
  return {
    name: 'resnorm-scorm',
    apply: 'build',
    writeBundle(options, bundle) {
      const read = (f) => readFileSync(join(options.dir, f), 'utf8');
      for (const { launch, list, engine } of PACKAGES) {
        if (!bundle[launch]) continue;
        const files = launchFiles(bundle, launch, read, { engine });
        writeFileSync(join(options.dir, list), `${JSON.stringify({ launch, files }, null, 1)}\n`);
      }
    },
  };
}
