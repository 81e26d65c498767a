// The imports run one way: web/src/shared/ imports only itself and packages,
// web/src/claims/lab/ (the training lab's claims) only claims/, shared/ and packages,
// web/src/engine/ only itself, shared/, the lab's claims (whose runs the papers page trains) and
// the wasm wrapper (wasm/resnorm.js and its engine-error.js); no view (explorer,
// train, quiz, papers, embed, pages) is imported from below. Every static and
// dynamic import of those folders is read from the source text.
// Run: node --test tests/node/layout/imports.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
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
  'claims/lab': (p) => p.startsWith('web/src/claims/') || p.startsWith('web/src/shared/') || p.startsWith('package:'),
  engine: (p) =>
    p.startsWith('web/src/engine/') ||
    p.startsWith('web/src/shared/') ||
    p.startsWith('web/src/claims/lab/') ||
    p === 'wasm/resnorm.js' ||
    p === 'wasm/engine-error.js' ||
    p.startsWith('package:'),
};

for (const [folder, allowed] of Object.entries(ALLOWED)) {
  test(`web/src/${folder}/ imports no view`, () => {
    const files = readdirSync(join(SRC, folder)).filter((f) => f.endsWith('.js'));
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
