// Times the plain-JavaScript engine on a scene, like build/native/resnorm_bench:
// the first call (fresh Engine: weight generation with the BigInt RNG, workspaces)
// and the median of steady-state calls, in ms. Prints one JSON line.
//   node bench/js/run.js [--arch a,b] [--depth N] ... [--repeat N]     (default scene, 20 calls)
import { fileURLToPath } from 'node:url';
import { Engine } from './engine.js';

// Times `config` (default: the default scene) on a fresh Engine; returns the numbers.
export function timeDefaultScene(config = {}, repeat = 20) {
  const engine = new Engine();
  const t0 = performance.now();
  engine.simulate(config);
  const first = performance.now() - t0;
  const ms = [];
  for (let r = 0; r < repeat; ++r) {
    // Alternate the gain as a slider would, so nothing is trivially cached.
    const cfg = { ...config, gain: r % 2 ? 1.0 : 1.0 + 1e-3 };
    const t = performance.now();
    engine.simulate(cfg);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const round = (v) => Math.round(v * 1e4) / 1e4;
  return {
    engine: 'js',
    runtime: `node ${process.version}`,
    first_ms: round(first),
    median_ms: round(ms[Math.floor(ms.length / 2)]),
    p10_ms: round(ms[Math.floor(ms.length / 10)]),
    p90_ms: round(ms[Math.floor((ms.length * 9) / 10)]),
    repeat,
  };
}

function main(argv) {
  const config = {};
  let repeat = 20;
  for (let i = 0; i + 1 < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-/g, '_');
    const value = argv[i + 1];
    if (key === 'repeat') repeat = Math.max(1, parseInt(value, 10) || 1);
    else if (key === 'arch') config.arch = value.split(',');
    else if (['activation', 'init', 'final_norm'].includes(key)) config[key] = value;
    else config[key] = Number(value);
  }
  try {
    console.log(JSON.stringify(timeDefaultScene(config, repeat)));
  } catch (e) {
    console.error(`run.js: ${e.message}`);
    process.exitCode = 2;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
