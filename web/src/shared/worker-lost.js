// What the page says when one of its engine workers stopped on its own
// (engine/client.js onWorkerLost): what happened, what the page goes on with,
// and what the reader can do. Pure: text only, from the client's facts.

const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1).replace(/\.?$/, '.');

/**
 * The notice for a worker that stopped: `error` (its Error), `left` (the pool's size from now on)
 * and `info` ({silent, loaded, trainers, working, ran}, as onWorkerLost gives them).
 */
export function workerLostText(error, left, info = {}) {
  const { silent = false, loaded = true, trainers = 0, working = 1, ran = true } = info;
  const what = silent
    ? 'An engine worker stopped without an error: its thread ended.'
    : loaded
      ? sentence(error.message)
      : `An engine worker could not be started (${error.message}).`;
  const runs =
    trainers === 1
      ? ' The training run it held stopped with it.'
      : trainers > 1
        ? ` The ${trainers} training runs it held stopped with it.`
        : '';
  if (!working && !ran)
    return (
      `${what} No engine could run on this page, so nothing was computed. Reload the page; if it fails ` +
      'again, something is blocking the engine\u2019s script (a browser extension, a firewall, or the ' +
      'site\u2019s settings).'
    );
  const next = silent
    ? ' A fresh one takes its place when there is work.'
    : working
      ? ` The page goes on with ${left} engine worker${left === 1 ? '' : 's'}; the numbers are the same, only slower.`
      : ' A fresh one is started when there is work.';
  return what + runs + next;
}
