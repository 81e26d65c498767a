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
// (train-verdicts.js's trainedAt). When every run has finished, the session asks each trainer for
// its lesion() and keeps it on the run (`lesion`, or `lesionError`), and what
// it learned beyond the weights: `dwaWeights` (DenseFormer's averaging
// weights) and `gates` (ReZero's and LayerScale's), each null for a preset
// without them (or `learnedError`), before it says done.
import { belowHalfway } from '../shared/train-verdicts.js';

/**
 * The runs of a session: `specs` (each {key?, arch, label?, overrides?, dash?, stopWhenTrained?})
 * or one per arch of `config.arch`; each with its own config, the shared one
 * with its overrides and its single arch. Keys are unique (the arch, else
 * given).
 */
export function runSpecs(config, specs = null) {
  const list = specs ?? config.arch.map((arch) => ({ arch }));
  const out = list.map((s) => {
    const shared = { ...config };
    delete shared.arch;
    return {
      key: s.key ?? s.arch,
      arch: s.arch,
      label: s.label ?? null,
      dash: s.dash ?? null,
      stopWhenTrained: Boolean(s.stopWhenTrained),
      config: { ...shared, ...(s.overrides ?? {}), arch: s.arch },
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

export function createSession({ engine, onChange = () => {}, now = () => performance.now() }) {
  let state = 'idle';
  let runs = []; // {arch, trainer, config, task, logs, stepsDone, stopped, error, busy, activeSteps}
  let generation = 0; // bumped by reset(): answers of an older generation are dropped
  let config = null; // the shared config of the runs (a run's own is run.config)
  let error = null;
  let activeMs = 0; // time spent running (not paused), for the rates
  let runningSince = 0;
  let settled = null; // resolves when the running loops have all stopped

  const changed = () => onChange(snapshot());
  const finished = (r) => r.stopped || r.error || r.trainedAt !== null || r.stepsDone >= r.steps;

  // The clock runs while the run is running or finishing a pause: the rates leave paused time out.
  const clocked = (st) => st === 'running' || st === 'pausing';
  function setState(next) {
    if (clocked(state) && !clocked(next)) {
      activeMs += now() - runningSince;
      runningSince = 0;
    } else if (!clocked(state) && clocked(next)) runningSince = now();
    state = next;
  }

  /** The trainers for `cfg`, one per run spec (runSpecs), made in parallel; on a refusal none is kept. */
  async function open(cfg, given = null) {
    const gen = generation;
    let specs;
    try {
      specs = runSpecs(cfg, given);
    } catch (e) {
      error = e;
      setState('error');
      changed();
      return false;
    }
    config = { ...cfg, arch: specs.map((s) => s.arch) };
    error = null;
    setState('starting');
    changed();
    const made = await Promise.allSettled(specs.map((s) => engine.trainer(s.config)));
    const refused = made.find((m) => m.status === 'rejected');
    if (gen !== generation || refused) {
      for (const m of made) if (m.status === 'fulfilled') m.value.delete().catch(() => {});
      if (gen === generation) {
        error = lostTrainerError(refused.reason, true);
        runs = [];
        setState('error');
        changed();
      }
      return false;
    }
    runs = made.map((m, i) => ({
      arch: specs[i].arch,
      key: specs[i].key,
      label: specs[i].label,
      dash: specs[i].dash,
      steps: specs[i].config.steps,
      stopWhenTrained: specs[i].stopWhenTrained,
      trainedAt: null,
      logEvery: specs[i].config.log_every,
      lesion: null,
      lesionError: null,
      dwaWeights: null,
      gates: null,
      learnedError: null,
      trainer: m.value,
      config: m.value.config ?? null,
      task: m.value.task ?? null,
      logs: [],
      stepsDone: 0,
      stopped: false,
      firstNonfinite: null,
      error: null,
      busy: false,
      activeSteps: 0,
    }));
    activeMs = 0;
    return true;
  }

  /** One request of `r`: the updates up to its next logged step. */
  async function advance(r, gen) {
    const n = chunkSize(r.stepsDone, r.steps, r.logEvery);
    if (n <= 0) return;
    r.busy = true;
    let logs;
    try {
      logs = await r.trainer.step(n);
    } catch (e) {
      if (gen !== generation) return;
      r.busy = false;
      r.error = lostTrainerError(e);
      return;
    }
    if (gen !== generation) return;
    r.busy = false;
    r.logs.push(...logs);
    const stop = logs.find((l) => l.first_nonfinite !== null && l.first_nonfinite !== undefined);
    if (stop) {
      r.stopped = true;
      r.firstNonfinite = stop.first_nonfinite;
      r.stepsDone = stop.step;
    } else r.stepsDone += n;
    if (clocked(state)) r.activeSteps += n;
    const last = logs.at(-1);
    if (r.stopWhenTrained && !r.stopped && last && belowHalfway(last, r.task)) r.trainedAt = last.step;
  }

  async function afterRequests(gen) {
    if (runs.length && runs.every(finished)) {
      await afterTraining(gen);
      if (gen === generation) setState('done');
    } else if (state === 'pausing' || state === 'stepping') setState('paused');
  }

  // ---- after training: each run's lesion (its trainer's lesion()) and its
  // learned averaging weights and gates (dwaWeights(), gates()), kept on the run
  async function afterTraining(gen) {
    await Promise.all(runs.map((r) => Promise.all([lesionOf(r, gen), learnedOf(r, gen)])));
  }
  async function lesionOf(r, gen) {
    if (r.lesion || r.error || typeof r.trainer.lesion !== 'function') return;
    try {
      const l = await r.trainer.lesion();
      if (gen === generation) r.lesion = l;
    } catch (e) {
      if (gen === generation) r.lesionError = e;
    }
  }
  async function learnedOf(r, gen) {
    if (r.dwaWeights || r.gates || r.error) return;
    const ask = (name) => (typeof r.trainer[name] === 'function' ? r.trainer[name]() : null);
    try {
      const [w, g] = await Promise.all([ask('dwaWeights'), ask('gates')]);
      if (gen !== generation) return;
      r.dwaWeights = w ?? null;
      r.gates = g ?? null;
    } catch (e) {
      if (gen === generation) r.learnedError = e;
    }
  }

  async function loop(r, gen) {
    while (gen === generation && state === 'running' && !finished(r)) {
      await advance(r, gen);
      if (gen === generation) changed();
    }
  }

  async function runAll() {
    const gen = generation;
    setState('running');
    changed();
    await Promise.all(runs.map((r) => loop(r, gen)));
    if (gen !== generation) return;
    await afterRequests(gen);
    if (gen !== generation) return;
    changed();
  }

  function snapshot() {
    const total = runs.reduce((s, r) => s + r.steps, 0);
    const done = runs.reduce((s, r) => s + (finished(r) ? r.steps : r.stepsDone), 0);
    const ms = activeMs + (clocked(state) ? now() - runningSince : 0);
    const rates = runs.map((r) => (ms > 0 ? r.activeSteps / (ms / 1000) : 0));
    const left = runs.map((r, i) => (finished(r) ? 0 : rates[i] > 0 ? (r.steps - r.stepsDone) / rates[i] : Infinity));
    const stepsPerSecond = rates.reduce((a, b) => a + b, 0);
    return {
      state,
      config,
      error,
      runs,
      progress: {
        done,
        total,
        fraction: total ? done / total : 0,
        stepsPerSecond,
        tokensPerSecond: config ? stepsPerSecond * tokensPerStep(config) : 0,
        secondsLeft: runs.length && state !== 'done' ? Math.max(0, ...left) : 0,
        activeMs: ms,
      },
    };
  }

  // ---- saving and loading a model: the file's format is model-file.js's

  /** The run as a model file holds it: the settings and, per run, its arch, logs and the engine's state blob. */
  async function saveModel() {
    if (!runs.length || (state !== 'paused' && state !== 'done'))
      throw new Error('nothing to save: a model is saved when its run is paused or done');
    const states = await Promise.all(runs.map((r) => r.trainer.state()));
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
        logs: r.logs,
        state: states[i],
      })),
    };
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
   * Makes the trainers of a decoded model file ({config, runs: [{arch, logs,
   * state}]}) again and loads their states. Only when every one has loaded
   * does the session take them, paused (or done), and the run before is
   * deleted; a refusal (settings the engine refuses, a state it cannot load,
   * logs that end elsewhere than the state) rejects with an Error naming the
   * run and what is wrong, and the session is as it was.
   */
  async function loadModel(model) {
    const gen = generation;
    const cfg = { ...model.config };
    // each run's own settings: the shared ones with its overrides (a paper preset's) and its arch
    const own = model.runs.map((r) => ({ ...cfg, ...(r.overrides ?? {}), arch: r.arch }));
    const made = await Promise.allSettled(own.map((c) => engine.trainer(c)));
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
      if (gen !== generation) throw new Error('the run was reset while the file loaded');
    } catch (e) {
      await drop();
      throw e;
    }
    generation++;
    const old = runs;
    runs = made.map(({ value: t }, i) => {
      const logs = [...model.runs[i].logs];
      const stop = logs.find((l) => l.first_nonfinite !== null && l.first_nonfinite !== undefined);
      const r = model.runs[i];
      return {
        arch: r.arch,
        key: r.key ?? r.arch,
        label: r.label ?? null,
        dash: r.dash ?? null,
        steps: own[i].steps,
        stopWhenTrained: Boolean(r.stopWhenTrained),
        trainedAt: r.trainedAt ?? null,
        logEvery: own[i].log_every,
        lesion: null,
        lesionError: null,
        dwaWeights: null,
        gates: null,
        learnedError: null,
        trainer: t,
        config: t.config ?? null,
        task: t.task ?? null,
        logs,
        stepsDone: t.stepsDone,
        stopped: Boolean(t.stopped),
        firstNonfinite: stop ? stop.first_nonfinite : null,
        error: null,
        busy: false,
        activeSteps: 0,
      };
    });
    config = cfg;
    error = null;
    // a finished run's lesions, weights and gates are asked again, as at the end of a run (they are
    // not in the file: the trainer's state holds the weights and gates)
    if (runs.every(finished)) await afterTraining(generation);
    setState(runs.every(finished) ? 'done' : 'paused');
    activeMs = 0;
    runningSince = 0;
    changed();
    await Promise.all(old.map((r) => r.trainer.delete().catch(() => {})));
  }

  return {
    snapshot,
    get state() {
      return state;
    },
    /** Starts (idle, done with new settings, error) or continues (paused) the run. */
    async start(cfg, specs = null) {
      if (state === 'running' || state === 'starting' || state === 'stepping') return settled;
      if (state === 'pausing') {
        await settled; // the loops stop first; then they start again from where they are
        return this.start(cfg, specs);
      }
      if (state !== 'paused' && !(await open(cfg, specs))) return null;
      settled = runAll();
      return settled;
    },
    /** Asks for no more updates; the requests under way finish and are kept. */
    pause() {
      if (state !== 'running') return;
      setState('pausing');
      changed();
      if (runs.every((r) => !r.busy)) {
        const gen = generation;
        afterRequests(gen).then(() => gen === generation && changed());
      }
    },
    /** One logged step of every architecture that has not finished, then paused (or done). */
    async step(cfg, specs = null) {
      if (TRAINING_STATES.includes(state)) return;
      if ((state === 'idle' || state === 'error') && !(await open(cfg, specs))) return;
      if (state === 'done') return;
      const gen = generation;
      setState('stepping');
      changed();
      await Promise.all(runs.filter((r) => !finished(r)).map((r) => advance(r, gen)));
      if (gen !== generation) return;
      await afterRequests(gen);
      if (gen !== generation) return;
      changed();
    },
    saveModel,
    loadModel,
    /** Deletes the trainers and forgets the run; answers still on their way are ignored. */
    async reset() {
      generation++;
      const old = runs;
      runs = [];
      config = null;
      error = null;
      activeMs = 0;
      runningSince = 0;
      state = 'idle';
      changed();
      await Promise.all(old.map((r) => r.trainer.delete().catch(() => {})));
    },
  };
}
