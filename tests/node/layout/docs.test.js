// The documentation holds together: the README stays a two-minute read (at most
// 10,000 bytes) with its two screenshots, and every relative link of the
// README, docs/, CONTRIBUTING.md, tests/README.md and bench/ points at a file
// that exists, and its #anchor at a heading of that file (GitHub's slugs).
// Run: node --test tests/node/layout/docs.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../helpers.js';

const README_MAX_BYTES = 10000;
const SCREENSHOTS = ['docs/img/explorer.png', 'docs/img/lab.png'];
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'tests/README.md',
  'bench/README.md',
  'bench/results/runs.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code spans, where links and headings are read. */
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** The targets of the inline links and images of a Markdown text: [text](target) and ![alt](target). */
export function linksIn(text) {
  return [...prose(text).matchAll(/!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/** GitHub's anchor of a heading's text: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]{1,2}([^`*_]+)[`*_]{1,2}/g, '$1')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, duplicates numbered as GitHub numbers them. */
export function anchorsOf(text) {
  const seen = new Map();
  const out = new Set();
  // headings are read from the text without fenced code (a `#` comment in a code block is none)
  const fenceless = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of fenceless.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** What is wrong with the relative links of the Markdown file `file` (relative to `root`), given its text. */
export function brokenLinks(file, text, root = ROOT) {
  const problems = [];
  for (const target of linksIn(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    const [path, anchor] = target.split('#');
    const to = path ? resolve(dirname(join(root, file)), decodeURIComponent(path)) : join(root, file);
    const shown = `${file}: ${target}`;
    if (path && !to.startsWith(root)) {
      problems.push(`${shown} leaves the repository`);
      continue;
    }
    if (!existsSync(to)) {
      problems.push(`${shown}: no file ${relative(root, to)}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(to).isDirectory() || !to.endsWith('.md')) {
      problems.push(`${shown}: an anchor into a file that has no headings`);
      continue;
    }
    const anchors = anchorsOf(path ? readFileSync(to, 'utf8') : text);
    if (!anchors.has(anchor)) problems.push(`${shown}: no heading #${anchor} in ${relative(root, to)}`);
  }
  return problems;
}

test(`README.md is at most ${README_MAX_BYTES} bytes`, () => {
  const bytes = statSync(join(ROOT, 'README.md')).size;
  assert.ok(bytes <= README_MAX_BYTES, `README.md is ${bytes} bytes; move detail into docs/`);
});

test('the README shows the two screenshots, PNGs 1280 px wide that npm run screenshots writes', () => {
  const links = linksIn(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  for (const shot of SCREENSHOTS) {
    assert.ok(links.includes(shot), `README.md shows ${shot}`);
    const bytes = readFileSync(join(ROOT, shot));
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', `${shot} is a PNG`);
    assert.equal(bytes.readUInt32BE(16), 1280, `${shot} is 1280 px wide`);
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.scripts.screenshots, 'node scripts/screenshots.js');
});

test('every relative link of the documentation points at a file, and its anchor at a heading', () => {
  assert.ok(DOCS.length > 8, 'the documentation files');
  const problems = DOCS.flatMap((f) => brokenLinks(f, readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(problems, []);
});

test('docs/README.md lists every file of docs/', () => {
  const index = linksIn(readFileSync(join(ROOT, 'docs/README.md'), 'utf8'));
  const files = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  assert.deepEqual(
    files.filter((f) => !index.includes(f)),
    [],
  );
});

test('the link checker finds a missing file, a missing anchor and a link out of the repository (it can fail)', () => {
  const text = [
    '# Title',
    '## The training lab (`train.html`)',
    '## Two words',
    '## Two words',
    'See [the lab](#the-training-lab-trainhtml), [again](#two-words-1), [web](https://example.org).',
    '[gone](docs/nowhere.md), [bad anchor](#no-such-heading), [out](../../etc/passwd)',
    '`[not a link](nowhere.md)`',
    '```',
    '[in code](nowhere-either.md)',
    '```',
  ].join('\n');
  const problems = brokenLinks('README.md', text);
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0], /no file docs\/nowhere\.md/);
  assert.match(problems[1], /no heading #no-such-heading/);
  assert.match(problems[2], /leaves the repository/);
  assert.equal(slug('Deploy: any static host, any sub-path'), 'deploy-any-static-host-any-sub-path');
  assert.equal(slug('The papers, reproduced (`papers.html`)'), 'the-papers-reproduced-papershtml');
});
