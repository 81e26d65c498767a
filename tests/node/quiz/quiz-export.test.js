// GIFT and Anki TSV exports: a fixed item set against hand-written expected files, and structural
// checks that the exports import cleanly (a GIFT reader that follows Moodle's importer, a TSV shape
// check). Run: node --test tests/node/quiz/quiz-export.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import {
  toGift,
  toAnkiTsv,
  giftEscape,
  giftQuestion,
  frontHtml,
  backHtml,
  selectItems,
  ankiTags,
  ANKI_HEADER,
} from '../../../web/src/quiz/export.js';

const read = (rel) => fs.readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8');
const bank = JSON.parse(read('../../../web/src/quiz/bank.json'));
const fixture = JSON.parse(read('../../fixtures/quiz/items.json'));
const expectedGift = read('../../fixtures/quiz/items.gift');
const expectedTsv = read('../../fixtures/quiz/items.tsv');

// ---------------------------------------------------------------------------------------------
// A GIFT reader for the subset we write, following Moodle's qformat_gift::readquestion: blocks
// split on blank lines, // comment lines dropped, escapes resolved with the same placeholder trick
// (\\ first, then \: \# \= \{ \} \~ \n), the name between ::, the answer block between the first
// { and the first }, general feedback after the last ####, and the question type from the answer
// text. Before that, a strict structural check on the raw text: every special character that is
// not escaped must be a delimiter.

const ESCAPES = [
  ['\\:', '&&058;', ':'],
  ['\\#', '&&035;', '#'],
  ['\\=', '&&061;', '='],
  ['\\{', '&&123;', '{'],
  ['\\}', '&&125;', '}'],
  ['\\~', '&&126;', '~'],
  ['\\n', '&&010', '\n'],
];
const escapedcharPre = (s) => {
  let t = s.replaceAll('\\\\', '&&092;');
  for (const [esc, ph] of ESCAPES) t = t.replaceAll(esc, ph);
  return t.replaceAll('&&092;', '\\');
};
const escapedcharPost = (s) => {
  let t = s;
  for (const [, ph, ch] of ESCAPES) t = t.replaceAll(ph, ch);
  return t;
};

/** Positions and characters of the special characters not preceded by an escaping backslash. */
function unescapedSpecials(raw) {
  const out = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '\\') {
      i += 1; // the next character is escaped (a backslash included)
      continue;
    }
    if ('{}~=#:'.includes(raw[i])) out.push({ at: i, ch: raw[i] });
  }
  return out;
}

function checkStructure(raw) {
  const sp = unescapedSpecials(raw);
  const chars = sp.map((s) => s.ch).join('');
  // ::name:: then one { ... } block holding only the #### general-feedback separator
  assert.match(chars, /^::::\{####\}$/, `unescaped specials ${chars} in\n${raw}`);
  assert.ok(raw.startsWith('::'), 'starts with the name');
  const open = sp.find((s) => s.ch === '{').at;
  const close = sp.find((s) => s.ch === '}').at;
  assert.ok(open < close, 'the answer block opens before it closes');
  assert.equal(close, raw.length - 1, 'the answer block ends the question');
  assert.match(raw.slice(open + 1, close), /^(TRUE|FALSE)?####/);
  assert.ok(!raw.includes('\n'), 'one line per question');
  assert.ok(!/(^|[^\\])(\\\\)*\\$/.test(raw.slice(0, open)), 'no dangling backslash before {');
}

function readGift(text) {
  const questions = [];
  for (const block of text.split(/\n[ \t]*\n/)) {
    const lines = block.split('\n').map((l) => (l.trim().startsWith('//') ? ' ' : l));
    const raw = lines.join('\n').trim();
    if (raw === '') continue;
    checkStructure(raw);
    let t = escapedcharPre(raw);
    t = t.slice(2);
    const nameEnd = t.indexOf('::');
    const name = escapedcharPost(t.slice(0, nameEnd));
    t = t.slice(nameEnd + 2).trim();
    const a = t.indexOf('{');
    const b = t.indexOf('}');
    let answer = t.slice(a + 1, b).trim();
    let qtext = t.slice(0, a);
    const gf = answer.lastIndexOf('####');
    const feedback = escapedcharPost(answer.slice(gf + 4)).trim();
    answer = answer.slice(0, gf).trim();
    assert.ok(qtext.startsWith('[html]'), 'HTML format');
    qtext = escapedcharPost(qtext.slice('[html]'.length)).trim();
    const qtype = answer === '' ? 'essay' : ['T', 'TRUE', 'F', 'FALSE'].includes(answer) ? 'truefalse' : 'other';
    questions.push({ name, qtype, answer, text: qtext, feedback });
  }
  return questions;
}

function checkGiftImport(gift, items) {
  const qs = readGift(gift);
  assert.equal(qs.length, items.length);
  qs.forEach((q, i) => {
    const it = items[i];
    assert.equal(q.name, it.id);
    assert.equal(q.text, frontHtml(it), `${it.id}: question text survives the escaping`);
    assert.equal(q.feedback, backHtml(it), `${it.id}: feedback survives the escaping`);
    if (it.type === 'true-false') {
      assert.equal(q.qtype, 'truefalse', it.id);
      assert.equal(q.answer, it.answer ? 'TRUE' : 'FALSE', it.id);
    } else {
      assert.equal(q.qtype, 'essay', it.id);
    }
    // the math is still TeX for MathJax: every \( of the source is there, HTML-escaped
    const source = [it.prompt, it.solution, it.explanation ?? ''].join(' ');
    const count = (s, re) => (s.match(re) || []).length;
    assert.equal(count(q.text + q.feedback, /\\\(/g), count(source, /\\\(/g), it.id);
    assert.equal(count(q.text + q.feedback, /\\\[/g), count(source, /\\\[/g), it.id);
  });
}

// ---------------------------------------------------------------------------------------------
// Anki TSV shape: the header lines, then exactly 4 tab-separated fields per line (the item's id as
// the note's GUID, front, back, tags), no stray newline or carriage return, no field that a CSV
// reader would take as quoted, ids unique, tags well formed.

function checkTsv(tsv, items) {
  assert.ok(tsv.startsWith(ANKI_HEADER));
  assert.ok(tsv.endsWith('\n') && !tsv.endsWith('\n\n'));
  assert.ok(!tsv.includes('\r'));
  const lines = tsv.slice(ANKI_HEADER.length).slice(0, -1).split('\n');
  assert.equal(lines.length, items.length);
  lines.forEach((line, i) => {
    const fields = line.split('\t');
    assert.equal(fields.length, 4, `line ${i + 1}: ${fields.length} fields`);
    for (const f of fields) {
      assert.ok(f.length > 0);
      assert.ok(!f.startsWith('"') && !f.includes('"'), 'no raw double quotes');
      assert.ok(!f.startsWith('#'), 'no field that looks like a header');
    }
    assert.match(fields[3], /^resnorm::[a-z-]+( resnorm::[a-z-]+)* resnorm::section::[a-z-]+$/);
    const field = (h) => h.replaceAll('"', '&quot;').replace(/^#/, '&#35;');
    assert.equal(fields[0], items[i].id);
    assert.equal(fields[1], field(frontHtml(items[i])));
    assert.equal(fields[2], field(backHtml(items[i])));
  });
  const ids = lines.map((line) => line.split('\t')[0]);
  assert.equal(new Set(ids).size, ids.length, 'one GUID per note');
}

/** The header's directives as a map: '#guid column:1' gives 'guid column' -> '1'. */
function ankiDirectives(tsv) {
  const out = new Map();
  for (const line of tsv.split('\n')) {
    const m = /^#([^:]+):(.*)$/.exec(line);
    if (!m) break;
    out.set(m[1], m[2]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

test('GIFT of the fixed item set equals the hand-written file', () => {
  assert.equal(toGift(fixture), expectedGift);
});

test('Anki TSV of the fixed item set equals the hand-written file', () => {
  assert.equal(toAnkiTsv(fixture), expectedTsv);
});

test('the hand-written files themselves import cleanly', () => {
  checkGiftImport(expectedGift, fixture.items);
  checkTsv(expectedTsv, fixture.items);
});

test('Anki header names the id column as the GUID, so re-import updates notes', () => {
  const d = ankiDirectives(toAnkiTsv(fixture));
  assert.equal(d.get('separator'), 'tab');
  assert.equal(d.get('html'), 'true');
  assert.equal(d.get('guid column'), '1');
  assert.equal(d.get('tags column'), '4');
  assert.deepEqual(d.get('columns').split('\t'), ['id', 'Front', 'Back', 'Tags']);
  assert.equal(d.size, ANKI_HEADER.split('\n').filter(Boolean).length, 'every header line is a directive');
});

test('Anki TSV: an item whose text changed keeps its GUID and its row', () => {
  const rows = (tsv) =>
    tsv
      .slice(ANKI_HEADER.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'));
  const before = rows(toAnkiTsv(bank));
  const edited = structuredClone(bank);
  const item = edited.items[3];
  item.prompt = `${item.prompt} (reworded)`;
  item.solution = `A new solution for ${item.id}.`;
  const after = rows(toAnkiTsv(edited));
  assert.equal(after.length, before.length);
  assert.deepEqual(
    after.map((f) => f[0]),
    before.map((f) => f[0]),
    'the same GUIDs in the same rows',
  );
  const changed = after.flatMap((f, i) => (f.join('\t') === before[i].join('\t') ? [] : [i]));
  assert.deepEqual(changed, [3], 'only the edited note differs');
  assert.notEqual(after[3][1], before[3][1]);
  assert.notEqual(after[3][2], before[3][2]);
  const guidColumn = Number(ankiDirectives(toAnkiTsv(bank)).get('guid column')) - 1;
  assert.equal(after[3][guidColumn], bank.items[3].id);
});

test('GIFT escaping: backslash first, then ~ = # { } :', () => {
  assert.equal(giftEscape('a~b=c#d{e}f:g'), 'a\\~b\\=c\\#d\\{e\\}f\\:g');
  assert.equal(giftEscape('\\'), '\\\\');
  assert.equal(giftEscape('\\('), '\\\\(');
  assert.equal(giftEscape('\\{'), '\\\\\\{');
  assert.equal(giftEscape('\\neq'), '\\\\neq', 'an unescaped \\n would be read as a newline');
  assert.equal(escapedcharPost(escapedcharPre(giftEscape('\\n\\:{\\\\}#~= \\'))), '\\n\\:{\\\\}#~= \\');
});

test('the whole bank exports and imports cleanly', () => {
  const gift = toGift(bank);
  checkGiftImport(gift, bank.items);
  assert.equal(readGift(gift).filter((q) => q.qtype === 'truefalse').length, 10);
  assert.equal(readGift(gift).filter((q) => q.qtype === 'essay').length, 34);
  checkTsv(toAnkiTsv(bank), bank.items);
});

test('filtered exports: by section, tag and ids', () => {
  const tf = selectItems(bank, { section: 'true-false' });
  assert.equal(tf.length, 10);
  checkGiftImport(toGift(bank, { section: 'true-false' }), tf);
  assert.match(toGift(bank, { section: 'true-false' }), /^\/\/ resnorm question bank: 10 questions\n/);
  const rms = selectItems(bank, { tag: 'rmsnorm' });
  assert.ok(rms.length > 0 && rms.every((it) => it.tags.includes('rmsnorm')));
  checkTsv(toAnkiTsv(bank, { tag: 'rmsnorm' }), rms);
  const two = selectItems(bank, { ids: ['why-02', 'tf-01'] });
  assert.deepEqual(
    two.map((it) => it.id),
    ['tf-01', 'why-02'],
    'bank order',
  );
  assert.equal(
    toGift([], { title: 'Empty\nset' }),
    '// Empty set: 0 questions\n// Moodle GIFT: HTML question text, TeX math for the MathJax filter.\n',
  );
  assert.equal(toAnkiTsv(fixture, { header: false }).split('\n')[0].split('\t').length, 4);
});

test('hostile text stays inside its question', () => {
  const item = {
    id: 'edge-98',
    section: 'edge-cases',
    type: 'open',
    tags: ['init'],
    prompt: '}{TRUE} ::x:: // not a comment\n\n::y::{=z ~w}\t<script>alert(1)</script> \\',
    solution: '#### {} \\\\ \\} end\\',
  };
  const one = giftQuestion(item);
  assert.ok(!one.includes('\n'));
  checkGiftImport(`${one}\n`, [item]);
  assert.ok(!frontHtml(item).includes('<script>'));
  checkTsv(toAnkiTsv([item]), [item]);
  assert.equal(ankiTags({ tags: ['a b'], section: 'x' }), 'resnorm::a_b resnorm::section::x');
});

test('the GIFT checks catch unescaped markup', () => {
  const broken = [
    '::x::[html]a{b}{####c}', // a brace in the text
    '::x::[html]a = b{####c}', // an = in the text
    '::x::[html]a{####c: d}', // a colon in the feedback
    '::x::[html]a{####c # d}', // a stray #
    '::x::[html]a \\{####c}', // an escaped brace is no delimiter: the block never opens
    '::x::[html]a{####c}}', // a second closing brace
    '::x::[html]a{FALSE####c} d', // text after the block
  ];
  for (const raw of broken) assert.throws(() => readGift(raw), assert.AssertionError, raw);
  assert.doesNotThrow(() => readGift('::x::[html]a \\\\\\{ b{####c}')); // \\ then \{: both escaped
  assert.equal(readGift('::x::[html]a \\\\{####c}')[0].text, 'a \\'); // \\ then a real {
});
