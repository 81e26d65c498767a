// The custom elements, built as dist/resnorm-embed.js (a stable URL):
//
//   <script type="module" src="https://example.org/resnorm/resnorm-embed.js"></script>
//   <resnorm-explorer arch="pre_ln,post_ln" depth="48" charts="grad"></resnorm-explorer>
//   <resnorm-quiz items="tf-01,why-03"></resnorm-quiz>
//   <resnorm-train task="copy" depth="4" controls="lr,warmup" lock="lr"></resnorm-train>
//
// Attributes are the link's fields (state.js), read through the same table:
// every config field of the engine (arch, depth, gain, ..., final-norm or
// final_norm, seed, block, heads, causal), and charts, controls, lock, theme,
// caption for the explorer; items, section, tag, theme for the quiz; for the
// lab every training field (train-fields.js), the claim (`preset`), and controls, lock, theme
// (embed/train.js). A value
// that does not fit shows a notice inside the element and its default is used.
// Text inside an element (the snippets' "if this text stays" message, snippets.js)
// shows only while the element is not defined: when its script cannot load, it
// says what the host page must allow; once defined, the shadow root (no slot)
// hides it. Everything renders in an open shadow root; all elements on a page share one
// engine worker. Each element fires `resnorm-render` (detail: the snapshot)
// after every paint; `element.snapshot` holds the last one; and the embed's
// events (events.js) as `resnorm-answer`, `resnorm-score`, ... on the element.
import { keysOf, parseEntries } from '../shared/state.js';
import { createTheme } from '../shared/theme.js';
import { mountExplorerEmbed } from './mount.js';
import { mountQuizEmbed } from './quiz.js';
import { mountTrainEmbed } from './train.js';
import { TRAIN_EMBED_TABLE, trainEmbedEntries } from './train-view.js';
import { shadowWrapper } from './styles.js';
import { eventSink } from './events.js';

/** The site's root: this file is dist/resnorm-embed.js in the build, web/src/embed/element.js in dev. */
export const SITE_URL = new URL(import.meta.env.DEV ? '../../' : './', import.meta.url);

// Attributes any element may carry that are not settings.
const GLOBAL =
  /^(id|class|style|hidden|slot|title|lang|dir|tabindex|role|part|is|nonce|inert|autofocus|translate|draggable|spellcheck|contenteditable|enterkeyhint|inputmode|popover|(aria|data|on)-?.*)$/;
// final-norm for final_norm: attribute names are usually spelled with hyphens.
const alias = (name) => name.replaceAll('-', '_');
const attributesOf = (group, table) =>
  keysOf(group, table).flatMap((k) => (k.includes('_') ? [k, k.replaceAll('_', '-')] : [k]));

/** The element's settings from its attributes, read by its class's `read` (parseEntries's signature). */
function readAttributes(el) {
  const { groups, table, read } = el.constructor;
  const entries = [...el.attributes].filter((a) => !GLOBAL.test(a.name)).map((a) => [a.name, a.value]);
  return read(entries, { groups, alias, table });
}

class ResnormElement extends HTMLElement {
  static groups = [];
  static table = undefined; // state.js's FIELDS_TABLE unless another view's
  static lab = false;
  static read = parseEntries;
  /** The arguments of the mounted view's setConfig for a new state of the attributes. */
  static configArgs = (state) => [state.config];
  #mounted = null;
  #ac = null;
  #queued = false;
  #view = '';
  snapshot = null;

  connectedCallback() {
    this.#mount();
  }

  disconnectedCallback() {
    this.#unmount();
  }

  attributeChangedCallback() {
    if (!this.#mounted || this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (!this.isConnected || !this.#mounted) return;
      const state = readAttributes(this);
      if (this.#viewKey(state) !== this.#view || !this.#mounted.setConfig) this.#mount();
      else this.#mounted.setConfig(...this.constructor.configArgs(state));
    });
  }

  #viewKey(state) {
    return JSON.stringify([state.view, state.quiz, state.notices]);
  }

  #unmount() {
    this.#mounted?.destroy();
    this.#ac?.abort();
    this.#mounted = null;
  }

  #mount() {
    this.#unmount();
    const state = readAttributes(this);
    this.#view = this.#viewKey(state);
    const wrapper = shadowWrapper(this, { lab: this.constructor.lab });
    this.#ac = new AbortController();
    const theme = createTheme(null, { root: wrapper, choice: state.view.theme, signal: this.#ac.signal });
    const onPaint = (snap) => {
      this.snapshot = snap;
      this.dispatchEvent(new CustomEvent('resnorm-render', { detail: snap, bubbles: true, composed: true }));
    };
    this.#mounted = this.constructor.mount(wrapper, {
      state,
      siteUrl: SITE_URL,
      theme,
      onPaint,
      onEvent: eventSink(this.constructor.kind, { element: this }),
      noticeSource: 'element\u2019s attributes',
    });
  }
}

export class ResnormExplorer extends ResnormElement {
  static groups = ['config', 'view'];
  static observedAttributes = [...attributesOf('config'), ...attributesOf('view')];
  static mount = mountExplorerEmbed;
  static kind = 'explorer';
}

export class ResnormQuiz extends ResnormElement {
  static groups = ['quiz', 'view'];
  static observedAttributes = [...attributesOf('quiz'), 'theme'];
  static mount = mountQuizEmbed;
  static kind = 'quiz';
}

export class ResnormTrain extends ResnormElement {
  static groups = ['train', 'lab', 'view'];
  static table = TRAIN_EMBED_TABLE;
  static lab = true;
  static read = trainEmbedEntries;
  static configArgs = (state) => [state.train, state.lab.preset];
  static observedAttributes = ['train', 'lab', 'view'].flatMap((g) => attributesOf(g, TRAIN_EMBED_TABLE));
  static mount = mountTrainEmbed;
  static kind = 'train';
}

export function defineElements() {
  if (!customElements.get('resnorm-explorer')) customElements.define('resnorm-explorer', ResnormExplorer);
  if (!customElements.get('resnorm-quiz')) customElements.define('resnorm-quiz', ResnormQuiz);
  if (!customElements.get('resnorm-train')) customElements.define('resnorm-train', ResnormTrain);
}

defineElements();
