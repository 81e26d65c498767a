// Tells the page around an iframe how tall the embed is, so it can size the
// iframe (web/public/resnorm-iframe.js, or the snippet in web/examples/README.md):
//   parent.postMessage({type: 'resnorm:height', height}, '*')
// The height is not a secret, hence '*'; the host checks event.source. The
// height goes again at RESEND_MS after the first report, changed or not: a
// host whose sizing script starts after the embed's first report (a deferred
// script behind the page's modules) would otherwise wait for good on an embed
// whose height never changes (the training lab before a run).
export const MESSAGE = 'resnorm:height';
export const RESEND_MS = [500, 1500, 4000];

export function reportHeight(el, signal) {
  if (window.parent === window) return;
  let last = 0;
  let frame = 0;
  const send = () => {
    frame = 0;
    const height = Math.ceil(el.getBoundingClientRect().height);
    if (height === last || height === 0) return;
    last = height;
    window.parent.postMessage({ type: MESSAGE, height }, '*');
  };
  const ro = new ResizeObserver(() => {
    if (!frame) frame = requestAnimationFrame(send);
  });
  ro.observe(el);
  const timers = RESEND_MS.map((ms) =>
    setTimeout(() => {
      last = 0;
      send();
    }, ms),
  );
  signal?.addEventListener('abort', () => {
    ro.disconnect();
    timers.forEach(clearTimeout);
  });
  send();
}
