// Small functions: no function in web/src is longer than 150 lines, from its
// first line to its last, nested functions counted in the function that holds
// them. A long mount closure is split into named parts with one job each
// (layout, controls, rendering, exports). Every .js file under web/src is
// parsed (espree, the parser ESLint uses); a fabricated source shows the
// measure finding a long function.
// Run: node --test tests/node/layout/functions.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as espree from 'espree';
import { ROOT } from '../helpers.js';

const LIMIT = 150;
const FUNCTION = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Every .js file under `dir`, recursively. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.js') ? [path] : [];
  });
}

/** [{name, line, lines}] for every function in `text`, with its length in lines. */
export function functionsIn(text) {
  const ast = espree.parse(text, { ecmaVersion: 'latest', sourceType: 'module', loc: true });
  const found = [];
  const visit = (node, name) => {
    if (!node || typeof node.type !== 'string') return;
    if (FUNCTION.has(node.type)) {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      found.push({ name: node.id?.name ?? name ?? '(anonymous)', line: node.loc.start.line, lines });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || key === 'range' || key === 'parent') continue;
      // the name a function gets from where it stands: const f = ..., {f: ...}, f() {...}
      const childName =
        node.type === 'VariableDeclarator' || node.type === 'Property' || node.type === 'MethodDefinition'
          ? (node.id?.name ?? node.key?.name ?? node.key?.value)
          : undefined;
      if (Array.isArray(value)) value.forEach((v) => visit(v, childName));
      else if (value && typeof value === 'object') visit(value, childName);
    }
  };
  visit(ast);
  return found;
}

test('the measure finds a function over the limit, and none in a short one', () => {
  const body = Array.from({ length: LIMIT }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const long = functionsIn(`export function mountLong() {\n${body}\n}\n`);
  assert.deepEqual(long, [{ name: 'mountLong', line: 1, lines: LIMIT + 2 }]);
  const arrow = functionsIn(`const view = {\n  draw: () => {\n${body}\n  },\n};\n`);
  assert.deepEqual(arrow, [{ name: 'draw', line: 2, lines: LIMIT + 2 }]);
  assert.deepEqual(functionsIn('const f = (a) => a + 1;\n'), [{ name: 'f', line: 1, lines: 1 }]);
});

test(`no function in web/src is over ${LIMIT} lines`, () => {
  const files = sources(join(ROOT, 'web/src'));
  assert.ok(files.length > 50, `the files of web/src: ${files.length}`);
  const long = files.flatMap((file) =>
    functionsIn(readFileSync(file, 'utf8'))
      .filter((f) => f.lines > LIMIT)
      .map((f) => `${relative(ROOT, file)}:${f.line} ${f.name} (${f.lines} lines)`),
  );
  assert.deepEqual(long, [], `over ${LIMIT} lines:\n${long.join('\n')}`);
});
