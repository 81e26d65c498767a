// Question bank: schema, counts, experiments, math delimiters, and that the validator can fail.
// Run: node --test tests/node/quiz/bank.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import { validateBank, mathDelimiterErrors, CHECK_IDS } from '../../../web/src/quiz/validate.js';

// Temml is the page's math renderer; when it is installed, every formula must parse with it.
let temml = null;
try {
  temml = (await import('temml')).default;
} catch {
  temml = null;
}

const readJson = (rel) => JSON.parse(fs.readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8'));
const bank = readJson('../../../web/src/quiz/bank.json');
const schema = readJson('../../../web/src/quiz/bank.schema.json');
const clone = (v) => structuredClone(v);
const byId = (b, id) => b.items.find((it) => it.id === id);

// Every text field of an item that may hold Markdown with math.
function textFields(item) {
  const out = [
    ['prompt', item.prompt],
    ['solution', item.solution],
  ];
  if (item.explanation !== undefined) out.push(['explanation', item.explanation]);
  if (item.experiment && item.experiment.look !== undefined) out.push(['experiment.look', item.experiment.look]);
  return out;
}

// Independent of the validator: \( and \) alternate, starting with \( and ending closed.
function inlineMathBalanced(text) {
  let depth = 0;
  for (const m of text.matchAll(/\\[()]/g)) {
    depth += m[0] === '\\(' ? 1 : -1;
    if (depth < 0 || depth > 1) return false;
  }
  return depth === 0;
}

test('bank.json validates against bank.schema.json', () => {
  assert.deepEqual(validateBank(bank, schema), []);
});

test('every source item is there: counts per section', () => {
  const counts = {};
  for (const it of bank.items) counts[it.section] = (counts[it.section] ?? 0) + 1;
  assert.deepEqual(counts, {
    'true-false': 10,
    'spot-the-error': 7,
    why: 7,
    'edge-cases': 7,
    recall: 5,
    'rapid-fire': 8,
  });
  assert.equal(bank.items.length, 44);
});

test('ids are numbered 01..n per section, in order', () => {
  const next = {};
  for (const it of bank.items) {
    const [prefix, num] = it.id.split('-');
    next[prefix] = (next[prefix] ?? 0) + 1;
    assert.equal(Number(num), next[prefix], `${it.id} out of order`);
  }
});

test('true-false answers: only tf-08 is true', () => {
  const trueOnes = bank.items.filter((it) => it.type === 'true-false' && it.answer === true).map((it) => it.id);
  assert.deepEqual(trueOnes, ['tf-08']);
  for (const it of bank.items.filter((x) => x.type === 'true-false')) {
    assert.ok(it.solution.startsWith(it.answer ? 'True.' : 'False'), `${it.id}: verdict in solution matches answer`);
  }
});

test('rapid-fire solutions are ours, all others come from the source', () => {
  for (const it of bank.items) {
    assert.equal(it.solution_source, it.section === 'rapid-fire' ? 'ours' : 'source', it.id);
  }
});

test('at least 12 items link to a live experiment, most with a simulation setting', () => {
  const withExp = bank.items.filter((it) => it.experiment);
  const withSetting = withExp.filter((it) => it.experiment.setting);
  assert.ok(withExp.length >= 12, `${withExp.length} items with an experiment`);
  assert.ok(withSetting.length >= 12, `${withSetting.length} items with a setting`);
  for (const it of withExp) assert.ok(it.experiment.look.trim().length > 0, it.id);
  // every check id is used at least once
  const used = new Set(withExp.map((it) => it.experiment.check).filter(Boolean));
  assert.deepEqual([...used].sort(), [...CHECK_IDS].sort());
});

test('every \\( has a matching \\) (and every \\[ a \\]) in each text field', () => {
  for (const it of bank.items) {
    for (const [name, text] of textFields(it)) {
      assert.ok(inlineMathBalanced(text), `${it.id}.${name}: unbalanced \\( \\)`);
      assert.deepEqual(mathDelimiterErrors(text), [], `${it.id}.${name}`);
      // leftovers of the page extraction: $...$ math and bare Greek letters outside math
      assert.ok(!/\$/.test(text), `${it.id}.${name}: $-delimited math`);
      const outside = text.replace(/\\\([\s\S]*?\\\)|\\\[[\s\S]*?\\\]/g, '');
      assert.ok(!/[γβμσϵε∂]/u.test(outside), `${it.id}.${name}: math symbol outside math`);
    }
  }
});

test('every formula parses with Temml', { skip: temml ? false : 'temml is not installed' }, () => {
  let count = 0;
  for (const it of bank.items) {
    for (const [name, text] of textFields(it)) {
      for (const m of text.matchAll(/\\\(([\s\S]*?)\\\)|\\\[([\s\S]*?)\\\]/g)) {
        const display = m[2] !== undefined;
        const tex = display ? m[2] : m[1];
        count += 1;
        assert.doesNotThrow(
          () => temml.renderToString(tex, { displayMode: display, throwOnError: true }),
          `${it.id}.${name}: ${tex}`,
        );
      }
    }
  }
  assert.ok(count > 100, `${count} formulas`);
  assert.throws(() => temml.renderToString(String.raw`\frac{a`, { throwOnError: true }));
});

test('math delimiter checks catch broken text', () => {
  assert.equal(inlineMathBalanced(String.raw`a \(x_i\) b \(y`), false);
  assert.equal(inlineMathBalanced(String.raw`a \)x\(`), false);
  assert.equal(mathDelimiterErrors(String.raw`\(x`).length, 1);
  assert.equal(mathDelimiterErrors(String.raw`\(x\]`).length, 1);
  assert.equal(mathDelimiterErrors(String.raw`\(a \(b\)`).length, 1);
  assert.deepEqual(mathDelimiterErrors(String.raw`\(a\) and \[b\]`), []);
});

test('the validator rejects broken items', () => {
  const cases = [
    {
      name: 'wrong type (not in the enum)',
      edit: (b) => {
        byId(b, 'why-01').type = 'multiple-choice';
      },
      expect: /items\[\d+\]\.type: "multiple-choice" is not one of/,
    },
    {
      name: 'answer of the wrong JSON type',
      edit: (b) => {
        byId(b, 'tf-01').answer = 'false';
      },
      expect: /items\[\d+\]\.answer: expected boolean or null, got string/,
    },
    {
      name: 'true-false item without a boolean answer',
      edit: (b) => {
        delete byId(b, 'tf-02').answer;
      },
      expect: /\(tf-02\)\.answer: a true-false item needs a boolean answer/,
    },
    {
      name: 'answer on an open item',
      edit: (b) => {
        byId(b, 'why-02').answer = true;
      },
      expect: /\(why-02\)\.answer: only true-false items have an answer/,
    },
    {
      name: 'missing required field',
      edit: (b) => {
        delete byId(b, 'err-03').solution;
      },
      expect: /items\[\d+\]: missing required property "solution"/,
    },
    {
      name: 'out-of-range depth',
      edit: (b) => {
        byId(b, 'tf-03').experiment.setting.depth = 2000;
      },
      expect: /\(tf-03\)\.experiment\.setting\.depth: 2000 is out of range/,
    },
    {
      name: 'depth over the weight budget at width 512, expansion 4',
      edit: (b) => {
        Object.assign(byId(b, 'tf-03').experiment.setting, { width: 512, expansion: 4, depth: 33 });
      },
      expect: /depth: 33 exceeds the engine's weight budget .* \(allowed 1\.\.32\)/,
    },
    {
      name: 'out-of-range gain',
      edit: (b) => {
        byId(b, 'tf-02').experiment.setting.gain = 4.5;
      },
      expect: /setting\.gain: 4\.5 is out of range/,
    },
    {
      name: 'unknown check id',
      edit: (b) => {
        byId(b, 'tf-08').experiment.check = 'plain-flat';
      },
      expect: /\(tf-08\)\.experiment\.check: unknown check id "plain-flat"/,
    },
    {
      name: 'check whose precondition the setting does not meet',
      edit: (b) => {
        byId(b, 'tf-08').experiment.setting.gain = 1;
      },
      expect: /\(tf-08\)\.experiment\.check: "gain0-identity" needs gain 0/,
    },
    {
      name: 'duplicate id',
      edit: (b) => {
        byId(b, 'why-07').id = 'why-06';
      },
      expect: /\.id: duplicate id/,
    },
    {
      name: 'unknown tag and empty tags',
      edit: (b) => {
        byId(b, 'edge-01').tags = ['batchnorm'];
        byId(b, 'edge-02').tags = [];
      },
      expect: /tags\[0\]: "batchnorm" is not one of[\s\S]*tags: expected at least 1 item/,
    },
    {
      name: 'unbalanced inline math',
      edit: (b) => {
        byId(b, 'recall-03').solution = String.raw`\(I + \frac{\partial h_i}{\partial x_i} — the highway.`;
      },
      expect: /\(recall-03\)\.solution: \\\( opened at 0 is never closed/,
    },
    {
      name: 'experiment with both setting and panel',
      edit: (b) => {
        byId(b, 'tf-01').experiment.panel = 'norm';
      },
      expect: /\(tf-01\)\.experiment: needs exactly one of "setting" or "panel"/,
    },
    {
      name: 'unexpected property',
      edit: (b) => {
        byId(b, 'tf-01').hint = 'x';
      },
      expect: /items\[\d+\]: unexpected property "hint"/,
    },
  ];
  for (const c of cases) {
    const b = clone(bank);
    c.edit(b);
    const errors = validateBank(b, schema);
    assert.ok(errors.length > 0, `${c.name}: no error reported`);
    assert.match(errors.join('\n'), c.expect, `${c.name}: got\n${errors.join('\n')}`);
  }
});

test('the validator rejects non-banks and unsupported schema keywords without throwing', () => {
  assert.ok(validateBank(null, schema).length > 0);
  assert.ok(validateBank([], schema).length > 0);
  assert.ok(validateBank({ version: 1, items: [] }, schema).some((e) => /at least 1 item/.test(e)));
  const bad = clone(schema);
  bad.properties.items.items.properties.experiment.properties.setting.properties.depth.minimum = 1;
  assert.match(validateBank(bank, bad).join('\n'), /unsupported keyword "minimum"/);
  const withOneOf = clone(schema);
  withOneOf.properties.items.items.oneOf = [];
  assert.match(validateBank(bank, withOneOf).join('\n'), /unsupported keyword "oneOf"/);
});

test("rapid-08's answer says what the explorer shows: the stream ends at variance 2, not unit variance", () => {
  const it = byId(bank, 'rapid-08');
  assert.doesNotMatch(it.solution, /stream stays at unit variance/);
  assert.match(it.solution, /variance of 2/);
  assert.match(it.solution, /\\sqrt\{2\}/);
  // the sum of the 2L updates is what has unit variance, and the total is bounded whatever the depth
  assert.match(it.solution, /together add variance 1/);
  assert.match(it.experiment.look, /\\sqrt\{2\}/);
});

test('tf-05 points at the norm panel as it is: BatchNorm and LayerNorm side by side, no switch', () => {
  const look = byId(bank, 'tf-05').experiment.look;
  assert.doesNotMatch(look, /switch/i);
  assert.match(look, /side by side/);
});
