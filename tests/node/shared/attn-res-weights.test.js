// Attention Residuals' read weights in words (web/src/shared/attn-res-weights.js):
// the unit names of MLP and transformer stacks, and a caption that names
// what the numbers say, on hand-made rows whose answer is known; Block
// AttnRes's rows over h_0 and groups of units, its columns labelled g1..gN.
// Run: node --test tests/node/shared/attn-res-weights.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  attnResCaption,
  attnResGroups,
  attnResSource,
  attnResWords,
  readerName,
  unitName,
} from '../../../web/src/shared/attn-res-weights.js';

test('units are blocks in an MLP stack, attention and MLP in a transformer stack', () => {
  assert.equal(unitName(3, 3, 3), 'block 3');
  assert.equal(unitName(1, 4, 2), 'block 1 attention');
  assert.equal(unitName(4, 4, 2), 'block 2 MLP');
  assert.equal(readerName(0, 4, 2), 'block 1 MLP', 'row 0 is what unit 2 reads');
  assert.equal(readerName(3, 4, 2), 'the final norm');
  assert.equal(attnResSource(0, 4, 2), 'the embedding h\u2080');
  assert.equal(attnResSource(3, 4, 2), "block 2 attention's output");
});

test('the caption names what the final norm reads most and the largest weight, from the rows', () => {
  // MLP stack of 3 units: the final norm's row favours the embedding, then unit 2
  const rows = [
    [0.5, 0.5],
    [0.2, 0.7, 0.1],
    [0.6, 0.1, 0.25, 0.05],
  ];
  const text = attnResCaption('AttnRes', rows, 3);
  assert.match(text, /^AttnRes: the final norm reads mostly the embedding h₀ \(0\.6\) and block 2's output \(0\.25\);/);
  assert.match(text, /each of its 4 sources with weight 0\.25\./);
  // near the uniform 1/3 everywhere: read about evenly, never "mostly"
  const even = attnResCaption(
    'A',
    [
      [0.5, 0.5],
      [0.34, 0.33, 0.33],
    ],
    2,
  );
  assert.match(even, /^A: the final norm still reads its sources about evenly, from 0\.33 to 0\.34;/);
  // rows past the first: the largest is 0.7, block 3 (row 1 is unit 3's input) reading block 1, 1/3 at init
  assert.match(
    text,
    /largest weight .* is 0\.7: block 3 reading block 1's output, where at initialization it was 0\.33\./,
  );
  assert.match(attnResCaption('A', [[NaN, NaN]], 1), /not finite/);
  const words = attnResWords(3, 3);
  assert.equal(words.cell(1, 0, '0.2'), 'block 3 takes 0.2 of the embedding h\u2080');
  assert.equal(words.rowHead, 'unit');
});

test('Block AttnRes: the groups from the rows, each source the sum of its units, the columns g1..gN', () => {
  // a transformer stack of 2 blocks (4 units) in 2 groups: units 1-2 and 3-4; row r over h_0 and groups 1..B(r + 1)
  const rows = [
    [0.5, 0.5],
    [0.3, 0.7],
    [0.2, 0.3, 0.5],
    [0.1, 0.6, 0.3],
  ];
  const g = attnResGroups(rows);
  assert.deepEqual(g.B, [0, 1, 1, 2, 2]);
  assert.equal(g.groups, 2);
  assert.equal(g.full, false);
  assert.deepEqual([g.first[1], g.last[1], g.first[2], g.last[2]], [1, 2, 3, 4]);
  // row 0 (unit 2's input) reads group 1 so far: unit 1's output alone; the final norm reads it whole
  assert.equal(attnResSource(1, 4, 2, g, 0), "group 1, block 1 attention's output");
  assert.equal(attnResSource(1, 4, 2, g, 3), 'group 1, the summed outputs of block 1 attention to block 1 MLP');
  assert.equal(attnResSource(2, 4, 2, g, 2), "group 2, block 2 attention's output");
  const text = attnResCaption('B', rows, 2);
  assert.match(
    text,
    /^B: the final norm reads mostly group 1, the summed outputs of block 1 attention to block 1 MLP \(0\.6\) and group 2, the summed outputs of block 2 attention to block 2 MLP \(0\.3\);/,
  );
  assert.match(
    text,
    /each of its 3 sources \(Block AttnRes: the 4 units in 2 groups, each read as its summed outputs\) with weight 0\.333\./,
  );
  // rows of more than two sources: rows 2 and 3; the largest 0.6, the final norm reading group 1, 1/3 at init
  assert.match(
    text,
    /largest weight .* is 0\.6: the final norm reading group 1, .*, where at initialization it was 0\.33\./,
  );
  const words = attnResWords(4, 2, rows);
  assert.equal(words.colLabel(0), null);
  assert.equal(words.colLabel(2), 'g2');
  assert.equal(words.cell(2, 2, '0.5'), "block 2 MLP takes 0.5 of group 2, block 2 attention's output");
  // Full AttnRes (one unit a group): the words are the units', the columns numbered as before
  const full = attnResWords(3, 3, [
    [0.5, 0.5],
    [0.2, 0.7, 0.1],
    [0.6, 0.1, 0.25, 0.05],
  ]);
  assert.equal(full.colLabel(2), null);
  assert.equal(full.cell(1, 1, '0.7'), "block 3 takes 0.7 of block 1's output");
});
