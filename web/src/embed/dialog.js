// The Embed dialogs: the explorer's "Embed" button (createEmbedDialog), which writes the iframe
// and the custom-element snippets for the current settings, with choices for the charts, which
// controls learners see (and which are fixed) and the theme; the papers page's (createViewEmbedDialog),
// for the explorer view of a panel's setting; and the frame every Embed dialog shares
// (embedDialogShell): a modal <dialog> (focus stays inside, Escape closes), its heading, Close
// button, snippets with their copy buttons, and status line.
import { CHART_KEYS, CONTROLS, FIELDS, defaultView, sameConfig } from '../shared/state.js';
import { CHART_INFO } from '../explorer/chart-info.js';
import { el } from '../shared/dom.js';
import {
  elementSnippet,
  embedUrl,
  iframeSnippet,
  trainElementSnippet,
  trainEmbedUrl,
  trainIframeSnippet,
} from './snippets.js';
import { TRAIN_KEYS } from '../shared/train-fields.js';
import { CLAIM_BY_ID } from '../claims/lab/index.js';
import { TRAIN_CONTROLS, TRAIN_EMBED_TABLE, claimsMode } from './train-view.js';
import { COLUMN_WIDTHS, DEFAULT_WIDTH, WIDTH_NAMES } from './heights.js';

const MODES = [
  ['live', 'can change'],
  ['fixed', 'shown, fixed'],
  ['hidden', 'hidden'],
];

/** Copies `text` to the clipboard, else selects it in `area` and asks the browser to copy; true once copied. */
export async function copy(text, area) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    area.focus();
    area.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

/**
 * A modal dialog (class "embed-dialog", `className` added) appended to the page: a heading
 * `title` (id `${id}-title`), a Close button, the `hint` under them. Returns {dialog, form,
 * status, copyButtons, open(), snippets(prefix, ...extra)}: the caller appends its fields (the
 * snippets' nodes among them) and then `status` to `form`; copyButtons are the snippets' "Copy"
 * buttons; open() shows the dialog with an empty status.
 */
export function embedDialogShell({ id, title, hint, className = '' }) {
  const dialog = el('dialog', { class: `embed-dialog ${className}`.trim(), 'aria-labelledby': `${id}-title` });
  const form = el('form', { class: 'embed-form', method: 'dialog' });
  const status = el('p', { class: 'embed-status', role: 'status' });
  const copyButtons = [];
  const copyButton = (area, what) => {
    const b = el('button', { type: 'button', class: 'secondary' }, `Copy ${what}`);
    copyButtons.push(b);
    b.addEventListener('click', async () => {
      status.textContent = (await copy(area.value, area))
        ? `Copied the ${what}.`
        : 'Select the text and copy it with your keyboard.';
    });
    return b;
  };
  form.append(
    el(
      'div',
      { class: 'embed-head' },
      el('h2', { id: `${id}-title` }, title),
      el('button', { type: 'submit', class: 'secondary', value: 'close' }, 'Close'),
    ),
    el('p', { class: 'hint' }, hint),
  );
  dialog.append(form);
  document.body.append(dialog);
  const open = () => {
    status.textContent = '';
    dialog.showModal();
  };
  // The iframe and web component snippets (textareas `${prefix}-iframe`, `${prefix}-element`), their
  // labels and copy buttons, with `extra` beside the buttons: {iframeOut, elementOut, nodes}.
  const snippets = (prefix, ...extra) => {
    const [iframeLabel, iframeOut] = snippetArea(`${prefix}-iframe`, IFRAME_LABEL);
    const [elementLabel, elementOut] = snippetArea(`${prefix}-element`, ELEMENT_LABEL);
    const row = el(
      'div',
      { class: 'embed-row' },
      copyButton(iframeOut, 'iframe snippet'),
      copyButton(elementOut, 'web component snippet'),
      ...extra,
    );
    return { iframeOut, elementOut, nodes: [iframeLabel, iframeOut, elementLabel, elementOut, row] };
  };
  return { dialog, form, status, copyButtons, open, snippets };
}

/** A read-only textarea (id `id`) for a snippet, and its label: [label, textarea]. */
function snippetArea(id, label) {
  const area = el('textarea', { id, readonly: true, rows: 4, spellcheck: 'false' });
  return [el('label', { for: id, class: 'embed-label' }, label), area];
}

/** The theme select on a row, with a checkbox `box` and its `text` after it when given. */
export const themeRow = (theme, box = null, text = '') =>
  el(
    'div',
    { class: 'embed-row' },
    el('label', { for: theme.id }, 'Theme '),
    theme,
    box ? el('label', { class: 'embed-check' }, box, text) : null,
  );

/**
 * The width of the column the iframe goes into: its snippet's height holds the whole embed at that
 * width (heights.js). A row {node, select, read()} with the select (id `id`) and what it means.
 */
export function widthRow(id, what = 'the whole embed') {
  const select = el(
    'select',
    { id, 'aria-describedby': `${id}-hint` },
    ...COLUMN_WIDTHS.map((w) => new Option(`${w} px (${WIDTH_NAMES[w]})`, String(w))),
  );
  select.value = String(DEFAULT_WIDTH);
  const node = el(
    'div',
    { class: 'embed-width' },
    el('div', { class: 'embed-row' }, el('label', { for: id }, 'Column width '), select),
    el(
      'p',
      { class: 'hint', id: `${id}-hint` },
      `The iframe\u2019s height holds ${what} in a column this wide, for pages that remove the sizing script. A wider column leaves space under it; in a narrower one the iframe scrolls.`,
    ),
  );
  return { node, select, read: () => Number(select.value) };
}

/** The embed's theme: the reader's setting, light or dark. */
export const themeSelect = (id) =>
  el(
    'select',
    { id },
    ...['auto', 'light', 'dark'].map((t) => new Option(t === 'auto' ? 'the reader\u2019s setting' : t, t)),
  );

// The labels of the two snippets: where each works, and what a host on another origin needs.
const IFRAME_LABEL =
  'iframe: any page, Markdown, most LMS editors (the script sizes it; without it the iframe keeps its height)';
const ELEMENT_LABEL =
  'Web component: pages that may load scripts from this site. On another origin the site must send CORS headers (Access-Control-Allow-Origin) and the page\u2019s Content-Security-Policy must allow worker-src blob:; where it cannot, use the iframe.';

/**
 * The "Controls" fieldset: for each of `fields` (labels from `table`) a select of MODES, 'live'
 * for those of `live`, else 'hidden'. Returns {node, read()}, read() giving {controls, lock}.
 */
function modeFields(prefix, fields, table, live) {
  const selects = fields.map((f) => {
    const s = el('select', { id: `${prefix}-mode-${f}` }, ...MODES.map(([v, t]) => new Option(t, v)));
    s.value = live.includes(f) ? 'live' : 'hidden';
    s.dataset.field = f;
    return s;
  });
  const node = el(
    'fieldset',
    { class: 'embed-controls' },
    el('legend', {}, 'Controls'),
    el(
      'div',
      { class: 'embed-grid' },
      ...fields.flatMap((f, i) => [el('label', { for: selects[i].id }, table[f].label), selects[i]]),
    ),
  );
  const read = () => ({
    controls: selects.filter((s) => s.value !== 'hidden').map((s) => s.dataset.field),
    lock: selects.filter((s) => s.value === 'fixed').map((s) => s.dataset.field),
  });
  return { node, read };
}

/** Writes the snippets again on every change of the form, and on `button` opens the dialog with them; returns update. */
function wire({ form, status, button, open, update }) {
  form.addEventListener('input', () => {
    status.textContent = '';
    update();
  });
  button.addEventListener('click', () => {
    update();
    open();
  });
  return update;
}

/**
 * button: the "Embed" button; getConfig(): the config on screen; getShown(): the readout's and the
 * caption's texts on screen (the view's textShown()), which size the iframe when they are of that
 * config; siteUrl: the site's base URL.
 */
export function createEmbedDialog({ button, getConfig, getShown = () => null, siteUrl }) {
  const dflt = defaultView();
  const { dialog, form, status, copyButtons, open, snippets } = embedDialogShell({
    id: 'embed',
    title: 'Embed this view',
    hint: 'The embed starts with the settings on screen now. Paste a snippet into a lecture page, a blog, a Jupyter Book or an LMS page.',
  });
  const chartBoxes = CHART_KEYS.map((k) =>
    el('input', { type: 'checkbox', id: `embed-chart-${k}`, value: k, checked: true }),
  );
  const modes = modeFields('embed', FIELDS, CONTROLS, dflt.controls);
  const theme = themeSelect('embed-theme');
  const caption = el('input', { type: 'checkbox', id: 'embed-caption', checked: true });
  const width = widthRow('embed-width');
  const preview = el('a', { id: 'embed-preview', target: '_blank', rel: 'noopener' }, 'Preview the embed \u2197');
  const { iframeOut, elementOut, nodes: snippetNodes } = snippets('embed', preview);
  // An embed needs a chart: with none checked the dialog says so and offers no snippet (the link
  // format would otherwise fall back to all three charts without a word).
  const refusal = el(
    'p',
    { class: 'notice embed-refusal', role: 'alert', hidden: true },
    'Choose at least one chart: an embed with no chart cannot be written.',
  );
  form.append(
    el(
      'fieldset',
      { class: 'embed-charts' },
      el('legend', {}, 'Charts'),
      ...CHART_KEYS.map((k, i) => el('label', { class: 'embed-check' }, chartBoxes[i], ` ${CHART_INFO[k].title}`)),
    ),
    refusal,
    modes.node,
    themeRow(theme, caption, ' caption under the charts'),
    width.node,
    ...snippetNodes,
    status,
  );

  function viewOf() {
    const charts = CHART_KEYS.filter((k, i) => chartBoxes[i].checked);
    return {
      ...dflt,
      charts,
      ...modes.read(),
      theme: theme.value,
      caption: caption.checked,
    };
  }

  function update() {
    const config = getConfig();
    const view = viewOf();
    const none = view.charts.length === 0;
    refusal.hidden = !none;
    preview.hidden = none;
    for (const b of copyButtons) b.disabled = none;
    const texts = getShown();
    const shown = texts && sameConfig(texts.config, config) ? texts : null;
    iframeOut.value = none ? '' : iframeSnippet({ siteUrl, config, view, width: width.read(), shown });
    elementOut.value = none ? '' : elementSnippet({ siteUrl, config, view });
    if (none) preview.removeAttribute('href');
    else preview.href = embedUrl(siteUrl, config, view);
  }

  return { update: wire({ form, status, button, open, update }), dialog };
}

/**
 * The papers page's Embed dialog: one for the page, opened by each panel's button with the
 * explorer view that embeds it (papers/embed-views.js: {title, config, charts, exact, note}).
 * The note says whether the view is the panel's own figure or the nearest explorer view of its
 * setting; the author picks the theme and whether readers may move the depth.
 */
export function createViewEmbedDialog({ siteUrl }) {
  const { dialog, form, status, open, snippets } = embedDialogShell({
    id: 'view-embed',
    title: 'Embed this figure',
    hint: 'The explorer with this panel\u2019s setting, for a lecture page, a blog, a Jupyter Book or an LMS page.',
  });
  const heading = dialog.querySelector('h2');
  const note = el('p', { class: 'view-embed-note', id: 'view-embed-note' });
  const theme = themeSelect('view-embed-theme');
  const depth = el('input', { type: 'checkbox', id: 'view-embed-depth', checked: true });
  const width = widthRow('view-embed-width');
  const preview = el('a', { id: 'view-embed-preview', target: '_blank', rel: 'noopener' }, 'Preview the embed \u2197');
  const { iframeOut, elementOut, nodes } = snippets('view-embed', preview);
  form.append(note, themeRow(theme, depth, ' readers can change the depth'), width.node, ...nodes, status);
  let shown = null;

  function update() {
    const { config, charts } = shown;
    const view = { ...defaultView(), charts, controls: depth.checked ? ['depth'] : [], theme: theme.value };
    iframeOut.value = iframeSnippet({ siteUrl, config, view, width: width.read() });
    elementOut.value = elementSnippet({ siteUrl, config, view });
    preview.href = embedUrl(siteUrl, config, view);
  }

  form.addEventListener('input', () => {
    status.textContent = '';
    update();
  });
  return {
    dialog,
    /** Shows the dialog for one panel's view. */
    open(panel) {
      shown = panel;
      heading.textContent = `Embed: ${panel.title}`;
      note.textContent = panel.exact
        ? panel.note
        : `Not the panel\u2019s figure: the nearest explorer view of its setting. ${panel.note}`;
      note.dataset.exact = String(panel.exact);
      update();
      open();
    },
  };
}

/**
 * The training lab's Embed dialog: button, the lab's "Embed" button; getConfig(), the lab's
 * settings on screen; getClaim(), its claim ('none' for none); siteUrl, the site's base
 * URL. Each setting can be left to the reader, shown but fixed, or hidden (its value then holds as
 * on screen now); so can the claims' buttons, which are live only while every setting is
 * (a claim sets them all: claimsMode).
 */
export function createTrainEmbedDialog({ button, getConfig, getClaim = () => 'none', siteUrl }) {
  const { dialog, form, status, open, snippets } = embedDialogShell({
    id: 'train-embed',
    title: 'Embed this lab',
    hint: 'The embedded lab starts with the settings on screen now, and the claim if one is chosen; the reader presses Start. Paste a snippet into a lecture page, a blog, a Jupyter Book or an LMS page.',
  });
  const modes = modeFields('train-embed', TRAIN_KEYS, TRAIN_EMBED_TABLE, TRAIN_KEYS);
  // the claim on screen, and its buttons in the embed: they decide what every setting is
  const shownClaim = el('span', { id: 'train-embed-preset' });
  const claimMode = el(
    'select',
    { id: 'train-embed-mode-preset', 'aria-describedby': 'train-embed-preset train-embed-preset-note' },
    ...MODES.map(([v, t]) => new Option(t, v)),
  );
  const liveOption = [...claimMode.options].find((o) => o.value === 'live');
  const claimNote = el('p', { class: 'hint', id: 'train-embed-preset-note', hidden: true });
  const claimRow = el(
    'fieldset',
    { class: 'embed-presets' },
    el('legend', {}, 'Paper claim'),
    el('p', {}, shownClaim),
    el('div', { class: 'embed-row' }, el('label', { for: claimMode.id }, 'Its buttons in the embed '), claimMode),
    claimNote,
  );
  const theme = themeSelect('train-embed-theme');
  const width = widthRow('train-embed-width', 'the whole lab with every run finished');
  const preview = el('a', { id: 'train-embed-preview', target: '_blank', rel: 'noopener' }, 'Preview the embed \u2197');
  const { iframeOut, elementOut, nodes } = snippets('train-embed', preview);
  form.append(claimRow, modes.node, themeRow(theme), width.node, ...nodes, status);
  /** The settings' modes and the claims' buttons': {controls, lock} with `preset` in them. */
  const readModes = () => {
    const { controls, lock } = modes.read();
    return {
      controls: claimMode.value === 'hidden' ? controls : [...controls, 'preset'],
      lock: claimMode.value === 'fixed' ? [...lock, 'preset'] : lock,
    };
  };

  // the claims' buttons live only while every setting is: otherwise a claim would replace the fixed or hidden ones
  let lastClaim = null;
  function claimRules(claim) {
    // a lab with a claim embeds it fixed unless the author says otherwise (each time the claim changes)
    if (claim !== lastClaim) {
      lastClaim = claim;
      claimMode.value = claim === 'none' ? 'live' : 'fixed';
    }
    const { controls, lock } = modes.read();
    const canBeLive = claimsMode({ controls: [...controls, 'preset'], lock }) === 'live';
    liveOption.disabled = !canBeLive;
    // fixed shows the chosen claim; with none chosen there is nothing to show
    if (!canBeLive && claimMode.value === 'live') claimMode.value = claim === 'none' ? 'hidden' : 'fixed';
    claimNote.textContent = canBeLive
      ? ''
      : 'Readers can pick another claim only while they can change every setting (a claim sets them all), so the buttons are fixed or hidden.';
    claimNote.hidden = canBeLive;
  }

  function update() {
    const config = getConfig();
    const claim = getClaim();
    claimRules(claim);
    shownClaim.textContent =
      claim === 'none'
        ? 'None: the lab embeds the settings on screen.'
        : `${CLAIM_BY_ID[claim].title} (${CLAIM_BY_ID[claim].cite}): the embed has its runs and its verdict.`;
    // in the links' order: every setting, then the claims' buttons
    const { controls, lock } = readModes();
    const inOrder = (list) => TRAIN_CONTROLS.filter((k) => list.includes(k));
    const view = { controls: inOrder(controls), lock: inOrder(lock), theme: theme.value };
    iframeOut.value = trainIframeSnippet({ siteUrl, config, view, preset: claim, width: width.read() });
    elementOut.value = trainElementSnippet({ siteUrl, config, view, preset: claim });
    preview.href = trainEmbedUrl(siteUrl, config, view, claim);
  }

  return { update: wire({ form, status, button, open, update }), dialog };
}
