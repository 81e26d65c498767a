// The benchmark's child processes, each a long-lived contender that bench/run.js
// interleaves with the others call by call:
//   ForkedWorker  a JS-side contender: bench/lib/worker.js in its own Node process, over IPC;
//   LineProcess   a native binary that answers each command line on stdin with one
//                 JSON line on stdout (its first line, unasked, says what it is):
//                 resnorm_bench --serve 1, resnorm_train_bench --serve 1.
import { fork, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, perRound } from './stats.js';

const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));

export class ForkedWorker {
  constructor(name, execArgv = []) {
    this.name = name;
    this.child = fork(WORKER, [name], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.pending = new Map();
    this.nextId = 1;
    this.child.on('message', (m) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m);
      else p.reject(new Error(m.error));
    });
    this.child.on('exit', (code, signal) => {
      for (const p of this.pending.values()) p.reject(new Error(`${name} worker exited (${code ?? signal})`));
      this.pending.clear();
    });
  }
  call(cmd, args = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ id, cmd, ...args });
    });
  }
  close() {
    if (this.child.connected) this.child.disconnect();
  }
}

/**
 * The first line of an error's message, for a report: without the "Error: " a
 * child's stack starts with, or the prefix of an error thrown in a page.
 */
export const fmtErr = (e) =>
  String(e && e.message ? e.message : e)
    .split('\n')[0]
    .replace(/^(page\.evaluate: )?(Error: )?/, '');

/** The flags of a config for a native binary: --name value, '-' for '_', lists comma separated. */
export function nativeArgs(config) {
  const args = [];
  for (const [k, v] of Object.entries(config))
    args.push(`--${k.replace(/_/g, '-')}`, Array.isArray(v) ? v.join(',') : String(v));
  return args;
}

export class LineProcess {
  constructor(name, bin, args) {
    this.name = name;
    this.child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.queue = [];
    this.buffer = '';
    this.hello = new Promise((resolve, reject) => this.queue.push({ resolve, reject }));
    this.child.stdout.on('data', (d) => {
      this.buffer += d;
      let i;
      while ((i = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 1);
        const p = this.queue.shift();
        if (p) p.resolve(JSON.parse(line));
      }
    });
    const failAll = (e) => {
      for (const p of this.queue) p.reject(e);
      this.queue = [];
    };
    this.child.on('exit', (code, signal) => failAll(new Error(`${name} exited (${code ?? signal})`)));
    this.child.on('error', failAll);
  }
  send(line) {
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.child.stdin.write(`${line}\n`);
    });
  }
  close() {
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
  }
}

/**
 * A native contender: `new Cls(name, bin, config)` (a LineProcess) once it has
 * said what it is, or {skipped: why}; `built` says how it is built.
 */
export async function startNative(Cls, name, bin, config, built) {
  if (!existsSync(bin)) return { skipped: `${bin.replace(/^.*\/build\//, 'build/')} is not built (${built})` };
  const w = new Cls(name, bin, config);
  try {
    return { name, native: true, worker: w, info: await w.hello };
  } catch (e) {
    w.close();
    return { skipped: `could not run: ${fmtErr(e)}` };
  }
}

/**
 * Runs the contenders `live` (names of `state`) in plan.rounds rounds, the order
 * rotating each round, so a burst of load from a neighbour lands on all of them.
 * In round r contender n makes perRound(plan.n[n], plan.rounds, r) timed calls:
 * call(s, k, warmup) -> {first_ms, warmup_ms, samples_ms}, with warmup =
 * plan.warmup on its first call, then 0. Fills each s.first_ms, s.warmup_ms,
 * s.samples and s.rounds (the round's median, or null); a contender whose call
 * fails is skipped from then on (s.skipped). afterRound(r) after each round.
 */
export async function interleave(state, live, plan, call, afterRound = () => {}) {
  for (let r = 0; r < plan.rounds; r++) {
    for (let i = 0; i < live.length; i++) {
      const n = live[(i + r) % live.length];
      const s = state[n];
      const k = perRound(plan.n[n], plan.rounds, r);
      if (s.skipped || (k === 0 && s.first_ms !== null)) {
        s.rounds.push(null);
        continue;
      }
      try {
        const out = await call(s, k, s.first_ms === null ? plan.warmup : 0);
        if (s.first_ms === null) {
          s.first_ms = out.first_ms;
          s.warmup_ms = out.warmup_ms;
        }
        s.samples.push(...out.samples_ms);
        s.rounds.push(out.samples_ms.length ? median(out.samples_ms) : null);
      } catch (e) {
        s.skipped = `failed: ${fmtErr(e)}`;
        s.worker?.close();
      }
    }
    afterRound(r);
  }
}
