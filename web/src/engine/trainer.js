// The engine client's trainers (client.js's trainer(config)): a trainer (rn.trainer,
// wasm/resnorm.js) made in one worker of the pool (pool.js), every call of it a job pinned to
// that worker, in turn with the other work. Refused there for lack of room beside the trainers
// that worker holds, it is made in a worker of its own.
import { fieldError } from './pool.js';

/**
 * A trainer of one architecture (rn.trainer(config), wasm/resnorm.js) in one
 * worker of `pool`. Resolves, once made, to a handle with the trainer's
 * config, task, stepsDone and stopped (updated by step() and load()), lost
 * (null, or the Error its calls reject with once its worker has stopped), and
 * async versions of its methods: step(n) resolves to the logs (their typed
 * arrays transferred from the worker), lesion(), dwaWeights(), attnResWeights(), gates(), normSamples(), outcome(), state() (a
 * Uint8Array), load(bytes) (bytes are copied, the caller's stay usable),
 * delete() (frees it in the worker; later calls reject). A bad config
 * rejects with a RangeError naming .field, as call() does.
 */
export async function createTrainer(pool, config) {
  if (pool.closed) throw new Error('the engine has been shut down');
  const at = (pick) => {
    try {
      return pick();
    } catch (e) {
      throw new Error(`engine worker failed: ${e.message}`);
    }
  };
  const slot = at(() => pool.trainerSlot());
  try {
    return await make(pool, slot, config);
  } catch (e) {
    // Refused for memory beside the trainers its worker holds: a worker of
    // its own has the whole budget (refused there too, the config alone is over it).
    const beside = slot.hosted > 0 && e instanceof RangeError && e.field === 'depth' && Number.isFinite(e.max);
    if (!beside || pool.closed) throw e;
    return make(
      pool,
      at(() => pool.start()),
      config,
    );
  }
}

// A trainer made in the worker of `slot`.
async function make(pool, slot, config) {
  slot.hosted++;
  slot.trained = true;
  let info;
  try {
    info = await pool.pinned(slot, 'trainerCreate', [config]);
  } catch (e) {
    slot.hosted--;
    pool.retireIfSpent(slot);
    throw e;
  }
  return trainerHandle(pool, slot, info);
}

// The handle of the trainer `info` describes, made in the worker of `slot`.
function trainerHandle(pool, slot, info) {
  const { id } = info;
  let deleted = false;
  const use = (op, args) => {
    if (handle.lost) return Promise.reject(handle.lost);
    if (deleted) return Promise.reject(fieldError('trainer: this trainer was deleted', 'trainer'));
    return pool.pinned(slot, op, args);
  };
  const read = (r) => {
    handle.stepsDone = r.stepsDone;
    handle.stopped = r.stopped;
    return r;
  };
  const handle = {
    config: info.config,
    task: info.task,
    stepsDone: info.stepsDone,
    stopped: info.stopped,
    lost: null,
    step: (n) => use('trainerStep', [id, n]).then((r) => read(r).logs),
    lesion: () => use('trainerLesion', [id]),
    dwaWeights: () => use('trainerDwaWeights', [id]),
    attnResWeights: () => use('trainerAttnResWeights', [id]),
    gates: () => use('trainerGates', [id]),
    normSamples: () => use('trainerNormSamples', [id]),
    outcome: () => use('trainerOutcome', [id]),
    state: () => use('trainerState', [id]),
    load: (bytes) =>
      use('trainerLoad', [id, bytes]).then((r) => {
        read(r);
        handle.config = r.config;
        handle.task = r.task;
      }),
    /** Frees the trainer in its worker (at once if the worker is gone); later calls reject. */
    delete() {
      if (deleted) return Promise.resolve();
      const freed = use('trainerDelete', [id]);
      deleted = true;
      slot.trainers.delete(handle);
      slot.hosted--;
      return freed.then(
        () => undefined,
        (e) => {
          if (e !== slot.gone && e !== handle.lost) throw e;
        },
      );
    },
  };
  slot.trainers.add(handle);
  return handle;
}
