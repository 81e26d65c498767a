// Printing: light colours whatever the theme on screen, and a page's own
// preparation before the browser lays the page out for paper.
//
//   const printTheme = watchPrint(theme, { before, after });
//
// The page's print starts on `beforeprint` (Ctrl+P, window.print()) or when
// the print media query starts to match (a browser or a test emulating print
// media); it ends on `afterprint` or when the query stops matching, whichever
// comes last. While printing, the root's data-theme is 'light', so every
// colour of theme.css is the light theme's. `before()` runs first, `after()`
// last. The returned object stands in for `theme` (shared/theme.js) where
// colours are drawn rather than styled: current() is 'light' while printing,
// and onChange listeners hear 'light' when a print starts and the theme on
// screen when it ends, so charts redraw in the printed colours and back.

/** CSS pixels per millimetre. */
export const PX_PER_MM = 96 / 25.4;

/** The width a printout's content may take, in mm: A4 and Letter inside print.css's 12 mm margins. */
export const PRINT_WIDTH_MM = 186;

export function watchPrint(theme, { before = () => {}, after = () => {}, root = document.documentElement } = {}) {
  const media = matchMedia('print');
  const listeners = new Set();
  let printing = false;
  const tell = (t) => listeners.forEach((fn) => fn(t));

  function start() {
    if (printing) return;
    printing = true;
    before();
    root.dataset.theme = 'light';
    tell('light');
  }
  function end() {
    if (!printing || media.matches) return;
    printing = false;
    root.dataset.theme = theme.current();
    after();
    tell(theme.current());
  }
  addEventListener('beforeprint', start);
  addEventListener('afterprint', end);
  media.addEventListener('change', () => (media.matches ? start() : end()));
  theme.onChange((t) => {
    if (printing) root.dataset.theme = 'light';
    else tell(t);
  });

  return {
    ...theme,
    current: () => (printing ? 'light' : theme.current()),
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    /** Whether a print is under way. */
    printing: () => printing,
  };
}
