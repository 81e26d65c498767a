// Build additions for embedding and static hosting (vite.config.js:
// `plugins: [headerPlugin(), mathPlugin(), sitePlugin()]`):
//   1. dist/resnorm-embed.js: the custom elements (web/src/embed/element.js)
//      as an extra entry with a fixed, unhashed name, so authors can link it;
//      everything else keeps its hashed name under assets/.
//   2. dist/examples/: the embedding examples of web/examples/, copied as they
//      are (they link ../embed.html and ../resnorm-embed.js).
//   3. dist/sw.js: the service worker (web/build/sw-template.js) with the
//      list of every file of the build and a hash of their contents, so a new
//      build replaces the old cache. Also defines __RESNORM_SW__ so the pages
//      register it (nothing registers in the dev server or without the plugin).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const EMBED_ENTRY = resolve(HERE, '../src/embed/element.js');
const EXAMPLES = resolve(HERE, '../examples');
const SW_TEMPLATE = resolve(HERE, 'sw-template.js');
export const EMBED_NAME = 'resnorm-embed';

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

/** The service worker's source for the files in `outDir`. */
export function serviceWorkerSource(outDir) {
  const files = walk(outDir)
    .map((p) => relative(outDir, p).split(sep).join('/'))
    .filter((f) => f !== 'sw.js' && !f.endsWith('.map'))
    .sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(f).update('\0').update(readFileSync(join(outDir, f))).update('\0');
  const version = hash.digest('hex').slice(0, 16);
  const list = ['./', ...files.map((f) => `./${f}`)];
  const source = readFileSync(SW_TEMPLATE, 'utf8')
    .replace("'__VERSION__'", JSON.stringify(version))
    .replace('__FILES__', JSON.stringify(list, null, 1));
  return { source, version, files: list };
}

export function sitePlugin() {
  let outDir = null;
  return {
    name: 'resnorm-site',
    config(config, { command }) {
      if (command !== 'build') return { define: { __RESNORM_SW__: 'false' } };
      const build = (config.build ??= {});
      const key = build.rolldownOptions ? 'rolldownOptions' : 'rollupOptions';
      const ro = (build[key] ??= {});
      ro.input = { ...(typeof ro.input === 'string' ? { index: ro.input } : ro.input ?? {}), [EMBED_NAME]: EMBED_ENTRY };
      const output = Array.isArray(ro.output) ? ro.output[0] : (ro.output ??= {});
      const inner = output.entryFileNames ?? 'assets/[name]-[hash].js';
      output.entryFileNames = (chunk) => (chunk.name === EMBED_NAME ? `${EMBED_NAME}.js`
        : typeof inner === 'function' ? inner(chunk) : inner);
      return { define: { __RESNORM_SW__: 'true' } };
    },
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    generateBundle() {
      let names = [];
      try {
        names = readdirSync(EXAMPLES);
      } catch {
        return;
      }
      for (const name of names) {
        const p = join(EXAMPLES, name);
        if (statSync(p).isFile()) this.emitFile({ type: 'asset', fileName: `examples/${name}`, source: readFileSync(p) });
      }
    },
    closeBundle() {
      if (!outDir) return;
      try {
        statSync(join(outDir, 'index.html'));
      } catch {
        return; // not the site's build (or it failed)
      }
      writeFileSync(join(outDir, 'sw.js'), serviceWorkerSource(outDir).source);
    },
  };
}
