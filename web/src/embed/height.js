// Tells the page around an iframe how tall the embed is, so it can size the
// iframe (web/public/resnorm-iframe.js, or the snippet in the README):
//   parent.postMessage({type: 'resnorm:height', height}, '*')
// The height is not a secret, hence '*'; the host checks event.source. A
// host whose script started after the embed's first report (an embed whose
// height never changes again would wait for good) asks again with
//   iframe.contentWindow.postMessage({type: 'resnorm:height-request'}, origin)
// and the embed reports its height once more.
export const MESSAGE = 'resnorm:height';
export const REQUEST = 'resnorm:height-request';

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
  const onRequest = (e) => {
    if (e.source !== window.parent || e.data?.type !== REQUEST) return;
    last = 0;
    send();
  };
  window.addEventListener('message', onRequest, { signal });
  signal?.addEventListener('abort', () => ro.disconnect());
  send();
}
