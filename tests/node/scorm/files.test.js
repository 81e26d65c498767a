// scorm-files.json as web/build/scorm-plugin.js writes it from a build's bundle: the launch page's
// files for every package, and apart, the cmi5 runtime's chunk and what only it needs, which a
// SCORM package leaves out. A bundle where the cmi5 runtime is not a lazily loaded chunk of its
// own fails the build. Run: node --test tests/node/scorm/files.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { CMI5_ENTRY, launchFiles, packageFiles } from '../../../web/build/scorm-plugin.js';

const chunk = (facade, imports = [], dynamicImports = []) => ({
  type: 'chunk',
  facadeModuleId: facade && `/repo/${facade}`,
  imports,
  dynamicImports,
  viteMetadata: { importedCss: new Set(), importedAssets: new Set() },
});
const page = '<script type="module" src="./assets/scorm-1.js"></script>';

/** A build like the real one: the page's entry, the lazy bank, the lazy cmi5 runtime and a chunk both share. */
function bundle({ cmi5Lazy = true } = {}) {
  return {
    'scorm.html': { type: 'asset', source: page },
    'assets/scorm-1.js': chunk(
      'web/src/pages/scorm.js',
      ['assets/shared-1.js', ...(cmi5Lazy ? [] : ['assets/launch-1.js'])],
      ['assets/bank-1.js', ...(cmi5Lazy ? ['assets/launch-1.js'] : [])],
    ),
    'assets/bank-1.js': chunk('web/src/quiz/bank.js'),
    'assets/shared-1.js': chunk(null),
    'assets/launch-1.js': chunk(CMI5_ENTRY, ['assets/shared-1.js', 'assets/client-1.js']),
    'assets/client-1.js': chunk(null),
    'index.html': { type: 'asset', source: '' },
  };
}
const read = (b) => (f) => b[f].source ?? '';

test('the cmi5 runtime and what only it needs are listed apart; what the page shares with it stays in files', () => {
  const b = bundle();
  assert.deepEqual(packageFiles(b, read(b)), {
    launch: 'scorm.html',
    files: ['scorm.html', 'assets/scorm-1.js', 'assets/shared-1.js', 'assets/bank-1.js'],
    cmi5: ['assets/launch-1.js', 'assets/client-1.js'],
  });
  // everything together is what the page can load
  assert.equal(launchFiles(b, 'scorm.html', read(b)).length, 6);
});

test('a cmi5 runtime imported statically, or not a chunk of its own, fails the build, naming the module', () => {
  const eager = bundle({ cmi5Lazy: false });
  assert.throws(
    () => packageFiles(eager, read(eager)),
    new RegExp(`assets/scorm-1.js imports ${CMI5_ENTRY} statically`),
  );
  const merged = bundle();
  delete merged['assets/launch-1.js'];
  merged['assets/scorm-1.js'].dynamicImports = ['assets/bank-1.js'];
  assert.throws(() => packageFiles(merged, read(merged)), new RegExp(`${CMI5_ENTRY} is not a chunk of its own`));
});
