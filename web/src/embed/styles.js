// The embeds' styles, adopted by each shadow root as constructable
// stylesheets: nothing is added to the host page, the host's CSS does not reach
// in, and no inline <style> or style="" is needed under a strict CSP. The
// theme and the view's look are the explorer page's own sheets; the lab adds
// the lab page's sheet (train.css, with the site's app.css it imports) before
// the embed's own.
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import themeCss from '../shared/theme.css?inline';
import viewCss from '../shared/view.css?inline';
import labCss from '../train/train.css?inline';
import embedCss from './embed.css?inline';

const made = new Map();
const sheet = (text) => {
  if (!made.has(text)) {
    const s = new CSSStyleSheet();
    s.replaceSync(text);
    made.set(text, s);
  }
  return made.get(text);
};

/** The embed's sheets on `shadow`; with `lab`, the training lab's too. */
export function adoptStyles(shadow, { lab = false } = {}) {
  const texts = lab ? [uplotCss, themeCss, viewCss, labCss, embedCss] : [uplotCss, themeCss, viewCss, embedCss];
  shadow.adoptedStyleSheets = texts.map(sheet);
}

/** An open shadow root on `host` with the styles (`options` as adoptStyles') and one wrapper (class "rn") to fill. */
export function shadowWrapper(host, options = {}) {
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  adoptStyles(shadow, options);
  const wrapper = document.createElement('div');
  wrapper.className = 'rn';
  shadow.replaceChildren(wrapper);
  return wrapper;
}
