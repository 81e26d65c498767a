// The stored-ZIP writer, checked by Info-ZIP's own tools (Debian's `unzip`):
// `unzip -t` finds every CRC right, `unzip -l` lists the names (UTF-8
// included), and `unzip -p` gives back each file's bytes.
// Run: node --test tests/node/scorm/zip.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, zipStored } from '../../../web/src/scorm/zip.js';

const bytesOf = (n, seed) => {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
};

test('crc32 gives the check value of the IEEE polynomial', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
});

test('an archive that unzip tests, lists and extracts byte for byte', () => {
  const dir = mkdtempSync(join(tmpdir(), 'resnorm-zip-'));
  try {
    const files = [
      { name: 'imsmanifest.xml', data: '<?xml version="1.0"?><manifest/>' },
      { name: 'assets/bank-x1.js', data: bytesOf(200_000, 7) },
      { name: 'assets/empty.css', data: '' },
      { name: 'dossier/Größe – ü.txt', data: 'UTF-8 names: bit 11' },
      { name: 'a/b/c/deep.bin', data: bytesOf(65_537, 3) },
    ];
    const zip = join(dir, 'test.zip');
    writeFileSync(zip, zipStored(files, { date: new Date(2024, 4, 17, 13, 45, 30) }));
    const tested = execFileSync('unzip', ['-t', zip], { encoding: 'utf8' });
    assert.match(tested, /No errors detected/);
    for (const f of files)
      assert.match(tested, new RegExp(`testing: ${f.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+OK`));
    const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(
      listed,
      files.map((f) => f.name),
    );
    const long = execFileSync('unzip', ['-l', zip], { encoding: 'utf8' });
    assert.match(long, /2024-05-17 13:45/);
    const total = files.reduce((n, f) => n + Buffer.byteLength(f.data), 0);
    assert.match(long, new RegExp(`${total}\\s+5 files`));
    for (const f of files) {
      const back = execFileSync('unzip', ['-p', zip, f.name]);
      const want = typeof f.data === 'string' ? Buffer.from(f.data, 'utf8') : Buffer.from(f.data);
      assert.ok(back.equals(want), `${f.name} comes back as written`);
    }
    // stored, with plain file permissions
    const info = execFileSync('zipinfo', [zip], { encoding: 'utf8' });
    assert.equal((info.match(/-rw-r--r-- .* stor /g) ?? []).length, files.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('names that would escape the folder, repeat or be empty are refused', () => {
  for (const name of ['', '/etc/passwd', '../up.txt', 'a/../../b', 'back\\slash'])
    assert.throws(() => zipStored([{ name, data: 'x' }]), /bad entry name/);
  assert.throws(
    () =>
      zipStored([
        { name: 'a', data: '1' },
        { name: 'a', data: '2' },
      ]),
    /given twice/,
  );
});
