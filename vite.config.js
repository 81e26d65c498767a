// The static site: web/ -> dist/, relative URLs only (base './'), so the
// output works from any sub-path of any static host.
import { defineConfig } from 'vite';
import { mathPlugin } from './web/build/math-plugin.js';

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: 'public',
  plugins: [mathPlugin()],
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0, // never inline the wasm or anything else as data: URLs
    modulePreload: { polyfill: false }, // the polyfill is an inline script, refused by a strict CSP
  },
  worker: { format: 'es' },
  server: { fs: { allow: ['..'] } },
});
