// resnorm-iframe.js: sizes every <iframe data-resnorm> on the page to the
// height its resnorm embed reports. A classic script with no dependencies;
// copy it next to your page if your Content-Security-Policy only allows your
// own scripts. Usage:
//   <iframe src="https://example.org/resnorm/embed.html#depth=48" data-resnorm
//           title="resnorm" width="100%" height="600" loading="lazy"></iframe>
//   <script src="resnorm-iframe.js" defer></script>
(function () {
  'use strict';
  if (window.__resnormIframe) return;
  window.__resnormIframe = true;
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.type !== 'resnorm:height' || typeof data.height !== 'number' || !isFinite(data.height)) return;
    var frames = document.querySelectorAll('iframe[data-resnorm]');
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.contentWindow !== event.source) continue;
      var origin = new URL(frame.src, location.href).origin;
      if (origin !== event.origin) return; // only the page the iframe was pointed at
      frame.height = String(Math.max(80, Math.min(20000, Math.ceil(data.height))));
      return;
    }
  });
})();
