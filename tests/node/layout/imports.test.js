// The imports run one way: web/src/shared/ imports only itself and packages,
// web/src/claims/ (every folder below it) only itself, shared/ and packages,
// web/src/engine/ only itself, claims/, shared/ and the wasm wrapper (wasm/resnorm.js and its
// engine-error.js); no view (explorer,
// train, quiz, papers, embed, pages) is imported from below. Every static and
// dynamic import of those folders is read from the source text.
// Run: node --test tests/node/layout/imports.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../helpers.js';

const SRC = join(ROOT, 'web/src');

/** The module paths a source `text` at `file` imports (from ..., import '...', import('...')),
 * relative to the repository, or package:name. */
function importsIn(text, file) {
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
  return specs.map((s) => (s.startsWith('.') ? relative(ROOT, resolve(dirname(file), s)) : `package:${s}`));
}
const importsOf = (file) => importsIn(readFileSync(file, 'utf8'), file);

const ALLOWED = {
  shared: (p) => p.startsWith('web/src/shared/') || p.startsWith('package:'),
  claims: (p) => p.startsWith('web/src/claims/') || p.startsWith('web/src/shared/') || p.startsWith('package:'),
  engine: (p) =>
    p.startsWith('web/src/engine/') ||
    p.startsWith('web/src/claims/') ||
    p.startsWith('web/src/shared/') ||
    p === 'wasm/resnorm.js' ||
    p === 'wasm/engine-error.js' ||
    p.startsWith('package:'),
};

/** The .js files of a folder and of every folder below it, relative to that folder. */
const jsFilesBelow = (dir, sub = '') =>
  readdirSync(join(dir, sub)).flatMap((f) => {
    const rel = sub ? `${sub}/${f}` : f;
    if (statSync(join(dir, rel)).isDirectory()) return jsFilesBelow(dir, rel);
    return f.endsWith('.js') ? [rel] : [];
  });

for (const [folder, allowed] of Object.entries(ALLOWED)) {
  test(`web/src/${folder}/ imports no view`, () => {
    const files = jsFilesBelow(join(SRC, folder));
    assert.ok(files.length > 3, `the files of web/src/${folder}/`);
    const wrong = files.flatMap((f) =>
      importsOf(join(SRC, folder, f))
        .filter((p) => !allowed(p))
        .map((p) => `${folder}/${f} imports ${p}`),
    );
    assert.deepEqual(wrong, []);
  });
}

test('the import reader sees an upward import (the check can fail)', () => {
  const text = `import { a } from '../train/view.js';\nimport uPlot from 'uplot';\nconst m = import('../quiz/ui/router.js');`;
  const seen = importsIn(text, join(SRC, 'shared', 'x.js'));
  assert.deepEqual(seen, ['web/src/train/view.js', 'package:uplot', 'web/src/quiz/ui/router.js']);
  assert.deepEqual(seen.map(ALLOWED.shared), [false, true, false]);
});

test('a claim importing the papers view or the engine is seen (the claims check can fail)', () => {
  const text = `import { colors } from '../../papers/chart.js';\nimport { reproduce } from '../../engine/experiments.js';\nimport { fixed } from '../../shared/format.js';\nimport { judged } from './common.js';`;
  const seen = importsIn(text, join(SRC, 'claims', 'papers', 'x.js'));
  assert.deepEqual(seen, [
    'web/src/papers/chart.js',
    'web/src/engine/experiments.js',
    'web/src/shared/format.js',
    'web/src/claims/papers/common.js',
  ]);
  assert.deepEqual(seen.map(ALLOWED.claims), [false, false, true, true]);
});
