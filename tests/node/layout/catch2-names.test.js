// Catch2 test names that ctest can run: `catch_discover_tests` reads the names
// `core_tests --list-test-names-only` prints and hands each to ctest, which
// splits a name at a semicolon (its list separator), so such a case runs under
// two names that match nothing and fails in `npm test` though it passes under
// its tag. Every TEST_CASE name in tests/core/*.cpp (a name may continue over
// several adjacent string literals) has no semicolon; a fabricated source shows
// the check finding one.
// Run: node --test tests/node/layout/catch2-names.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';

/** Every TEST_CASE's name in `text`, its adjacent literals joined: [{name, line}]. */
export function testNames(text) {
  const found = [];
  const start = /TEST_CASE\s*\(\s*/g;
  let m;
  while ((m = start.exec(text))) {
    let at = m.index + m[0].length;
    let name = '';
    for (let lit; (lit = /^"((?:[^"\\]|\\.)*)"\s*/.exec(text.slice(at))); at += lit[0].length) name += lit[1];
    found.push({ name, line: text.slice(0, m.index).split('\n').length });
  }
  return found;
}

test('the check finds a semicolon in a name, also across joined literals', () => {
  const src =
    'TEST_CASE("a; b", "[x]") {}\nTEST_CASE(\n    "c, "\n    "d; e",\n    "[y]") {}\nTEST_CASE("f", "[z]") {}';
  assert.deepEqual(
    testNames(src).filter((t) => t.name.includes(';')),
    [
      { name: 'a; b', line: 1 },
      { name: 'c, d; e', line: 2 },
    ],
  );
});

test('no Catch2 test name under tests/core has a semicolon', () => {
  const dir = join(ROOT, 'tests/core');
  const bad = [];
  let count = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpp'))) {
    for (const t of testNames(readFileSync(join(dir, file), 'utf8'))) {
      count++;
      if (t.name.includes(';')) bad.push(`tests/core/${file}:${t.line}: ${t.name}`);
    }
  }
  assert.ok(count > 100, `only ${count} test cases found`);
  assert.deepEqual(bad, []);
});
