// Runs test stages one after another and counts what they report: the code
// behind `npm test` (scripts/test.js), `npm run check` and `npm run test:stress`
// (scripts/stress.js). Each stage is a shell command whose output passes through
// unchanged; its lines are read for the runner's own counts:
//   ctest:   "100% tests passed, 0 tests failed out of 134"
//   node:    the spec reporter's summary, "ℹ pass 12", "ℹ fail 0", "ℹ cancelled 0"
//   fuzz:    scripts/fuzz.sh's "fuzz: <target>: ... no crash" / "fuzz: <target> failed"
// A stage that exits non-zero without reporting a failed test (a build inside
// it broke, a runner crashed), that reports no test at all, or a failed stage
// without counts (format, lint, a build) counts as one failure: the closing
// line's failed count is 0 exactly when everything passed.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** Line parsers: each returns a fresh {line(text), counts()}; counts() is {passed, failed} or null. */
export const parsers = {
  ctest() {
    let counts = null;
    return {
      line(text) {
        const m = /(\d+)% tests passed, (\d+) tests? failed out of (\d+)/.exec(text);
        if (m) counts = { passed: Number(m[3]) - Number(m[2]), failed: Number(m[2]) };
      },
      counts: () => counts,
    };
  },
  node() {
    const seen = {};
    return {
      line(text) {
        const m = /^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(text.trim());
        if (m) seen[m[1]] = Number(m[2]);
      },
      counts() {
        const failed = (seen.fail ?? 0) + (seen.cancelled ?? 0);
        return seen.pass || failed ? { passed: seen.pass ?? 0, failed } : null;
      },
    };
  },
  fuzz() {
    let passed = 0;
    let failed = 0;
    return {
      line(text) {
        if (/^fuzz: \S+: .*no crash$/.test(text)) passed++;
        else if (/^fuzz: \S+ failed/.test(text)) failed++;
      },
      counts: () => (passed + failed ? { passed, failed } : null),
    };
  },
};

/** Feeds a stream's text to fn line by line while writing it through to `out` unchanged. */
function tee(stream, out, fn) {
  let rest = '';
  stream.on('data', (chunk) => {
    out.write(chunk);
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop();
    for (const l of lines) fn(l.replace(ANSI, '').replace(/\r$/, ''));
  });
  stream.on('end', () => rest && fn(rest.replace(ANSI, '')));
}

/** bash's `times` prints "0m1.500s 0m0.250s" (user, sys) for the shell, then for its children: their sum. */
function parseTimes(text) {
  let sum = 0;
  for (const m of text.matchAll(/(\d+)m([\d.,]+)s/g)) sum += Number(m[1]) * 60 + Number(m[2].replace(',', '.'));
  return sum;
}

let current = null;
let interrupted = null;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    // Ctrl-C reaches the stage's processes from the terminal as well; a signal
    // sent to this process alone is passed on. Either way no further stage starts.
    interrupted = sig;
    if (current) current.kill(sig);
  });
}
/** The signal that interrupted the run, or null. */
export const wasInterrupted = () => interrupted;

/**
 * Runs one stage: `command` in bash, output streamed through, then the
 * user+sys CPU seconds of everything it ran (bash's `times` for its waited-for
 * children: Node's own resource usage covers this process only).
 * Returns {name, code, wall, cpu, counts} where counts is {passed, failed} or
 * null for a stage without a parser.
 */
export function runStage({ name, command, parser, env }) {
  const p = parser ? parsers[parser]() : null;
  const started = performance.now();
  const child = spawn('bash', ['-c', `${command}\ns=$?\ntimes >&3\nexit $s`], {
    stdio: ['inherit', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  current = child;
  const onLine = p ? (l) => p.line(l) : () => {};
  tee(child.stdout, process.stdout, onLine);
  tee(child.stderr, process.stderr, onLine);
  let times = '';
  child.stdio[3].on('data', (d) => (times += d));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      current = null;
      const wall = (performance.now() - started) / 1000;
      const status = code ?? 128 + (constants.signals[signal] ?? 0);
      let counts = null;
      if (p) {
        counts = p.counts();
        if (!counts) counts = { passed: 0, failed: 1, note: 'no test count found' };
        else if (status !== 0 && counts.failed === 0) {
          counts = { ...counts, failed: 1, note: `exited ${signal ?? status} with no failed test` };
        }
      }
      resolve({ name, code: status, wall, cpu: parseTimes(times), counts });
    });
  });
}

/** Prints the per-stage table and returns the {passed, failed} totals. */
export function printTable(results, title = 'stage') {
  const rows = results.map((r) => [
    r.name,
    r.counts ? String(r.counts.passed) : '-',
    r.counts ? String(r.counts.failed) : r.code === 0 ? '-' : 'FAILED',
    r.wall.toFixed(1),
    r.cpu.toFixed(1),
    r.counts?.note ?? '',
  ]);
  const total = { passed: 0, failed: 0 };
  for (const r of results) {
    if (r.counts) {
      total.passed += r.counts.passed;
      total.failed += r.counts.failed;
    } else if (r.code !== 0) total.failed += 1;
  }
  const sum = (k) => results.reduce((s, r) => s + r[k], 0);
  rows.push(['total', String(total.passed), String(total.failed), sum('wall').toFixed(1), sum('cpu').toFixed(1), '']);
  const head = [title, 'passed', 'failed', 'wall s', 'CPU s', ''];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) =>
    r
      .map((c, i) => (i === 0 || i === 5 ? c.padEnd(width[i]) : c.padStart(width[i])))
      .join('  ')
      .trimEnd();
  console.log(['', fmt(head), ...rows.map(fmt)].join('\n'));
  return total;
}

/** The closing line, last on stdout: "N passed, N failed". */
export function closingLine({ passed, failed }) {
  console.log(`${passed} passed, ${failed} failed`);
}
