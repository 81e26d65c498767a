// The static site: web/ -> dist/, relative URLs only (base './'), so the
// output works from any sub-path of any static host.
import { defineConfig } from 'vite';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { mathPlugin } from './web/build/math-plugin.js';
import { figuresPlugin } from './web/build/figures-plugin.js';
import { sitePlugin } from './web/build/site-plugin.js';
import { headerPlugin } from './web/build/header-plugin.js';
import { firstPaintPlugin } from './web/build/first-paint.js';
import { scormPlugin } from './web/build/scorm-plugin.js';

// Every top-level page of the site (the explorer, the quizzes, the papers,
// the training lab, the embeddable view, a SCORM package's launch page, an
// assignment and the form that makes one), each built if it exists.
const PAGES = ['index', 'quiz', 'papers', 'train', 'embed', 'scorm', 'assignment'];
const input = Object.fromEntries(PAGES.filter((p) => existsSync(`web/${p}.html`)).map((p) => [p, `web/${p}.html`]));

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: 'public',
  // figuresPlugin: the papers' figures written into papers.html (before the math). sitePlugin: the unhashed dist/resnorm-embed.js, dist/sw.js with the build's
  // file list, and web/examples/ copied to dist/examples/. scormPlugin:
  // dist/scorm-files.json and dist/assignment-files.json, the files a SCORM package of the quiz
  // and of an assignment needs.
  plugins: [headerPlugin(), figuresPlugin(), mathPlugin(), sitePlugin(), scormPlugin(), firstPaintPlugin()],
  build: {
    // RESNORM_DIST builds elsewhere (the browser tests read the same variable).
    outDir: process.env.RESNORM_DIST ? resolve(process.env.RESNORM_DIST) : '../dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0, // never inline the wasm or anything else as data: URLs
    // No polyfill: it is an inline script, refused by a strict CSP. No preload links for a
    // dynamic import: the helper would add them to the document, which for resnorm-embed.js is
    // the host's page (a chunk that needs the bundler's runtime chunk gets one).
    modulePreload: {
      polyfill: false,
      resolveDependencies: (file, deps, { hostType }) => (hostType === 'js' ? [] : deps),
    },
    rollupOptions: { input },
  },
  worker: { format: 'es' },
  server: { fs: { allow: ['..'] } },
});
