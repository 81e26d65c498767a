// Light and dark, and the chart colours of the theme on screen.
//
// createTheme(button, {root, choice, signal}): `root` carries data-theme (the
// page's <html>, or an embed's wrapper in its shadow root). `choice` is
// 'auto', 'light' or 'dark'; on the page it is the reader's pick with the
// toggle `button`, kept in localStorage (anything unreadable there means
// "auto"); an embed passes its author's choice and no button. 'auto' follows
// prefers-color-scheme. The colours live in theme.css as custom properties;
// palette(root) reads them as they resolve on `root`.
import { ARCHS } from './archs.js';

const KEY = 'resnorm.theme.v1';
const THEMES = ['light', 'dark'];

function stored() {
  try {
    const v = localStorage.getItem(KEY);
    return THEMES.includes(v) ? v : 'auto';
  } catch {
    return 'auto'; // storage blocked
  }
}

function store(theme) {
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    /* storage blocked: the choice lasts for this page view */
  }
}

export function createTheme(button, { root = document.documentElement, choice, signal } = {}) {
  const media = matchMedia('(prefers-color-scheme: dark)');
  const remember = choice === undefined; // the page: the reader's pick is kept
  if (remember) choice = stored();
  const listeners = new Set();
  const current = () => (THEMES.includes(choice) ? choice : media.matches ? 'dark' : 'light');

  function apply() {
    const theme = current();
    const changed = root.dataset.theme !== theme;
    root.dataset.theme = theme;
    if (button) {
      button.setAttribute('aria-pressed', String(theme === 'dark'));
      button.title =
        choice !== 'auto'
          ? `Dark theme (your choice; system is ${media.matches ? 'dark' : 'light'})`
          : 'Dark theme (following the system setting)';
    }
    if (changed) listeners.forEach((fn) => fn(theme));
  }

  button?.addEventListener(
    'click',
    () => {
      choice = current() === 'dark' ? 'light' : 'dark';
      if (remember) store(choice);
      apply();
    },
    { signal },
  );
  media.addEventListener(
    'change',
    () => {
      if (choice === 'auto') apply();
    },
    { signal },
  );
  apply();

  return {
    current,
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    /** A new choice ('auto', 'light', 'dark'), e.g. from an embed's attribute. */
    set(next) {
      choice = next;
      apply();
    },
  };
}

/** One of the theme's custom properties (e.g. '--curve-0') as it resolves on `root`. */
export const themeColor = (name, root = document.documentElement) =>
  getComputedStyle(root).getPropertyValue(name).trim();

/** The chart colours as the theme's custom properties resolve on `root`. */
export function palette(root = document.documentElement) {
  const css = getComputedStyle(root);
  const v = (name) => css.getPropertyValue(name).trim();
  return {
    arch: Object.fromEntries(ARCHS.map((a) => [a.key, v(`--arch-${a.key}`)])),
    text: v('--text'),
    muted: v('--muted'),
    grid: v('--grid'),
    axis: v('--axis'),
    lane: v('--lane'),
    laneText: v('--lane-text'),
    reference: v('--reference'),
    surface: v('--surface'),
  };
}

/**
 * `read()` (colours read from the theme's custom properties: palette, heatColours) kept while
 * `theme.current()` (createTheme's, or shared/print.js's stand-in, 'light' while printing) names
 * the same theme. Each read of a custom property after a change of the page makes the browser
 * work out its styles first: a view that draws every frame reads them once per theme.
 */
export function byTheme(theme, read) {
  let shown = null;
  let value = null;
  return () => {
    const now = theme.current();
    if (now !== shown) {
      shown = now;
      value = read();
    }
    return value;
  };
}

/** The heat maps' colours as the theme resolves them on `root` (the lab's maps and legends, DenseFormer's matrix). */
export const heatColours = (root = document.documentElement) => ({
  text: themeColor('--text', root),
  muted: themeColor('--muted', root),
  grid: themeColor('--grid', root),
  surface: themeColor('--surface', root),
  pending: themeColor('--surface-2', root),
  hatch: themeColor('--danger', root),
  cursor: themeColor('--text', root),
});
