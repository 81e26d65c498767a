// A training session: one trainer per architecture (each in a worker of the
// page's pool, engine/client.js `trainer(config)`), all stepped in parallel,
// one logged step per request, so the page never waits on a long call and a
// pause lands on a logged step. No DOM: the view draws what it holds.
//
//   const s = createSession({ engine, onChange });
//   await s.start(config);   // idle: new trainers; paused: continues where it stopped
//   await s.start(config, specs); // the same, one trainer per spec (runSpecs below)
//   s.pause();               // the requests under way finish, then nothing more is asked
//   await s.step(config);    // one logged step per architecture, then paused
//   await s.reset();         // trainers deleted, logs dropped
//   s.snapshot()             // {state, runs, progress, ...}
//   await s.saveModel();     // paused or done: {config, runs: [{arch, key, label, overrides, ..., logs, state}]}
//                            // (model-file.js encodes it)
//   await s.loadModel(model); // the trainers made again from a decoded file, paused; refused: as it was
//
// States: idle (no trainers), starting (trainers being made), running,
// pausing (a pause waits for the requests under way), paused, done (every
// architecture finished its steps or stopped at a non-finite step), error
// (the trainers could not be made: `error` holds the engine's refusal).
// A run goes on from exactly where it stopped, so a paused and continued run
// logs the numbers of an uninterrupted one.
//
// Runs: by default one per architecture of config.arch, keyed by the arch; a
// paper's comparison passes its own specs instead, runs that differ in more
// than the architecture (depth, warmup, ...), each {key, arch, label,
// overrides, stopWhenTrained}; a run with stopWhenTrained ends at its first
// logged step whose held-out loss is below halfway from chance to the optimum
// (`trainedAt`, as claims/lab/common.js's runEnd reads it). Once a run has finished
// training, the session asks its trainer for its lesion() and keeps it on the run (`lesion`, or
// `lesionError`): at once, while the other runs still train (a worker that has finished its own
// runs is not left waiting for the last to end), and for every run not yet asked once all have
// finished. With it, what it learned beyond the weights: `dwaWeights` (DenseFormer's averaging
// weights), `attnResWeights` (Attention Residuals' read weights over the
// held-out set) and `gates` (ReZero's and LayerScale's), each null for a preset
// without them (or `learnedError`). The session says done once every run has all of these. A spec with `normSamples` also keeps its
// first seed's norms on held-out batch 0 (the trainer's normSamples(), as `normSamples`).
//
// Seeds: each run trains on every seed of the settings (`seeds`, shared/train-fields.js's seedList:
// config.seed + i for i = 0 .. seeds - 1), each seed an independent trainer spread over the pool
// with its own loop, so a seed's numbers are the same whatever the pool's size and the order its
// workers answer in. The snapshot's `runs` are the first seed's (one per run key), each holding
// every seed's run, itself first, in `seeds`; `all` is every seed's run.
import { belowHalfway } from '../claims/lab/common.js';
import { engineSettings, seedList } from '../shared/train-fields.js';

/**
 * The runs of a session: `specs` (each {key?, arch, label?, overrides?, dash?, stopWhenTrained?, normSamples?})
 * or one per arch of `config.arch`; each with its own config (the engine's fields: the shared ones
 * with its overrides and its single arch) and `seedList`, the seeds it trains on. Keys are
 * unique (the arch, else given).
 */
export function runSpecs(config, specs = null) {
  const list = specs ?? config.arch.map((arch) => ({ arch }));
  const seeds = seedList(config);
  const out = list.map((s) => {
    const shared = engineSettings(config);
    delete shared.arch;
    return {
      key: s.key ?? s.arch,
      arch: s.arch,
      label: s.label ?? null,
      dash: s.dash ?? null,
      stopWhenTrained: Boolean(s.stopWhenTrained),
      normSamples: Boolean(s.normSamples),
      config: { ...shared, ...(s.overrides ?? {}), arch: s.arch },
      seedList: seeds,
    };
  });
  const keys = new Set(out.map((s) => s.key));
  if (keys.size !== out.length) throw new RangeError('runs: two runs have the same key');
  return out;
}

/** Tokens one update trains on: B sequences of T tokens (T = 2n for copy, reverse, sort; 2 for modadd; n for markov), or B examples. */
export function tokensPerStep(config) {
  const per = { copy: 2 * config.seq, reverse: 2 * config.seq, sort: 2 * config.seq, modadd: 2, markov: config.seq };
  return config.batch * (per[config.task] ?? 1);
}

/**
 * A trainer lost with its engine worker (engine/client.js: .field 'trainer', .cause why the worker
 * stopped) as the reader's next step; any other error as it is. `making`: the trainer was being made.
 */
function lostTrainerError(e, making = false) {
  if (e?.field !== 'trainer' || typeof e.cause !== 'string') return e;
  const text = making
    ? `the engine worker making it ended (${e.cause}). Press Start to try again.`
    : `the engine worker training it ended (${e.cause}), so this run cannot go on. Press Reset, then Start ` +
      'to train it again, or Load\u2026 a model file you saved.';
  return Object.assign(new Error(text), { field: 'trainer', cause: e.cause });
}

/** The session states in which its runs are training (requests out, or about to be). */
export const TRAINING_STATES = Object.freeze(['starting', 'running', 'pausing', 'stepping']);

/** The updates of the next request of a run at `done` of `steps`: up to the next logged step. */
export function chunkSize(done, steps, logEvery) {
  return Math.max(0, Math.min(logEvery - (done % logEvery), steps - done));
}

/** A run has finished: stopped at a non-finite step, failed, trained (stopWhenTrained) or at its last step. */
const finished = (r) => r.stopped || r.error || r.trainedAt !== null || r.stepsDone >= r.steps;

/** The first log of `logs` with a non-finite step, or undefined. */
const nonfiniteLog = (logs) => logs.find((l) => l.first_nonfinite !== null && l.first_nonfinite !== undefined);

/**
 * Each run key's seeds: the first seed's run (seedIndex 0) holds every seed's run of its key, itself
 * first, in `seeds`. Returns `runs`.
 */
function linkSeeds(runs) {
  for (const r of runs)
    r.seeds = r.seedIndex === 0 ? runs.filter((x) => x.key === r.key).sort((a, b) => a.seedIndex - b.seedIndex) : null;
  return runs;
}

/** The first seed's run of each run key, in the runs' order: the same list while `runs` is the same. */
function firstSeedsOf() {
  let of = null;
  let list = [];
  return (runs) => (of === runs ? list : ((of = runs), (list = runs.filter((r) => r.seedIndex === 0))));
}

/** A run of the session, from what it is (`of`), its trainer and where its training stands. */
function createRun(of, trainer, { logs = [], stepsDone = 0, stopped = false, firstNonfinite = null } = {}) {
  return {
    arch: of.arch,
    key: of.key,
    label: of.label,
    dash: of.dash,
    steps: of.steps,
    stopWhenTrained: of.stopWhenTrained,
    trainedAt: of.trainedAt,
    logEvery: of.logEvery,
    seedIndex: of.seedIndex ?? 0,
    seed: trainer.config?.seed ?? null,
    seeds: null,
    lesion: null,
    lesionError: null,
    dwaWeights: null,
    attnResWeights: null,
    gates: null,
    wantsNormSamples: Boolean(of.normSamples),
    normSamples: null,
    learnedError: null,
    afterAsked: null, // the promise of its after-training answers, once asked (afterRun)
    trainer,
    config: trainer.config ?? null,
    task: trainer.task ?? null,
    logs,
    stepsDone,
    stopped,
    firstNonfinite,
    error: null,
    busy: false,
    activeSteps: 0,
  };
}

/**
 * The session's state and the time spent running (not paused), for the rates. The clock runs while
 * the run is running or finishing a pause: the rates leave paused time out.
 */
function createRunClock(now) {
  let state = 'idle';
  let activeMs = 0;
  let runningSince = 0;
  const clockedIn = (st) => st === 'running' || st === 'pausing';
  return {
    get state() {
      return state;
    },
    set(next) {
      if (clockedIn(state) && !clockedIn(next)) {
        activeMs += now() - runningSince;
        runningSince = 0;
      } else if (!clockedIn(state) && clockedIn(next)) runningSince = now();
      state = next;
    },
    clocked: () => clockedIn(state),
    /** The time spent running so far, in ms. */
    ms: () => activeMs + (clockedIn(state) ? now() - runningSince : 0),
    /** The time spent running counted from now on. */
    zero() {
      activeMs = 0;
      runningSince = 0;
    },
    /** Idle, no time spent. */
    idle() {
      activeMs = 0;
      runningSince = 0;
      state = 'idle';
    },
  };
}

/** The snapshot's progress of `runs` after `ms` of running: steps done, the rates and the time left. */
function progressOf(runs, config, ms, state) {
  const total = runs.reduce((s, r) => s + r.steps, 0);
  const done = runs.reduce((s, r) => s + (finished(r) ? r.steps : r.stepsDone), 0);
  const rates = runs.map((r) => (ms > 0 ? r.activeSteps / (ms / 1000) : 0));
  const left = runs.map((r, i) => (finished(r) ? 0 : rates[i] > 0 ? (r.steps - r.stepsDone) / rates[i] : Infinity));
  const stepsPerSecond = rates.reduce((a, b) => a + b, 0);
  return {
    done,
    total,
    fraction: total ? done / total : 0,
    stepsPerSecond,
    tokensPerSecond: config ? stepsPerSecond * tokensPerStep(config) : 0,
    secondsLeft: runs.length && state !== 'done' ? Math.max(0, ...left) : 0,
    activeMs: ms,
  };
}

/**
 * One request of `r`: the updates up to its next logged step. `current()`: the answer is still
 * wanted (no reset since); `clocked()`: the session's clock runs (its steps count for the rates).
 */
async function advance(r, current, clocked) {
  const n = chunkSize(r.stepsDone, r.steps, r.logEvery);
  if (n <= 0) return;
  r.busy = true;
  let logs;
  try {
    logs = await r.trainer.step(n);
  } catch (e) {
    if (!current()) return;
    r.busy = false;
    r.error = lostTrainerError(e);
    return;
  }
  if (!current()) return;
  r.busy = false;
  r.logs.push(...logs);
  const stop = nonfiniteLog(logs);
  if (stop) {
    r.stopped = true;
    r.firstNonfinite = stop.first_nonfinite;
    r.stepsDone = stop.step;
  } else r.stepsDone += n;
  if (clocked()) r.activeSteps += n;
  const last = logs.at(-1);
  if (r.stopWhenTrained && !r.stopped && last && belowHalfway(last, r.task)) r.trainedAt = last.step;
  // finished: its lesion and what it learned asked at once, while the others train (kept by afterRun)
  if (finished(r)) afterRun(r, current);
}

// ---- after training: each run's lesion (its trainer's lesion()) and its
// learned averaging weights and gates (dwaWeights(), gates()), kept on the run
// while `current()` (no reset since)
async function afterTraining(runs, current) {
  await Promise.all(runs.map((r) => afterRun(r, current)));
}
/** The after-training answers of `r`, asked once for the run (the same promise when asked again). */
function afterRun(r, current) {
  r.afterAsked ??= Promise.all([lesionOf(r, current), learnedOf(r, current)]);
  return r.afterAsked;
}
async function lesionOf(r, current) {
  if (r.lesion || r.error || typeof r.trainer.lesion !== 'function') return;
  try {
    const l = await r.trainer.lesion();
    if (current()) r.lesion = l;
  } catch (e) {
    if (current()) r.lesionError = e;
  }
}
async function learnedOf(r, current) {
  if (r.dwaWeights || r.attnResWeights || r.gates || r.error) return;
  const ask = (name) => (typeof r.trainer[name] === 'function' ? r.trainer[name]() : null);
  try {
    const samples = r.wantsNormSamples && r.seedIndex === 0 ? ask('normSamples') : null;
    const [w, a, g, n] = await Promise.all([ask('dwaWeights'), ask('attnResWeights'), ask('gates'), samples]);
    if (!current()) return;
    r.dwaWeights = w ?? null;
    r.attnResWeights = a ?? null;
    r.gates = g ?? null;
    r.normSamples = n ?? null;
  } catch (e) {
    if (current()) r.learnedError = e;
  }
}

// ---- saving and loading a model: the file's format is model-file.js's

/** The run as a model file holds it: the settings and, per run, its arch, logs and the engine's state blob (`states`). */
function savedModel(runs, config, states) {
  const shared = { ...config };
  delete shared.arch;
  // a run's overrides: the settings its trainer has that differ from the shared ones
  const overridesOf = (r) =>
    Object.fromEntries(
      Object.keys(shared)
        .filter((k) => r.config && k in r.config && JSON.stringify(r.config[k]) !== JSON.stringify(shared[k]))
        .map((k) => [k, r.config[k]]),
    );
  return {
    // the settings name each architecture once, whatever runs use it
    config: { ...config, arch: [...new Set(config.arch)] },
    runs: runs.map((r, i) => ({
      arch: r.arch,
      key: r.key ?? r.arch,
      label: r.label ?? null,
      dash: r.dash ?? null,
      overrides: overridesOf(r),
      stopWhenTrained: Boolean(r.stopWhenTrained),
      trainedAt: r.trainedAt ?? null,
      seedIndex: r.seedIndex ?? 0,
      normSamples: Boolean(r.wantsNormSamples),
      logs: r.logs,
      state: states[i],
    })),
  };
}

/** The runs of a session in `state` as a model file holds them, their states asked of their trainers. */
async function saveRuns(runs, config, state) {
  if (!runs.length || (state !== 'paused' && state !== 'done'))
    throw new Error('nothing to save: a model is saved when its run is paused or done');
  const states = await Promise.all(runs.map((r) => r.trainer.state()));
  return savedModel(runs, config, states);
}

/** Why a loaded trainer does not match its file's run (null when it does): its arch, settings and step. */
function loadedMismatch(t, r, cfg) {
  const got = t.config ?? {};
  if (got.arch !== undefined && got.arch !== r.arch) return `its state is of ${got.arch}, not ${r.arch}`;
  for (const k of Object.keys(got))
    if (k !== 'arch' && k in cfg && JSON.stringify(got[k]) !== JSON.stringify(cfg[k]))
      return `its state was trained with ${k} ${JSON.stringify(got[k])}, the settings say ${JSON.stringify(cfg[k])}`;
  const last = r.logs.at(-1)?.step ?? 0;
  if (t.stepsDone !== last) return `its state is at step ${t.stepsDone}, its logs end at step ${last}`;
  return null;
}

/**
 * The trainers of a decoded model file's runs, made with their own settings (`own`) and their states
 * loaded. A refusal (settings the engine refuses, a state it cannot load, logs that end elsewhere than
 * the state, `current()` false: a reset while it loaded) deletes every one made and rejects with an
 * Error naming the run and what is wrong.
 */
async function loadTrainers(engine, model, own, current) {
  const made = await Promise.allSettled(own.map((c) => engine.trainer(engineSettings(c))));
  const drop = () => Promise.all(made.map((m) => m.status === 'fulfilled' && m.value.delete().catch(() => {})));
  const name = (i) => model.runs[i].key ?? model.runs[i].arch;
  try {
    const refused = made.findIndex((m) => m.status === 'rejected');
    if (refused >= 0)
      throw Object.assign(new Error(`${name(refused)}: ${made[refused].reason?.message}`), {
        field: made[refused].reason?.field,
      });
    const trainers = made.map((m) => m.value);
    const loaded = await Promise.allSettled(trainers.map((t, i) => t.load(model.runs[i].state)));
    const bad = loaded.findIndex((m) => m.status === 'rejected');
    if (bad >= 0) throw Object.assign(new Error(`${name(bad)}: ${loaded[bad].reason?.message}`), { field: 'state' });
    trainers.forEach((t, i) => {
      const why = loadedMismatch(t, model.runs[i], own[i]);
      if (why) throw Object.assign(new Error(`${name(i)}: ${why}`), { field: 'state' });
    });
    if (!current()) throw new Error('the run was reset while the file loaded');
    return trainers;
  } catch (e) {
    await drop();
    throw e;
  }
}

/**
 * The runs of a decoded model file ({config, runs: [{arch, logs, state}]}) on trainers made again
 * with their states loaded (loadTrainers: a refusal rejects).
 */
async function loadRuns(engine, model, current) {
  const cfg = { ...model.config };
  // each run's own settings: the shared ones with its overrides (a claim's) and its arch
  const own = model.runs.map((r) => ({ ...cfg, ...(r.overrides ?? {}), arch: r.arch }));
  const trainers = await loadTrainers(engine, model, own, current);
  const runs = trainers.map((t, i) => {
    const logs = [...model.runs[i].logs];
    const stop = nonfiniteLog(logs);
    const r = model.runs[i];
    const of = {
      arch: r.arch,
      key: r.key ?? r.arch,
      label: r.label ?? null,
      dash: r.dash ?? null,
      steps: own[i].steps,
      stopWhenTrained: Boolean(r.stopWhenTrained),
      trainedAt: r.trainedAt ?? null,
      logEvery: own[i].log_every,
      seedIndex: r.seedIndex ?? 0,
      normSamples: Boolean(r.normSamples),
    };
    return createRun(of, t, {
      logs,
      stepsDone: t.stepsDone,
      stopped: Boolean(t.stopped),
      firstNonfinite: stop ? stop.first_nonfinite : null,
    });
  });
  return linkSeeds(runs);
}

/** The run specs of `cfg` (runSpecs) as {specs}, or {wrong}: why there are none. */
function specsOf(cfg, given) {
  try {
    return { specs: runSpecs(cfg, given) };
  } catch (e) {
    return { specs: null, wrong: e };
  }
}

/** The trainers a session makes for `specs`: each spec on each of its seeds, {spec, seedIndex, config}. */
const seedRuns = (specs) =>
  specs.flatMap((spec) =>
    spec.seedList.map((seed, seedIndex) => ({
      spec,
      seedIndex,
      // the first seed is the settings' own (a config that leaves the seed out keeps it out)
      config: seedIndex === 0 ? spec.config : { ...spec.config, seed },
    })),
  );

/**
 * The trainers of `specs` (each on each of its seeds, seedRuns), made in parallel: {made} (their
 * allSettled answers), or {made: null, refused} when one was refused (its reason) or the answers are
 * no longer wanted (`current()` false: refused null); then none is kept.
 */
async function makeTrainers(engine, specs, current) {
  const made = await Promise.allSettled(seedRuns(specs).map((s) => engine.trainer(s.config)));
  const refused = made.find((m) => m.status === 'rejected');
  if (current() && !refused) return { made };
  for (const m of made) if (m.status === 'fulfilled') m.value.delete().catch(() => {});
  return { made: null, refused: current() ? refused : null };
}

/** The runs of freshly made trainers (`made`: their allSettled answers), one per run spec and seed (seedRuns). */
function newRuns(specs, made) {
  const of = seedRuns(specs);
  return linkSeeds(
    made.map((m, i) =>
      createRun(
        {
          arch: of[i].spec.arch,
          key: of[i].spec.key,
          label: of[i].spec.label,
          dash: of[i].spec.dash,
          steps: of[i].config.steps,
          stopWhenTrained: of[i].spec.stopWhenTrained,
          normSamples: of[i].spec.normSamples,
          trainedAt: null,
          logEvery: of[i].config.log_every,
          seedIndex: of[i].seedIndex,
        },
        m.value,
      ),
    ),
  );
}

export function createSession({ engine, onChange = () => {}, now = () => performance.now() }) {
  const clock = createRunClock(now);
  let runs = []; // every seed's: {arch, trainer, config, task, logs, stepsDone, stopped, error, busy, activeSteps, seedIndex}
  let generation = 0; // bumped by reset(): answers of an older generation are dropped
  let config = null; // the shared config of the runs (a run's own is run.config)
  let error = null;
  let settled = null; // resolves when the running loops have all stopped
  const firstSeeds = firstSeedsOf();

  const changed = () => onChange(snapshot());
  /** Whether an answer asked for in generation `gen` is still wanted. */
  const currentOf = (gen) => () => gen === generation;

  /** The trainers for `cfg`, one per run spec (runSpecs), made in parallel; on a refusal none is kept. */
  async function open(cfg, given = null) {
    const gen = generation;
    const { specs, wrong } = specsOf(cfg, given);
    if (!specs) {
      error = wrong;
      clock.set('error');
      changed();
      return false;
    }
    config = { ...cfg, arch: specs.map((s) => s.arch) };
    error = null;
    clock.set('starting');
    changed();
    const { made, refused } = await makeTrainers(engine, specs, currentOf(gen));
    if (!made) {
      if (refused) {
        error = lostTrainerError(refused.reason, true);
        runs = [];
        clock.set('error');
        changed();
      }
      return false;
    }
    runs = newRuns(specs, made);
    clock.zero();
    return true;
  }

  async function afterRequests(gen) {
    if (runs.length && runs.every(finished)) {
      await afterTraining(runs, currentOf(gen));
      if (gen === generation) clock.set('done');
    } else if (clock.state === 'pausing' || clock.state === 'stepping') clock.set('paused');
  }

  async function loop(r, gen) {
    while (gen === generation && clock.state === 'running' && !finished(r)) {
      await advance(r, currentOf(gen), clock.clocked);
      if (gen === generation) changed();
    }
  }

  async function runAll() {
    const gen = generation;
    clock.set('running');
    changed();
    await Promise.all(runs.map((r) => loop(r, gen)));
    await settle(gen);
  }

  /** After the requests of generation `gen`: done or paused, then drawn (nothing when reset since). */
  async function settle(gen) {
    if (gen !== generation) return;
    await afterRequests(gen);
    if (gen !== generation) return;
    changed();
  }

  function snapshot() {
    const progress = progressOf(runs, config, clock.ms(), clock.state);
    return { state: clock.state, config, error, runs: firstSeeds(runs), all: runs, progress };
  }

  /**
   * A decoded model file's runs (loadRuns), taken paused (or done) only when every one has loaded;
   * the run before is deleted then. A refusal rejects, and the session is as it was.
   */
  async function loadModel(model) {
    const loaded = await loadRuns(engine, model, currentOf(generation));
    generation++;
    const old = runs;
    runs = loaded;
    config = { ...model.config };
    error = null;
    // a finished run's lesions, weights and gates are asked again, as at the end of a run (they are
    // not in the file: the trainer's state holds the weights and gates)
    if (runs.every(finished)) await afterTraining(runs, currentOf(generation));
    clock.set(runs.every(finished) ? 'done' : 'paused');
    clock.zero();
    changed();
    await Promise.all(old.map((r) => r.trainer.delete().catch(() => {})));
  }

  return {
    snapshot,
    get state() {
      return clock.state;
    },
    /** Starts (idle, done with new settings, error) or continues (paused) the run. */
    async start(cfg, specs = null) {
      if (['running', 'starting', 'stepping'].includes(clock.state)) return settled;
      if (clock.state === 'pausing') {
        await settled; // the loops stop first; then they start again from where they are
        return this.start(cfg, specs);
      }
      if (clock.state !== 'paused' && !(await open(cfg, specs))) return null;
      settled = runAll();
      return settled;
    },
    /** Asks for no more updates; the requests under way finish and are kept. */
    pause() {
      if (clock.state !== 'running') return;
      clock.set('pausing');
      changed();
      if (runs.every((r) => !r.busy)) {
        const gen = generation;
        afterRequests(gen).then(() => gen === generation && changed());
      }
    },
    /** One logged step of every architecture that has not finished, then paused (or done). */
    async step(cfg, specs = null) {
      if (TRAINING_STATES.includes(clock.state)) return;
      if ((clock.state === 'idle' || clock.state === 'error') && !(await open(cfg, specs))) return;
      if (clock.state === 'done') return;
      const gen = generation;
      clock.set('stepping');
      changed();
      await Promise.all(runs.filter((r) => !finished(r)).map((r) => advance(r, currentOf(gen), clock.clocked)));
      await settle(gen);
    },
    /** The run as a model file holds it (model-file.js encodes it): when paused or done. */
    saveModel: () => saveRuns(runs, config, clock.state),
    loadModel,
    /** Deletes the trainers and forgets the run; answers still on their way are ignored. */
    async reset() {
      generation++;
      const old = runs;
      runs = [];
      config = null;
      error = null;
      clock.idle();
      changed();
      await Promise.all(old.map((r) => r.trainer.delete().catch(() => {})));
    },
  };
}
