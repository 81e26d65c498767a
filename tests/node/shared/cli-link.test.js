// The command line, a link and the JS API read a number by one rule, from the one field table:
// for every number field of `resnorm simulate` and `resnorm train` and a list of texts (decimal
// forms, a '+', hex, names, spaces, exponents of many digits, numbers too small to represent), the
// CLI takes `--flag value` and `--flag=value` exactly when the link parser (shared/state.js
// readField) takes `field=value` and the JS API (rn.check, rn.checkTrain) takes the text as the
// field's value, and all take it as the same number; a number too small to represent is refused
// by the CLI and the JS API in the same words. Needs the native build.
// Run: node --test tests/node/shared/cli-link.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { FIELDS_TABLE, FIELDS, readField } from '../../../web/src/shared/state.js';
import { TRAIN_KEYS, TRAIN_TABLE } from '../../../web/src/shared/train-fields.js';
import { loadWasm } from '../helpers.js';

const rn = await loadWasm();

// the native build's binary (helpers.js names it too, but loads the wasm build this test does not need)
const CLI = fileURLToPath(new URL('../../../build/native/resnorm', import.meta.url));
const NUMBER_KINDS = ['integer', 'uint32', 'real'];
const TEXTS = [
  '0.1',
  '2',
  '2.0',
  '2.5',
  '-0',
  '0',
  '.5',
  '5.',
  '1e-3',
  '2.5E+2',
  '1e-0003',
  '1e0005',
  '+1',
  '0x10',
  '0x1p3',
  'inf',
  'nan',
  ' 1',
  '1 ',
  '1,5',
  '1e-400',
  '4e-330',
  '0e-400',
  '0.000e5',
  '-1e-400',
];

const flag = (field) => `--${field.replaceAll('_', '-')}`;

/**
 * What the CLI makes of `value` for `field`: the text is given first and a value refused by
 * every table after it (the depth 0), so the one line on stderr names the first flag it refused
 * and nothing runs: true when it took the value, else the refusal.
 */
function cliTakes(command, field, value, joined) {
  const given = joined ? [`${flag(field)}=${value}`] : [flag(field), value];
  const after = field === 'depth' ? ['--width', '0'] : ['--depth', '0'];
  const r = spawnSync(CLI, [command, ...given, ...after], { encoding: 'utf8' });
  assert.equal(r.status, 2, `${command} ${given.join(' ')}: ${r.stderr}`);
  const line = r.stderr.trim();
  return line.startsWith(`resnorm: ${after[0]}:`) ? true : line;
}

const fieldsOf = (keys, table) => keys.filter((k) => NUMBER_KINDS.includes(table[k].kind));

/**
 * What the JS API makes of the text `value` for `field` (the other fields at their defaults):
 * true when it took the text (a refusal naming another field, such as heads that do not divide
 * the width, is of the whole config, not of the text), else its refusal.
 */
function jsTakes(command, field, value) {
  try {
    (command === 'train' ? rn.checkTrain.bind(rn) : rn.check.bind(rn))({ [field]: value });
    return true;
  } catch (e) {
    return e.field === field ? e.message : true;
  }
}

for (const [command, keys, table] of [
  ['simulate', FIELDS, FIELDS_TABLE],
  ['train', TRAIN_KEYS, TRAIN_TABLE],
])
  test(
    `${command}: every number field takes the same texts on the command line as in a link and in the JS API`,
    {
      skip: !existsSync(CLI) && 'needs build/native/resnorm (npm run build:native)',
    },
    () => {
      const fields = fieldsOf(keys, table);
      assert.ok(fields.length >= 5, `${command}'s number fields: ${fields}`);
      const differ = [];
      for (const [n, field] of fields.entries())
        for (const text of TEXTS) {
          const link = readField(field, text, table);
          // the two spellings share one reading of the value: both on two fields, then `--flag value`
          for (const joined of n < 2 ? [false, true] : [false]) {
            const cli = cliTakes(command, field, text, joined);
            if ((cli === true) !== link.ok)
              differ.push(
                `${field}=${JSON.stringify(text)}${joined ? ' (--flag=value)' : ''}: link ${link.ok ? 'takes it' : `refuses (${link.reason})`}, CLI ${cli === true ? 'takes it' : `refuses (${cli})`}`,
              );
            if (joined) continue;
            const js = jsTakes(command, field, text);
            if ((cli === true) !== (js === true))
              differ.push(
                `${field}: ${JSON.stringify(text)}: JS API ${js === true ? 'takes it' : `refuses (${js})`}, CLI ${cli === true ? 'takes it' : `refuses (${cli})`}`,
              );
            // too small to represent: the same words, the field for the flag
            else if (
              /too small to represent/.test(cli) &&
              js !== cli.replace(`resnorm: ${flag(field)}: `, `${field}: `)
            )
              differ.push(`${field}: ${JSON.stringify(text)}: JS API says (${js}), CLI (${cli})`);
          }
        }
      assert.deepEqual(differ, []);
    },
  );

test(
  'the texts too small to represent are refused by all three, naming why; zero written any way is zero',
  {
    skip: !existsSync(CLI) && 'needs build/native/resnorm (npm run build:native)',
  },
  () => {
    for (const text of ['1e-400', '4e-330', '-1e-400']) {
      assert.match(readField('lr', text, TRAIN_TABLE).reason, /^too small to represent \(allowed 0\.\.10\)$/, text);
      assert.match(cliTakes('train', 'lr', text, true), /^resnorm: --lr: '[^']+' is too small to represent/, text);
      assert.throws(
        () => rn.checkTrain({ lr: text }),
        (e) =>
          e instanceof RangeError &&
          e.field === 'lr' &&
          e.message === `lr: '${text}' is too small to represent (allowed 0..10)`,
        text,
      );
      assert.throws(
        () => rn.check({ gain: text }),
        (e) => e.field === 'gain' && /too small to represent/.test(e.message),
      );
    }
    for (const text of ['0', '-0', '0e-400', '0.000e5']) {
      assert.deepEqual(readField('gain', text), { ok: true, value: 0 }, text);
      assert.ok(Object.is(rn.check({ gain: text }).gain, 0), text);
      const r = spawnSync(CLI, ['simulate', '--depth', '2', '--width', '4', `--gain=${text}`, '--json'], {
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(Object.is(JSON.parse(r.stdout).config.gain, 0), text);
    }
  },
);

test(
  '--flag=value is --flag value is a link\u2019s field=value: the same number runs',
  {
    skip: !existsSync(CLI) && 'needs build/native/resnorm (npm run build:native)',
  },
  () => {
    const run = (args) => {
      const r = spawnSync(CLI, ['simulate', '--depth', '3', '--width', '4', ...args, '--json'], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    for (const text of ['0.1', '.5', '2.5E-1', '1e-0003']) {
      const joined = run([`--gain=${text}`]);
      const apart = run(['--gain', text]);
      assert.deepEqual(joined, apart, text);
      assert.equal(joined.config.gain, readField('gain', text).value, text);
    }
    // a flag given twice is refused, whichever way it is written (a link keeps the first and says so)
    const r = spawnSync(CLI, ['train', '--lr=0.1', '--lr', '0.2'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^resnorm: --lr: given more than once/);
  },
);
