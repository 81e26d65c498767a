// The claims of the papers page (web/src/claims/papers/): the index lists every claim module once,
// in the page's order; each claim has every part the page and the engine read (citation, the claim in
// words, the panel's metadata and controls, criteria, defaults, compute, summarize, caption, figures,
// pageFigures, embedView, prose) and its section, written from its prose, once in papers.html as the
// build writes it and in the built page (dist/); and on the default numbers and on copies of them moved
// a little, a lot and by hand (claims-variants.js), each claim's table and caption are word for word the recorded ones
// (claims-recorded.json, first written from the switch over ids repro.js and captions.js had; a new
// claim, or a wording meant to change, is recorded again by record-claims.js).
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadWasm, ROOT } from '../helpers.js';
import { reproduce } from '../../../web/src/engine/experiments.js';
import { CLAIMS, claimOf } from '../../../web/src/claims/papers/index.js';
import { CRITERIA, PANEL_IDS, PANELS, summarize } from '../../../web/src/papers/repro.js';
import { caption } from '../../../web/src/papers/captions.js';
import { record, variants } from './claims-variants.js';
import { fillPapers } from '../../../web/build/figures-plugin.js';

const CLAIMS_DIR = `${ROOT}web/src/claims/papers/`;
const SHARED = ['common.js', 'compute.js', 'index.js', 'series.js']; // what the claims share and their list, not claims
const RECORDED = JSON.parse(readFileSync(new URL('./claims-recorded.json', import.meta.url), 'utf8'));
// The page as the build writes it: each claim's section from its prose, its pageFigures in it.
const PAGE = fillPapers(readFileSync(`${ROOT}web/papers.html`, 'utf8'));
// The page the last `npm run build:web` wrote (RESNORM_DIST builds elsewhere, as the browser tests read it).
const BUILT = `${process.env.RESNORM_DIST ?? `${ROOT}dist`}/papers.html`;

let results;
before(async () => {
  const rn = await loadWasm();
  results = Object.fromEntries(CLAIMS.map((c) => [c.id, reproduce(rn, c.id)]));
});

test('the index lists every claim module once, under its file name, in the page order', () => {
  const files = readdirSync(CLAIMS_DIR).filter((f) => f.endsWith('.js') && !SHARED.includes(f));
  assert.deepEqual(CLAIMS.map((c) => `${c.id}.js`).sort(), files.sort());
  assert.equal(new Set(CLAIMS.map((c) => c.id)).size, CLAIMS.length);
  assert.deepEqual(
    PANEL_IDS,
    CLAIMS.map((c) => c.id),
  );
  const sections = [...PAGE.matchAll(/<section class="paper"[^>]* data-panel="([\w-]+)"/g)].map((m) => m[1]);
  assert.deepEqual(sections, PANEL_IDS, 'papers.html has a section per claim, in the same order');
  assert.throws(() => claimOf('nope'), { name: 'RangeError', message: 'unknown reproduction: nope' });
  assert.throws(() => summarize('nope', results.veit), RangeError);
  assert.throws(() => caption('nope', results.veit), RangeError);
});

test(
  'the built page holds each claim’s section once, in the index’s order',
  {
    skip: !existsSync(BUILT) && 'no built site (npm run build:web)',
  },
  () => {
    const built = readFileSync(BUILT, 'utf8');
    const sections = [...built.matchAll(/<section class="paper"[^>]* data-panel="([\w-]+)"/g)].map((m) => m[1]);
    assert.deepEqual(sections, PANEL_IDS);
    for (const { id, prose } of CLAIMS) {
      assert.equal(built.split(`id="p-${id}"`).length, 2, `${id}: its section once`);
      assert.equal(built.split(`href="#p-${id}"`).length, 2, `${id}: its entry in the contents once`);
      assert.ok(!prose.kicker || built.includes(prose.kicker), `${id}: its kicker`);
    }
  },
);

for (const claim of CLAIMS) {
  const { id } = claim;
  test(`claim ${id}: every part, and its section of papers.html`, () => {
    assert.equal(claimOf(id), claim);
    assert.match(claim.citation, /^\S.* \(\d{4}\), \S/, 'citation: authors (year), part');
    assert.match(claim.claim, /^[A-Z].{40,}\.$/, 'the claim in words: a sentence');
    const m = claim.metadata;
    assert.equal(m.title, claim.citation);
    assert.equal(PANELS[id], m);
    assert.equal(CRITERIA[id], claim.criteria);
    assert.equal(typeof claim.criteria, 'object');
    assert.equal(typeof m.defaults, 'object');
    assert.equal(m.defaults, claim.defaults, "the panel starts from the computation's defaults");
    assert.ok(claim.controls.length > 0 && claim.controls.every((c) => typeof c === 'string'));
    for (const [name, options] of Object.entries(m.choices)) {
      assert.ok(claim.controls.includes(name), `${name} is a control`);
      assert.ok(options.includes(m.defaults[name]), `${name}: the default ${m.defaults[name]} is a choice`);
    }
    for (const name of claim.controls) if (name !== 'weight') assert.ok(name in m.defaults, `${name} has a default`);
    for (const f of ['compute', 'summarize', 'caption', 'figures', 'embedView'])
      assert.equal(typeof claim[f], 'function', f);
    const view = claim.embedView(claim.defaults);
    assert.ok(typeof view.config === 'object' && view.charts.length > 0, 'embedView: a config and its charts');
    assert.match(view.note, /^\S.{20,}[.)]$/, 'embedView: its note in words');
    const { prose } = claim;
    for (const part of ['toc', 'title', 'claim', 'paper', 'setting'])
      assert.ok(typeof prose[part] === 'string' && prose[part].trim().length > 0, `prose.${part}`);
    assert.ok(prose.kicker === undefined || typeof prose.kicker === 'string', 'prose.kicker');
    assert.ok(claim.matrix === undefined || typeof claim.matrix === 'function');
    assert.ok(Array.isArray(claim.pageFigures) && claim.pageFigures.length > 0, 'pageFigures');
    // its section: controls, result and every chart its figures() draw, and no chart it does not
    assert.equal(PAGE.split(`data-panel="${id}"`).length, 2, 'its section once');
    const section = PAGE.match(new RegExp(`<section[^>]* data-panel="${id}"[^]*?</section>`))[0];
    assert.ok(section.includes(prose.title.trim()) && section.includes(prose.kicker ?? claim.citation), 'its prose');
    for (const attr of ['data-controls', 'data-result']) assert.ok(section.includes(`${attr}="${id}"`), attr);
    assert.equal(section.includes('data-matrix'), claim.matrix !== undefined, 'a matrix where the claim has one');
    const col = { arch: new Proxy({}, { get: () => '#000' }), claim: '#111', muted: '#222' };
    const drawn = claim.figures(results[id], col, { weight: 'all' });
    const charts = [...section.matchAll(/data-chart="([\w-]+)"/g)].map((c) => c[1]);
    assert.deepEqual(drawn.map((f) => f.chart).sort(), charts.sort());
    for (const { chart, spec } of drawn)
      for (const s of spec.series) assert.equal(s.values.length, spec.x.length, `${chart}: ${s.key}`);
  });

  test(`claim ${id}: the table and caption as recorded, on the defaults and on moved numbers`, () => {
    const want = RECORDED[id];
    const got = variants(id, results[id]).map(({ name, result, view }) => ({
      name,
      ...record(summarize, caption, id, result, view),
    }));
    assert.deepEqual(
      got.map((g) => g.name),
      want.map((w) => w.name),
    );
    for (let i = 0; i < got.length; i++) assert.deepEqual(got[i], want[i], `${id}, ${got[i].name}`);
    // through the index as through repro.js and captions.js
    const s = claim.summarize(results[id].data, results[id].params, {});
    assert.deepEqual(s, summarize(id, results[id]));
    assert.equal(claim.caption(results[id], s), caption(id, results[id]).text);
  });
}
