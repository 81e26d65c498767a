// The embeds' styles, adopted by each shadow root as constructable
// stylesheets: nothing is added to the host page, the host's CSS does not reach
// in, and no inline <style> or style="" is needed under a strict CSP. The
// theme and the view's look are the explorer page's own sheets.
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import themeCss from '../shared/theme.css?inline';
import viewCss from '../shared/view.css?inline';
import embedCss from './embed.css?inline';

let sheets = null;

export function adoptStyles(shadow) {
  if (!sheets) {
    sheets = [uplotCss, themeCss, viewCss, embedCss].map((text) => {
      const s = new CSSStyleSheet();
      s.replaceSync(text);
      return s;
    });
  }
  shadow.adoptedStyleSheets = sheets;
}

/** An open shadow root on `host` with the styles and one wrapper (class "rn") to fill. */
export function shadowWrapper(host) {
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  adoptStyles(shadow);
  const wrapper = document.createElement('div');
  wrapper.className = 'rn';
  shadow.replaceChildren(wrapper);
  return wrapper;
}
