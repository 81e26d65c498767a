// Light and dark: follows prefers-color-scheme until the reader picks one with
// the toggle; the pick is kept in localStorage (anything unreadable there means
// "no pick"). The colours themselves live in app.css; chart code reads them
// with palette() after every change.
import { ARCHS } from './archs.js';

const KEY = 'resnorm.theme.v1';
const THEMES = ['light', 'dark'];

function stored() {
  try {
    const v = localStorage.getItem(KEY);
    return THEMES.includes(v) ? v : null;
  } catch {
    return null; // storage blocked
  }
}

function store(theme) {
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    /* storage blocked: the choice lasts for this page view */
  }
}

export function createTheme(button) {
  const media = matchMedia('(prefers-color-scheme: dark)');
  let choice = stored();
  const listeners = new Set();
  const current = () => choice ?? (media.matches ? 'dark' : 'light');

  function apply() {
    const theme = current();
    document.documentElement.dataset.theme = theme;
    if (button) {
      button.setAttribute('aria-pressed', String(theme === 'dark'));
      button.title = choice
        ? `Dark theme (your choice; system is ${media.matches ? 'dark' : 'light'})`
        : 'Dark theme (following the system setting)';
    }
    listeners.forEach((fn) => fn(theme));
  }

  button?.addEventListener('click', () => {
    choice = current() === 'dark' ? 'light' : 'dark';
    store(choice);
    apply();
  });
  media.addEventListener('change', () => {
    if (!choice) apply();
  });
  apply();

  return {
    current,
    onChange(fn) {
      listeners.add(fn);
    },
  };
}

/** The chart colours of the current theme, from app.css's custom properties. */
export function palette() {
  const css = getComputedStyle(document.documentElement);
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
