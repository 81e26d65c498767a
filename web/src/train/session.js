// A training session: one trainer per architecture (each in a worker of the
// page's pool, engine/client.js `trainer(config)`), all stepped in parallel,
// one logged step per request, so the page never waits on a long call and a
// pause lands on a logged step. No DOM: the view draws what it holds.
//
//   const s = createSession({ engine, onChange });
//   await s.start(config);   // idle: new trainers; paused: continues where it stopped
//   s.pause();               // the requests under way finish, then nothing more is asked
//   await s.step(config);    // one logged step per architecture, then paused
//   await s.reset();         // trainers deleted, logs dropped
//   s.snapshot()             // {state, runs, progress, ...}
//   await s.saveModel();     // paused or done: {config, runs: [{arch, logs, state}]} (model-file.js encodes it)
//   await s.loadModel(model); // the trainers made again from a decoded file, paused; refused: as it was
//
// States: idle (no trainers), starting (trainers being made), running,
// pausing (a pause waits for the requests under way), paused, done (every
// architecture finished its steps or stopped at a non-finite step), error
// (the trainers could not be made: `error` holds the engine's refusal).
// A run goes on from exactly where it stopped, so a paused and continued run
// logs the numbers of an uninterrupted one.

/** Tokens one update trains on: B sequences of T tokens (T = 2n for copy, reverse, sort; 2 for modadd; n for markov), or B examples. */
export function tokensPerStep(config) {
  const per = { copy: 2 * config.seq, reverse: 2 * config.seq, sort: 2 * config.seq, modadd: 2, markov: config.seq };
  return config.batch * (per[config.task] ?? 1);
}

/** The updates of the next request of a run at `done` of `steps`: up to the next logged step. */
export function chunkSize(done, steps, logEvery) {
  return Math.max(0, Math.min(logEvery - (done % logEvery), steps - done));
}

export function createSession({ engine, onChange = () => {}, now = () => performance.now() }) {
  let state = 'idle';
  let runs = []; // {arch, trainer, config, task, logs, stepsDone, stopped, error, busy, activeSteps}
  let generation = 0; // bumped by reset(): answers of an older generation are dropped
  let config = null; // the shared config of the runs (every field but arch)
  let error = null;
  let activeMs = 0; // time spent running (not paused), for the rates
  let runningSince = 0;
  let settled = null; // resolves when the running loops have all stopped

  const changed = () => onChange(snapshot());
  const finished = (r) => r.stopped || r.error || r.stepsDone >= config.steps;

  // The clock runs while the run is running or finishing a pause: the rates leave paused time out.
  const clocked = (st) => st === 'running' || st === 'pausing';
  function setState(next) {
    if (clocked(state) && !clocked(next)) {
      activeMs += now() - runningSince;
      runningSince = 0;
    } else if (!clocked(state) && clocked(next)) runningSince = now();
    state = next;
  }

  /** The trainers for `cfg`, one per arch, made in parallel; on a refusal none is kept. */
  async function open(cfg) {
    const gen = generation;
    config = { ...cfg };
    error = null;
    setState('starting');
    changed();
    const made = await Promise.allSettled(cfg.arch.map((arch) => engine.trainer({ ...cfg, arch })));
    const refused = made.find((m) => m.status === 'rejected');
    if (gen !== generation || refused) {
      for (const m of made) if (m.status === 'fulfilled') m.value.delete().catch(() => {});
      if (gen === generation) {
        error = refused.reason;
        runs = [];
        setState('error');
        changed();
      }
      return false;
    }
    runs = made.map((m, i) => ({
      arch: cfg.arch[i],
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
    const n = chunkSize(r.stepsDone, config.steps, config.log_every);
    if (n <= 0) return;
    r.busy = true;
    let logs;
    try {
      logs = await r.trainer.step(n);
    } catch (e) {
      if (gen !== generation) return;
      r.busy = false;
      r.error = e;
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
  }

  function afterRequests() {
    if (runs.length && runs.every(finished)) setState('done');
    else if (state === 'pausing' || state === 'stepping') setState('paused');
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
    afterRequests();
    changed();
  }

  function snapshot() {
    const steps = config?.steps ?? 0;
    const total = steps * runs.length;
    const done = runs.reduce((s, r) => s + (finished(r) ? steps : r.stepsDone), 0);
    const ms = activeMs + (clocked(state) ? now() - runningSince : 0);
    const rates = runs.map((r) => (ms > 0 ? r.activeSteps / (ms / 1000) : 0));
    const left = runs.map((r, i) => (finished(r) ? 0 : rates[i] > 0 ? (steps - r.stepsDone) / rates[i] : Infinity));
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
    return { config: { ...config }, runs: runs.map((r, i) => ({ arch: r.arch, logs: r.logs, state: states[i] })) };
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
    const made = await Promise.allSettled(model.runs.map((r) => engine.trainer({ ...cfg, arch: r.arch })));
    const drop = () => Promise.all(made.map((m) => m.status === 'fulfilled' && m.value.delete().catch(() => {})));
    const name = (i) => model.runs[i].arch;
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
        const why = loadedMismatch(t, model.runs[i], cfg);
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
      return {
        arch: model.runs[i].arch,
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
    async start(cfg) {
      if (state === 'running' || state === 'starting' || state === 'stepping') return settled;
      if (state === 'pausing') {
        await settled; // the loops stop first; then they start again from where they are
        return this.start(cfg);
      }
      if (state !== 'paused' && !(await open(cfg))) return null;
      settled = runAll();
      return settled;
    },
    /** Asks for no more updates; the requests under way finish and are kept. */
    pause() {
      if (state !== 'running') return;
      setState('pausing');
      changed();
      if (runs.every((r) => !r.busy)) {
        afterRequests();
        changed();
      }
    },
    /** One logged step of every architecture that has not finished, then paused (or done). */
    async step(cfg) {
      if (state === 'running' || state === 'pausing' || state === 'starting' || state === 'stepping') return;
      if ((state === 'idle' || state === 'error') && !(await open(cfg))) return;
      if (state === 'done') return;
      const gen = generation;
      setState('stepping');
      changed();
      await Promise.all(runs.filter((r) => !finished(r)).map((r) => advance(r, gen)));
      if (gen !== generation) return;
      afterRequests();
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
