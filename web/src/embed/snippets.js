// The snippets the "Embed" button writes: an iframe of embed.html (works in
// any page, Markdown and most LMS editors) and the custom element (for pages
// that may run the site's script). Pure functions: state in, text out.
import { FIELDS_TABLE, stateToHash, writeField } from '../shared/state.js';
import { CHART_INFO } from '../explorer/chart-info.js';

export const escapeAttr = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** The embed's fragment: the config and the view fields that differ from their defaults. */
export const embedHash = (config, view) => stateToHash({ config, view }, { groups: ['config', 'view'] });

export function embedUrl(siteUrl, config, view) {
  return new URL(`embed.html${embedHash(config, view)}`, siteUrl).href;
}

/**
 * Heights in px of the embed's parts, measured in Chromium with the embed in a 420 px column
 * (tests/browser/embed.test.js measures the whole again): the frame around the charts, the rows
 * each architecture adds to it (legend, table), each chart, the architecture control, each other
 * control, the caption's lead and each architecture's sentence in it (an average: the sentences
 * differ with the results), and a margin for fonts that run a little larger.
 */
const PART_HEIGHTS_420 = Object.freeze({
  frame: 140,
  frameArch: 54,
  chart: 250,
  archControl: 232,
  control: 78,
  caption: 190,
  captionArch: 100,
  margin: 32,
});

/**
 * The iframe's height before the embed reports its own, and for good where the host strips the
 * script: the embed's whole content in a 420 px column; wider columns wrap less and leave some
 * space below.
 * @param {{charts: string[], controls: string[], caption: boolean}} view
 * @param {{arch: string[]}} config
 */
export function estimateHeight(view, config) {
  const h = PART_HEIGHTS_420;
  const archs = config.arch.length;
  const others = view.controls.filter((k) => k !== 'arch').length;
  const controls = (view.controls.includes('arch') ? h.archControl : 0) + h.control * others;
  const caption = view.caption ? h.caption + h.captionArch * archs : 0;
  return Math.round(h.frame + h.frameArch * archs + h.chart * view.charts.length + controls + caption + h.margin);
}

/** The iframe's title, naming the charts it shows: "resnorm explorer: a, b and c". */
export function iframeTitle(view) {
  const names = view.charts.map((k) => CHART_INFO[k].title.replace(/^./, (c) => c.toLowerCase()));
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names.join('');
  return `resnorm explorer: ${list}`;
}

/**
 * What a custom element shows while its script has not defined it, and keeps showing when the
 * script cannot load (a page on another origin and a site without CORS headers): what the host
 * page must allow. Once the element is defined its shadow root hides this text.
 */
export function fallbackText(siteUrl, what = 'explorer') {
  const origin = new URL(siteUrl).origin;
  return (
    `Loading the resnorm ${what}\u2026 If this text stays, this page could not run resnorm-embed.js from ${origin}: ` +
    `on another origin the site must send CORS headers (Access-Control-Allow-Origin) and this page's ` +
    `Content-Security-Policy must allow script-src ${origin} and worker-src blob:. Or use the iframe snippet.`
  );
}

export function iframeSnippet({ siteUrl, config, view, title = iframeTitle(view) }) {
  const src = embedUrl(siteUrl, config, view);
  const helper = new URL('resnorm-iframe.js', siteUrl).href;
  return (
    `<iframe src="${escapeAttr(src)}" data-resnorm title="${escapeAttr(title)}" width="100%" height="${estimateHeight(view, config)}" loading="lazy"></iframe>\n` +
    `<script src="${escapeAttr(helper)}" defer></script>`
  );
}

/** <resnorm-explorer> with one attribute per field that differs from its default. */
export function elementSnippet({ siteUrl, config, view }) {
  const attrs = [];
  for (const [group, values] of [
    ['config', config],
    ['view', view],
  ]) {
    for (const [key, c] of Object.entries(FIELDS_TABLE)) {
      if (c.group !== group || key === 'mode' || values[key] === undefined) continue;
      const v = writeField(key, values[key]);
      if (v !== writeField(key, c.default)) attrs.push(`${key.replace('_', '-')}="${escapeAttr(v)}"`);
    }
  }
  const script = new URL('resnorm-embed.js', siteUrl).href;
  return (
    `<script type="module" src="${escapeAttr(script)}"></script>\n` +
    `<resnorm-explorer${attrs.length ? ' ' + attrs.join(' ') : ''}>\n` +
    `  <p>${escapeAttr(fallbackText(siteUrl))}</p>\n` +
    `</resnorm-explorer>`
  );
}

/** <resnorm-quiz> for a list of item ids. */
export function quizSnippet({ siteUrl, items }) {
  const script = new URL('resnorm-embed.js', siteUrl).href;
  return (
    `<script type="module" src="${escapeAttr(script)}"></script>\n` +
    `<resnorm-quiz items="${escapeAttr(items.join(','))}">\n` +
    `  <p>${escapeAttr(fallbackText(siteUrl, 'quiz'))}</p>\n` +
    `</resnorm-quiz>`
  );
}
