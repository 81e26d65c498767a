// A lane of the engine client (client.js's lane()): latest wins within it. It keeps at most one
// request waiting for a worker of the pool (pool.js); a newer one supersedes it, and cancel()
// stops the lane's work now, terminating the worker computing it unless that worker holds
// trainers.
import { OPS } from './ops.js';
import { jobsOf, unknownOp } from './jobs.js';

/** A lane on `pool`: {dropped, request(op, args), cancel(), close()}. */
export function createLane(pool) {
  let pending = []; // the parts of the request waiting for a worker
  let queued = false; // whether the lane has a place in the pool's turns
  let open = true;
  // A waiting request resolves null (settled once for all its parts); those of
  // its parts already at a worker finish and their answers are ignored.
  const supersede = (parts) => parts[0]?.settle(null);
  // The lane as the pool's turns see it.
  const turn = {
    peek: () => pending[0] ?? null,
    take: () => pending.shift(),
    done() {
      queued = false;
    },
  };
  const handle = {
    dropped: 0,
    request(op, args = []) {
      if (!OPS.includes(op)) return Promise.reject(unknownOp(op));
      if (!open || pool.closed) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        if (pending.length) {
          supersede(pending);
          handle.dropped++;
        }
        pending = jobsOf(op, args, { lane: handle, workers: pool.size }, resolve, reject);
        if (!queued) {
          queued = true;
          pool.turns.push({ lane: turn, seq: pool.nextSeq++ });
        }
        pool.pump();
      });
    },
    /** Stops what the lane asked for; true if there was something to stop. */
    cancel() {
      let stopped = false;
      if (pending.length) {
        supersede(pending);
        pending = []; // its place in the turns stays, for the next request or to be passed over
        stopped = true;
      }
      for (const slot of pool.slots.filter((s) => s.job?.lane === handle)) {
        // A worker holding trainers is not terminated: the request resolves
        // null now and its answer is ignored when it comes.
        if (slot.hosted) slot.job.settle(null);
        else pool.drop(slot, (job) => job.settle(null));
        stopped = true;
      }
      return stopped;
    },
    close() {
      open = false;
      supersede(pending);
      pending = [];
    },
  };
  return handle;
}
