// What the engine's workers run for a request (client.js): the job, or for a simulate of several
// architectures with more than one worker, one job per group of architectures, whose answers are
// merged back into the one the whole request would have had.
import { OPS } from './ops.js';

/** The TypeError an operation the engine does not know rejects with. */
export function unknownOp(op) {
  return new TypeError(`unknown engine operation ${JSON.stringify(String(op))} (known: ${OPS.join(', ')})`);
}

/**
 * The groups of architectures a simulate of `config` is split into for `k`
 * workers: contiguous, in arch order, sizes differing by at most one; null when
 * there is nothing to split (one architecture, or an arch field the worker must
 * refuse as a whole: not a list of distinct names).
 */
export function archGroups(config, k) {
  const arch = config?.arch;
  const list = typeof arch === 'string' ? arch.split(',') : Array.isArray(arch) ? arch : null;
  if (!list || list.length < 2 || list.some((a) => typeof a !== 'string') || new Set(list).size !== list.length)
    return null;
  const n = Math.min(k, list.length);
  return Array.from({ length: n }, (_, i) =>
    list.slice(Math.floor((i * list.length) / n), Math.floor(((i + 1) * list.length) / n)),
  );
}

/**
 * A request as the jobs the workers run: one, or for a simulate of several
 * architectures with more than one worker (`workers`, the pool's size), one per
 * group of architectures (contiguous, in arch order), each checking the whole
 * config first so every part refuses what the whole would. The parts' answers
 * are merged in arch order; the request settles once, when all are in or one
 * fails. A job's settle(v) settles the whole request with v (a lane's
 * superseded request: null).
 */
export function jobsOf(op, args, { exclusive = false, lane = null, workers = 1 }, resolve, reject) {
  const groups = op === 'simulate' && !exclusive && workers > 1 ? archGroups(args[0], workers) : null;
  if (!groups) return [{ op, args: Array.from(args), exclusive, lane, resolve, reject, settle: resolve }];
  const outs = new Array(groups.length);
  let left = groups.length;
  let settled = false;
  const partDone = (i, r) => {
    if (settled) return;
    outs[i] = r;
    if (--left) return;
    settled = true;
    const docs = lane ? outs.map((o) => o.out) : outs;
    const out = { config: docs[0].config, results: Object.assign({}, ...docs.map((d) => d.results)) };
    resolve(
      lane
        ? { out, ms: Math.max(...outs.map((o) => o.ms)), roundTripMs: Math.max(...outs.map((o) => o.roundTripMs)) }
        : out,
    );
  };
  const partFailed = (e) => {
    if (settled) return;
    settled = true;
    reject(e);
  };
  return groups.map((archs, i) => ({
    op,
    args: [args[0], archs],
    exclusive: false,
    lane,
    resolve: (r) => partDone(i, r),
    reject: partFailed,
    settle: (v) => {
      if (!settled) {
        settled = true;
        resolve(v);
      }
    },
  }));
}
