// Item text to HTML, safely, for the quiz UI and the exports. No DOM needed.
//
// Bank strings are Markdown-ish: paragraphs separated by blank lines, **bold**, `code`, and math as
// \( ... \) (inline) or \[ ... \] (display). The site imports the bank with the `?math` suffix, so
// by the time the UI sees a string every math span is already MathML (web/build/math-plugin.js).
// toHtml() takes such a rendered string: everything outside <math>...</math> is bank text and is
// HTML-escaped; a <math> span is kept verbatim only if it is well-formed MathML made of an
// allow-list of presentation elements and attributes (what Temml produces: no style, no href, no
// event handlers, no foreign content). A <math> span that fails the check is escaped as text, so
// text in the bank that merely looks like MathML can never inject markup.
//
// texToHtml() is the same formatting for raw bank text (TeX still in place), used by export.js:
// the TeX is kept as \( ... \) / \[ ... \] (HTML-escaped) for MathJax in Moodle and Anki.

/** Escapes the characters that matter in HTML element content. */
export function escapeHtml(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// Presentation MathML as produced by Temml, and nothing that can carry script or style.
const MATH_ELEMENTS = new Set([
  'math',
  'mrow',
  'mi',
  'mn',
  'mo',
  'ms',
  'mtext',
  'mspace',
  'msup',
  'msub',
  'msubsup',
  'munder',
  'mover',
  'munderover',
  'mfrac',
  'msqrt',
  'mroot',
  'mpadded',
  'mphantom',
  'mstyle',
  'menclose',
  'mtable',
  'mtr',
  'mtd',
  'mlabeledtr',
  'mmultiscripts',
  'mprescripts',
  'none',
  'merror',
  'semantics',
  'annotation',
]);
const MATH_ATTRIBUTES = new Set([
  'display',
  'class',
  'form',
  'stretchy',
  'fence',
  'separator',
  'lspace',
  'rspace',
  'width',
  'height',
  'depth',
  'voffset',
  'movablelimits',
  'symmetric',
  'minsize',
  'maxsize',
  'largeop',
  'accent',
  'accentunder',
  'mathvariant',
  'mathsize',
  'linethickness',
  'displaystyle',
  'scriptlevel',
  'columnalign',
  'rowalign',
  'columnspacing',
  'rowspacing',
  'columnlines',
  'rowlines',
  'frame',
  'framespacing',
  'equalrows',
  'equalcolumns',
  'notation',
  'encoding',
  'align',
  'side',
  'dir',
  'xmlns',
  'intent',
  'arg',
]);
const VOID_OK = new Set(['mspace', 'none', 'mprescripts']);
// A tag, or a run of text with only well-formed character references.
const TOKEN =
  /<(\/?)([a-z][a-z0-9-]*)((?:\s+[a-z][a-z0-9:-]*="[^"<>&]*")*)\s*(\/?)>|(?:[^<>&]|&(?:[a-z][a-z0-9]*|#[0-9]{1,7}|#x[0-9a-f]{1,6});)+/giy;

/**
 * Whether a string is one well-formed MathML element from the allow-list (the whole string, from
 * <math ...> to its </math>).
 * @param {string} span
 * @returns {boolean}
 */
export function isSafeMathml(span) {
  if (typeof span !== 'string' || !span.startsWith('<math')) return false;
  const stack = [];
  TOKEN.lastIndex = 0;
  let closedRoot = false;
  while (TOKEN.lastIndex < span.length) {
    const m = TOKEN.exec(span);
    if (!m || closedRoot) return false;
    if (m[2] === undefined) {
      if (stack.length === 0) return false; // text outside <math>
      continue;
    }
    const [, closing, rawName, attrs, selfClosing] = m;
    const name = rawName.toLowerCase();
    if (!MATH_ELEMENTS.has(name)) return false;
    if (stack.length === 0 && (name !== 'math' || closing)) return false;
    if (closing) {
      if (attrs || selfClosing || stack.pop() !== name) return false;
      if (stack.length === 0) closedRoot = true;
      continue;
    }
    for (const a of attrs.matchAll(/([a-z][a-z0-9:-]*)="/gi))
      if (!MATH_ATTRIBUTES.has(a[1].toLowerCase())) return false;
    if (selfClosing) {
      if (!VOID_OK.has(name)) return false;
    } else {
      stack.push(name);
    }
  }
  return closedRoot;
}

// Private-use characters mark protected spans while the rest is formatted; stripped from input.
const MARK_OPEN = '\uE000';
const MARK_CLOSE = '\uE001';
const MARK = /\uE000(\d+)\uE001/g;

// Escape + Markdown-ish formatting of text whose protected spans were replaced by markers.
function format(text, { paragraphs }) {
  const codes = [];
  let s = escapeHtml(text.replace(/\r\n?/g, '\n'));
  // `code` first, so nothing inside it is formatted; stored as markers after the math markers.
  s = s.replace(/`([^`\n]+)`/g, (_, code) => {
    codes.push(`<code>${code}</code>`);
    return `${MARK_OPEN}c${codes.length - 1}${MARK_CLOSE}`;
  });
  s = s.replace(/\*\*(?=\S)([^\n]*?\S)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/\uE000c(\d+)\uE001/g, (_, i) => codes[Number(i)]);
  const paras = s
    .split(/\n[ \t]*\n+/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (paragraphs) return paras.map((p) => `<p>${p.replace(/\n/g, '<br>')}</p>`).join('');
  return paras.map((p) => p.replace(/\n/g, '<br>')).join('<br><br>');
}

function formatWithSpans(text, pattern, keep, options) {
  const spans = [];
  const clean = String(text ?? '').replace(/[\uE000\uE001]/g, '');
  const marked = clean.replace(pattern, (span) => {
    const kept = keep(span);
    if (kept === null) return span;
    spans.push(kept);
    return `${MARK_OPEN}${spans.length - 1}${MARK_CLOSE}`;
  });
  return format(marked, options).replace(MARK, (_, i) => spans[Number(i)]);
}

const MATHML_SPAN = /<math\b[^>]*>[\s\S]*?<\/math>/gi;
const TEX_SPAN = /\\\([\s\S]*?\\\)|\\\[[\s\S]*?\\\]/g;

/**
 * A build-rendered bank string (math already MathML) as safe HTML.
 * @param {string} rendered
 * @param {{paragraphs?: boolean}} [options] paragraphs (default true): wrap paragraphs in <p>;
 *   false: join them with <br><br> (for inline places such as a button or a table cell)
 * @returns {string} HTML
 */
export function toHtml(rendered, { paragraphs = true } = {}) {
  return formatWithSpans(rendered, MATHML_SPAN, (span) => (isSafeMathml(span) ? span : null), { paragraphs });
}

/**
 * A raw bank string (TeX math) as HTML with the TeX kept as \( ... \) / \[ ... \], HTML-escaped,
 * untouched by the Markdown-ish formatting. For exports read by MathJax (Moodle, Anki).
 * @param {string} text
 * @param {{paragraphs?: boolean}} [options] as for toHtml
 * @returns {string} HTML
 */
export function texToHtml(text, { paragraphs = true } = {}) {
  return formatWithSpans(text, TEX_SPAN, (span) => escapeHtml(span), { paragraphs });
}
