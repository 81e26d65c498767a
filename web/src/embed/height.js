// Tells the page around an iframe how tall the embed is, so it can size the
// iframe (web/public/resnorm-iframe.js, or the snippet in the README):
//   parent.postMessage({type: 'resnorm:height', height}, '*')
// The height is not a secret, hence '*'; the host checks event.source.
export const MESSAGE = 'resnorm:height';

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
  signal?.addEventListener('abort', () => ro.disconnect());
  send();
}
