// The height an iframe snippet gives its embed: where the host page strips the
// sizing script, the iframe keeps it for good, so it must hold the whole embed
// in the column it is pasted into. The author picks that column's width from
// COLUMN_WIDTHS in the Embed dialog; the height is the sum of the embed's
// parts at that width, each part's height measured in Chromium
// (heights-table.js, written by scripts/embed-heights.js). For the training
// lab that is its tallest state: every run finished, the claim's verdict, the
// lesion charts, the heatmaps. What a reader opens by hand (the numbers
// tables, "More settings") is not counted: the iframe scrolls for it.
// tests/browser/embed-heights.test.js measures the real embeds at every width
// against these heights. Pure: no DOM.
import { CONTROLS } from '../shared/state.js';
import { TRAIN_KEYS, TRAIN_SECTIONS } from '../shared/train-fields.js';
import { fieldApplies } from '../shared/fields.js';
import { CLAIM_BY_ID } from '../claims/lab/index.js';
import { ARCH_BY_KEY, archLabel, sortArchs } from '../shared/archs.js';
import { EXPLORER_PARTS, LAB_PARTS } from './heights-table.js';
import { TRAIN_EMBED_TABLE, claimsMode } from './train-view.js';

/** The column widths, in CSS px, the Embed dialogs offer, and the one they start with. */
export const COLUMN_WIDTHS = Object.freeze([360, 420, 640, 800, 1280]);
export const DEFAULT_WIDTH = 640;

/** What the dialogs call each width. */
export const WIDTH_NAMES = Object.freeze({
  360: 'a phone',
  420: 'a narrow column',
  640: 'a blog or course page',
  800: 'a wide column',
  1280: 'a full laptop screen',
});

/** Added to every height: the layout's fractions of a pixel round a little differently from load to load. */
const ROUNDING = 8;

/** The table's width for `width`: the nearest offered one not wider (the narrowest for less). */
const widthOf = (width) => [...COLUMN_WIDTHS].reverse().find((w) => w <= width) ?? COLUMN_WIDTHS[0];

// ---- the explorer

/** A part per architecture ({arch: px, all: the largest of any}) for `arch`. */
const ofArch = (part, arch) => part[arch] ?? part.all;

/** Lines of `chars` characters where a line holds `perLine`. */
const linesOf = (chars, perLine) => Math.max(1, Math.ceil(chars / perLine));

/**
 * The caption: its frame, its lead, a sentence per architecture, and the note on exact zeros where
 * a chart has them (ReZero's blocks add exactly nothing at initialization, and every block at gain
 * 0). With the caption's text (`shown`: {lead, archs}, from the page where it is drawn) the lead
 * and each sentence are their lines in the column; without it, each at its largest measured.
 */
function captionHeight(p, config, shown) {
  if (shown && !shown.lead) shown = null;
  const zeros = config.arch.includes('rezero') || config.gain === 0 ? p.captionNote : 0;
  const sentence = (a) =>
    shown?.archs[a] === undefined
      ? ofArch(p.captionArch, a)
      : p.itemFrame + p.line * linesOf(shown.archs[a].length, p.itemChars);
  const lead = shown ? p.leadFrame + p.line * linesOf(shown.lead.length, p.leadChars) : p.captionLead;
  return p.caption + lead + config.arch.reduce((h, a) => h + sentence(a), 0) + zeros;
}

/**
 * The explorer embed's height at `width` for a view ({charts, controls, caption}) and config
 * ({arch, gain}): its frame, the architectures' field (with "more" open when the config runs one of
 * those presets) and the other controls in the grid's rows, the readout's rows, the charts and the
 * caption. `shown`: the readout's notes and the caption's text where the page has them for this
 * config ({notes, lead, archs}); without them each row and sentence is at its largest measured.
 */
export function explorerHeight(view, config, width = DEFAULT_WIDTH, shown = null) {
  const p = EXPLORER_PARTS[widthOf(width)];
  // a field of presets the config does not run (Mix-LN's share) is hidden, and takes no room
  const others = view.controls.filter((k) => k !== 'arch' && fieldApplies(CONTROLS[k], config));
  const more = config.arch.some((a) => ARCH_BY_KEY[a]?.group !== 'article');
  // the controls' grid: the architectures' field across it, then rows of the others (each as tall
  // as its tallest control), a gap between
  const arch = view.controls.includes('arch');
  const rowHeights = [];
  for (let i = 0; i < others.length; i += p.controlCols)
    rowHeights.push(Math.max(...others.slice(i, i + p.controlCols).map((k) => ofArch(p.control, k))));
  const items = (arch ? 1 : 0) + rowHeights.length;
  const grid =
    (arch ? p.archField + (more ? p.archMore : 0) : 0) +
    rowHeights.reduce((a, b) => a + b, 0) +
    p.controlGap * Math.max(0, items - 1);
  const controls = view.controls.length ? p.form + grid : 0;
  // a readout row: its name, and a note under it where its curve coincides with another's; a note
  // names only an architecture above it (the readout's coinciding()), so the first row has none
  // (first both as given and in the engine's order, whichever the readout lists them in)
  const first = config.arch[0] === sortArchs(config.arch)[0] ? config.arch[0] : null;
  const row = (a) =>
    shown?.notes?.[a] === undefined
      ? a === first
        ? ofArch(p.readoutRow, a)
        : Math.max(ofArch(p.readoutRow, a), ofArch(p.readoutNote, a))
      : ofArch(shown.notes[a] ? p.readoutNote : p.readoutRow, a);
  const rows = config.arch.reduce((h, a) => h + row(a), 0);
  const caption = view.caption ? captionHeight(p, config, shown) : 0;
  return Math.ceil(p.frame + controls + rows + p.chart * view.charts.length + caption + ROUNDING);
}

// ---- the training lab

/** The runs an embed trains: the claim's, or one per architecture. */
function runsOf(config, claim) {
  const p = CLAIM_BY_ID[claim];
  return p
    ? p.runs.map((r) => ({ arch: r.arch, label: r.label }))
    : config.arch.map((a) => ({ arch: a, label: archLabel(a) }));
}

/**
 * The settings' height: each section shown (its legend, its rows of two fields, "More settings"
 * when it has some), the sections side by side in rows of `sectionCols`, the form's frame.
 */
function settingsHeight(p, shown, config) {
  const settings = TRAIN_KEYS.filter((k) => shown.includes(k));
  if (!settings.length) return 0;
  const heights = [];
  for (const section of TRAIN_SECTIONS) {
    const fields = settings.filter((k) => (TRAIN_EMBED_TABLE[k].section ?? 'more') === section);
    if (!fields.length) continue;
    if (section === 'arch') {
      // its "more" open when the config runs one of the presets behind it
      const more = config.arch.some((a) => ARCH_BY_KEY[a]?.group !== 'article');
      heights.push(p.archSection + (more ? p.archMore : 0));
      continue;
    }
    // a field of presets the config does not run (Mix-LN's share) is hidden, and takes no room
    const main = fields.filter(
      (k) => (!TRAIN_EMBED_TABLE[k].more || section === 'more') && fieldApplies(TRAIN_EMBED_TABLE[k], config),
    );
    const more = fields.some((k) => TRAIN_EMBED_TABLE[k].more && section !== 'more');
    heights.push(p.section + p.row * Math.ceil(main.length / 2) + (more ? p.more : 0));
  }
  let total = p.form;
  for (let i = 0; i < heights.length; i += p.sectionCols) total += Math.max(...heights.slice(i, i + p.sectionCols));
  return total;
}

// The comparison's line (claims/lab/common.js's comparisonCaption) in characters: its lead, and each
// run's clause besides the label at its longest but one (" learned part of the task (1.23, not
// below halfway); and"; a loss far above chance says more).
const COMPARISON_LEAD = 64;
const COMPARISON_RUN = 53;

/** The comparison's line under the charts (no claim), in lines of the column. */
function comparisonHeight(p, runs) {
  const chars = COMPARISON_LEAD + runs.reduce((n, r) => n + r.label.length + COMPARISON_RUN, 0);
  return p.comparisonFrame + p.line * Math.ceil(chars / p.lineChars);
}

/**
 * What the reader's own runs add: a readout row, a sentence and two heatmaps each, the comparison's
 * line, learned weights and gates, and the line charts only some runs have: the largest attention
 * logit (transformer blocks) and the composite gain of the stream mixing (Hyper-Connections, mHC).
 */
function ownRunsHeight(p, config, runs) {
  const n = runs.length;
  const dense = runs.filter((r) => r.arch === 'dwa').length;
  const gated = runs.filter((r) => r.arch === 'rezero' || r.arch === 'layerscale').length;
  // the gates' table: a row per unit (a transformer block has two)
  const units = config.depth * (config.block === 'transformer' ? 2 : 1);
  const gates = gated ? p.gates + p.gateLine * gated + p.gateRow * units : 0;
  const learned = dense || gated ? p.learned + p.dwa * dense + gates : 0;
  const logit = config.block === 'transformer' ? p.logitChart : 0;
  const gain = runs.some((r) => r.arch === 'hyper' || r.arch === 'mhc') ? p.gainChart : 0;
  return (
    logit +
    gain +
    runs.reduce((h, r) => h + ofArch(p.readoutRow, r.arch), 0) +
    comparisonHeight(p, runs) +
    p.afterRun * n +
    learned +
    2 * p.heatRow * Math.ceil(n / p.heatCols)
  );
}

/**
 * The lab embed's height at `width`, in its tallest state (every run finished), for a config, a
 * view ({controls, lock}) and a claim ('none' for none): its frame, the settings, the
 * claims' buttons and what the runs add: a claim's runs as measured whole (their readout rows,
 * verdict, sentences, learned gates and heatmaps), the reader's own run by run.
 */
export function labHeight(view, config, claim = 'none', width = DEFAULT_WIDTH) {
  const p = LAB_PARTS[widthOf(width)];
  const known = CLAIM_BY_ID[claim];
  const mode = claimsMode(view);
  const buttons = mode === 'live' ? p.claimsLive : mode === 'fixed' && known ? p.claimsFixed : 0;
  const runs = known ? p.claimRuns[claim] : ownRunsHeight(p, config, runsOf(config));
  return Math.ceil(p.frame + settingsHeight(p, view.controls, config) + buttons + runs + ROUNDING);
}
