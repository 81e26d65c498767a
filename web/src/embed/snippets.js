// The snippets the Embed dialogs write: an iframe of embed.html (works in
// any page, Markdown and most LMS editors) and the custom element (for pages
// that may run the site's script), for the explorer, the quiz and the
// training lab. Pure functions: state in, text out.
import { FIELDS_TABLE, stateToHash, writeField } from '../shared/state.js';
import { CHART_INFO } from '../explorer/chart-info.js';
import { trainEmbedHash, trainEmbedTable } from './train-view.js';
import { DEFAULT_WIDTH, explorerHeight, labHeight } from './heights.js';

export const escapeAttr = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** The embed's fragment: the config and the view fields that differ from their defaults. */
export const embedHash = (config, view) => stateToHash({ config, view }, { groups: ['config', 'view'] });

export function embedUrl(siteUrl, config, view) {
  return new URL(`embed.html${embedHash(config, view)}`, siteUrl).href;
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

/** An iframe of `src` and the resnorm-iframe.js script that sizes it to the height the embed reports. */
export function frameSnippet({ siteUrl, src, title, height }) {
  const helper = new URL('resnorm-iframe.js', siteUrl).href;
  return (
    `<iframe src="${escapeAttr(src)}" data-resnorm title="${escapeAttr(title)}" width="100%" height="${height}" loading="lazy"></iframe>\n` +
    `<script src="${escapeAttr(helper)}" defer></script>`
  );
}

/**
 * The explorer's iframe, its height the whole embed's in a column `width` px wide (heights.js);
 * `shown`: the readout's and the caption's texts for this config where the page has them
 * ({notes, lead, archs}: the explorer view's textShown()).
 */
export function iframeSnippet({
  siteUrl,
  config,
  view,
  width = DEFAULT_WIDTH,
  shown = null,
  title = iframeTitle(view),
}) {
  const src = embedUrl(siteUrl, config, view);
  return frameSnippet({ siteUrl, src, title, height: explorerHeight(view, config, width, shown) });
}

/**
 * The attributes of a custom element: one per field of each [group, values] that differs from its
 * default, the fields of `table` (state.js's FIELDS_TABLE unless another view's).
 */
function attributes(groups, table = FIELDS_TABLE) {
  const attrs = [];
  for (const [group, values] of groups) {
    for (const [key, c] of Object.entries(table)) {
      if (c.group !== group || key === 'mode' || values[key] === undefined) continue;
      const v = writeField(key, values[key], table);
      if (v !== writeField(key, c.default, table)) attrs.push(`${key.replaceAll('_', '-')}="${escapeAttr(v)}"`);
    }
  }
  return attrs;
}

/** The element's script, the element and the fallback text inside it. */
function customElementSnippet(siteUrl, tag, attrs, what) {
  const script = new URL('resnorm-embed.js', siteUrl).href;
  return (
    `<script type="module" src="${escapeAttr(script)}"></script>\n` +
    `<${tag}${attrs.length ? ' ' + attrs.join(' ') : ''}>\n` +
    `  <p>${escapeAttr(fallbackText(siteUrl, what))}</p>\n` +
    `</${tag}>`
  );
}

/** <resnorm-explorer> with one attribute per field that differs from its default. */
export function elementSnippet({ siteUrl, config, view }) {
  const attrs = attributes([
    ['config', config],
    ['view', view],
  ]);
  return customElementSnippet(siteUrl, 'resnorm-explorer', attrs, 'explorer');
}

// ---- the quiz

/**
 * The quiz embed's fields for a choice of questions: `items` (ids), or `section` / `tag` (lists,
 * every question of the bank that has them), as state.js's quiz group; `theme` as the view's.
 * @typedef {{items?: string[], section?: string[], tag?: string[]}} QuizChoice
 */
const quizFields = ({ items = [], section = [], tag = [] }) => ({ items, section, tag });

/** The quiz embed's fragment: mode=quiz and the choice (and the theme) where not the default. */
export const quizHash = (choice, { theme = 'auto' } = {}) =>
  stateToHash({ view: { mode: 'quiz', theme }, quiz: quizFields(choice) }, { groups: ['view', 'quiz'] });

export function quizUrl(siteUrl, choice, view = {}) {
  return new URL(`embed.html${quizHash(choice, view)}`, siteUrl).href;
}

// The quiz embed's parts with a question's answer revealed, in px, measured in Chromium in a
// 420 px column (tests/browser/quiz-embed-builder.test.js measures questions again): the frame
// (progress, meta line, lead, result, grading, Next, the link under it), a line of the prompt and
// of the answer or explanation with the characters it holds, a display formula, and a margin.
const QUIZ_PARTS_420 = Object.freeze({
  frame: 440,
  prompt: { line: 28, chars: 36 },
  text: { line: 21, chars: 40 },
  displayMath: 24,
  margin: 24,
});

/** The text of a bank string (its math already MathML), as the reader sees it. */
const shownText = (s) =>
  String(s ?? '')
    .replace(/<[^>]*>/g, '')
    .replace(/&[a-z0-9#]+;/gi, 'x')
    .replace(/\s+/g, ' ')
    .trim();

/** The height of one question with its answer revealed, in a 420 px column. */
export function questionHeight(item) {
  const { frame, prompt, text, displayMath, margin } = QUIZ_PARTS_420;
  const lines = (s, chars) => Math.ceil(shownText(s).length / chars);
  const shown = `${item.solution ?? ''}${item.explanation ?? ''}`;
  const formulas = shown.split('display="block"').length - 1;
  const promptLines = Math.max(1, lines(item.prompt, prompt.chars));
  const textLines = lines(item.solution, text.chars) + lines(item.explanation, text.chars);
  return Math.round(frame + prompt.line * promptLines + text.line * textLines + displayMath * formulas + margin);
}

/**
 * The quiz iframe's height before the embed reports its own, and for good where the host strips
 * the script: the tallest of `items` (bank items) with its answer revealed, in a 420 px column.
 */
export const estimateQuizHeight = (items) => Math.max(...items.map(questionHeight));

/** The iframe of the quiz for a choice (QuizChoice) of `items` (the bank items it comes to). */
export function quizIframeSnippet({ siteUrl, choice, items, view = {}, title }) {
  const n = items.length;
  const src = quizUrl(siteUrl, choice, view);
  title ??= `resnorm quiz: ${n} question${n === 1 ? '' : 's'}`;
  return frameSnippet({ siteUrl, src, title, height: estimateQuizHeight(items) });
}

/** <resnorm-quiz> for a choice of questions: ids (`items`), or `section` / `tag`; `theme`. */
export function quizSnippet({ siteUrl, theme = 'auto', ...choice }) {
  const attrs = attributes([
    ['quiz', quizFields(choice)],
    ['view', { theme }],
  ]);
  return customElementSnippet(siteUrl, 'resnorm-quiz', attrs, 'quiz');
}

// ---- the training lab

/** embed.html with the lab: its settings (`config`, the train fields), view ({controls, lock, theme}) and claim. */
export const trainEmbedUrl = (siteUrl, config, view, claim = 'none') =>
  new URL(`embed.html${trainEmbedHash(config, view, claim)}`, siteUrl).href;

/** The lab's iframe, its height the lab's tallest (every run finished) in a column `width` px wide (heights.js). */
/** `preset`: the claim's id, named as the embed's attribute and link name it. */
export function trainIframeSnippet({
  siteUrl,
  config,
  view,
  preset = 'none',
  width = DEFAULT_WIDTH,
  title = 'resnorm training lab',
}) {
  return frameSnippet({
    siteUrl,
    src: trainEmbedUrl(siteUrl, config, view, preset),
    title,
    height: labHeight(view, config, preset, width),
  });
}

/**
 * <resnorm-train> with the claim and one attribute per training or view field that differs
 * from its default (the claim's settings when it names one).
 */
export function trainElementSnippet({ siteUrl, config, view, preset = 'none' }) {
  const attrs = attributes(
    [
      ['lab', { preset }],
      ['train', config],
      ['view', view],
    ],
    trainEmbedTable(preset),
  );
  return customElementSnippet(siteUrl, 'resnorm-train', attrs, 'training lab');
}
