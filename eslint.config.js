// A handful of rules that catch real bugs: names used but never defined,
// variables defined but never used, assignments to undeclared globals.
import globals from 'globals';

export default [
  { ignores: ['build/', 'dist/', 'dist-*/', 'wasm/dist/', 'node_modules/', 'test-results/', 'bench/results/'] },
  {
    files: ['**/*.js'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
    rules: {
      'no-undef': 'error',
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-implicit-globals': 'error',
      'no-redeclare': 'error',
      'no-dupe-keys': 'error',
      'no-unreachable': 'error',
      'no-self-assign': 'error',
      'no-const-assign': 'error',
    },
  },
  // The service worker's file list is written into the template at build time.
  { files: ['web/build/sw-template.js'], languageOptions: { globals: { __FILES__: 'readonly' } } },
];
