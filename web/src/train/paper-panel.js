// The lab's claims (claims/lab/): a row of buttons that sets the
// settings and the runs of one paper's comparison, and a panel under the line
// charts with the paper's claim, the setting, and the verdict computed from
// the runs on screen (the claim's judge()), claimed beside measured, how
// many of its parts hold and which do not, with a caption written from the
// numbers. On several seeds each seed is judged by the claim's judge and
// the seeds counted ("holds on 3 of 5 seeds", seedsVerdict), with each part's
// count and a caption of each run's spread over the seeds. Changing the architectures leaves the claim (its runs are defined
// by it); any other setting keeps it, and the panel says which settings
// differ from the paper's. An embed may fix the buttons (mode 'fixed': only
// the chosen claim's, pressed and disabled, marked "fixed") or hide them.
// The lab page (`chooseSetting`) also offers each claim at its two settings (claims/lab/setting.js):
// Quick, the module's own, or Deep, the paper's depth; the control says what the deep one changes
// (deepChange), or why a claim has none, and the verdict and caption name the depths of the runs
// they were computed from. An embed keeps the quick setting.
//
//   const p = createPaperClaims({ bar, panel, store, defaults, initial, initialSetting, chooseSetting, mode, apply });
//   p.specs()      // the claim's run specs (at its setting) for session.js, or null
//   p.id(); p.setting(); p.choose(id, setting); p.onChange(fn)
//   p.update({ runs, state, config })   // returns the verdict shown (or null)
import { el, replace } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { TRAIN_TABLE } from '../shared/train-fields.js';
import {
  CLAIMS,
  CLAIM_BY_ID,
  claimAt,
  claimConfig,
  claimVerdict,
  deepChange,
  depthsText,
  hasDeep,
  quickIsDeepText,
  seedsText,
  seedsVerdict,
} from '../claims/lab/index.js';

const NONE = 'none';

/**
 * The verdict's table: each part of the claim, what was measured (the claim's `measured` names it
 * in the head, the held-out loss when the claim has none; '' when each part's text names its own),
 * and whether it holds here.
 */
function checksTable(checks, measured = 'held-out loss') {
  const cells = (tag, texts) => texts.map((t) => el(tag, tag === 'th' ? { scope: 'col' } : {}, t));
  const head = el('tr', {}, cells('th', ['claimed', measured ? `measured (${measured})` : 'measured', 'here']));
  const rows = checks.map((c) =>
    el(
      'tr',
      { 'data-holds': String(c.holds) },
      cells('td', [c.claimed, c.measured, c.holds ? 'holds' : 'does not hold']),
    ),
  );
  return el('table', { class: 'paper-checks' }, el('thead', {}, head), el('tbody', {}, rows));
}

/** The verdict's table over seeds: each part of the claim, on how many seeds it holds, and on which not. */
function seedChecksTable(v) {
  const cells = (tag, texts) => texts.map((t) => el(tag, tag === 'th' ? { scope: 'col' } : {}, t));
  const head = el('tr', {}, cells('th', ['claimed', 'holds on', 'not on']));
  const rows = v.checks.map((c) =>
    el(
      'tr',
      { 'data-holds': String(c.held === c.n), 'data-held': String(c.held) },
      cells('td', [
        c.claimed,
        `${c.held} of ${c.n} seeds`,
        c.failing.length ? `seed${c.failing.length > 1 ? 's' : ''} ${seedsText(c.failing)}` : '\u2014',
      ]),
    ),
  );
  return el('table', { class: 'paper-checks paper-checks-seeds' }, el('thead', {}, head), el('tbody', {}, rows));
}

/**
 * The verdict of `claim` (a claim module at its setting, claimAt's) on the session's runs (the
 * first seed's of each key, each with every seed's in `seeds`): one seed's (claimVerdict, `seeds`
 * 1) or the seeds counted (seedsVerdict).
 */
export function runsVerdict(claim, runs) {
  const n = runs[0]?.seeds?.length ?? 1;
  if (n <= 1) return claimVerdict(claim, Object.fromEntries(runs.map((r) => [r.key, r])));
  const bySeed = Array.from({ length: n }, (_, j) => ({
    seed: runs[0].seeds[j].seed,
    runs: Object.fromEntries(runs.map((r) => [r.key, r.seeds[j]])),
  }));
  const v = seedsVerdict(claim, bySeed);
  return v && { ...v, bySeed: true };
}

/** The setting's names in the control and in the verdict. */
const SETTING_WORDS = { quick: 'Quick (first look)', deep: 'Deep (the paper\u2019s depth)' };

/** Where a verdict was computed, from the depths of its runs' own configs: 'the deep setting (6 and 48 blocks)'. */
const computedAt = (setting, runs) => `the ${setting} setting (${depthsText(runs.map((r) => r.config))} blocks)`;

/**
 * The choice of a claim's setting: a radio group Quick / Deep, with what Deep changes (or why the
 * claim has none). {el, show(claim, setting)}; onPick(setting) when the reader picks one.
 */
function createSettingChoice(defaults, onPick) {
  const radios = Object.fromEntries(
    Object.keys(SETTING_WORDS).map((value) => [
      value,
      el('input', { type: 'radio', name: 'train-claim-setting', value, id: `train-setting-${value}` }),
    ]),
  );
  const change = el('p', { class: 'hint claim-setting-change', id: 'train-setting-change' });
  const group = el(
    'fieldset',
    { class: 'claim-setting', id: 'train-setting', 'aria-describedby': 'train-setting-change' },
    el('legend', { class: 'field-title' }, 'Setting'),
    el(
      'div',
      { class: 'claim-setting-choices' },
      Object.entries(SETTING_WORDS).map(([value, words]) =>
        el('label', { class: 'claim-setting-choice', for: `train-setting-${value}` }, radios[value], ' ', words),
      ),
    ),
  );
  const box = el('div', { class: 'field claim-setting-box', hidden: true }, group, change);
  for (const r of Object.values(radios)) r.addEventListener('change', () => r.checked && onPick(r.value));
  return {
    el: box,
    show(claim, setting) {
      box.hidden = !claim;
      if (!claim) return;
      const deep = hasDeep(claim);
      group.hidden = !deep;
      box.dataset.setting = setting;
      for (const [value, r] of Object.entries(radios)) r.checked = value === setting;
      change.textContent = deep
        ? `Deep: ${deepChange(claim, defaults)}, with the quick setting\u2019s recipe; each run takes longer.`
        : quickIsDeepText(claim, defaults);
    },
  };
}

/** The fields whose value differs from the claim's settings (arch aside, and seeds where the settings have none: an embed's). */
function differences(claim, config, defaults) {
  const want = claimConfig(claim, defaults);
  return Object.keys(want).filter((k) => k !== 'arch' && k in config && String(want[k]) !== String(config[k]));
}

/** The verdict's line saying where it was computed (where the reader chooses the setting: `setting`). */
const atLine = (shown, setting) =>
  setting
    ? el('p', { class: 'verdict-at', id: 'train-paper-at', 'data-setting': shown.setting }, `Computed at ${shown.at}.`)
    : null;

/**
 * The claim's panel in `panel`: its title, claim, setting, how the settings differ, the verdict and
 * the caption; returns write(p, {diff, pendingText, shown, setting}), which writes them for claim
 * `p` (`setting`: the setting chosen, named where the reader chooses it, else null).
 */
function createPanelWriter(panel) {
  const title = el('h3', { class: 'paper-title' });
  const claim = el('p', { class: 'paper-claim' });
  const settingText = el('p', { class: 'paper-setting' });
  const differ = el('p', { class: 'hint paper-differ', hidden: true });
  const result = el('div', { class: 'verdict paper-verdict', 'data-verdict': 'pending', role: 'status' });
  const caption = el('p', { class: 'caption paper-caption', id: 'train-paper-caption' });
  panel.append(title, claim, settingText, differ, result, caption);
  return function write(p, { diff, pendingText, shown, setting }) {
    title.textContent = `${p.title}: ${p.paper}`;
    replace(claim, el('strong', {}, 'Claim: '), p.claim);
    replace(
      settingText,
      el('strong', {}, setting ? `Setting (${setting}): ` : 'Setting: '),
      `${p.setting}. Runs: ${p.runs.map((r) => r.label).join('; ')}.`,
    );
    differ.hidden = !diff.length;
    differ.textContent = diff.length
      ? `These settings differ from the claim's (${diff.map((k) => TRAIN_TABLE[k]?.label ?? k).join(', ')}): the verdict is of the runs on screen.`
      : '';
    if (!shown) {
      result.dataset.verdict = 'pending';
      result.textContent = pendingText;
      caption.textContent = '';
      return;
    }
    result.dataset.verdict = shown.holds ? 'holds' : 'fails';
    if (shown.bySeed) {
      result.dataset.held = String(shown.held);
      replace(
        result,
        el('p', {}, el('span', { class: 'verdict-badge' }, shown.badge), ' ', p.claim),
        el('p', { class: 'verdict-parts', id: 'train-paper-parts' }, shown.summary),
        atLine(shown, setting),
        scrollRegion(el('div', { class: 'readout-scroll' }, seedChecksTable(shown)), 'The claim\u2019s checks'),
      );
      caption.textContent = shown.caption;
      return;
    }
    delete result.dataset.held;
    replace(
      result,
      el('p', {}, el('span', { class: 'verdict-badge' }, shown.holds ? 'holds' : 'does not hold here'), ' ', p.claim),
      // which parts hold: a claim of several parts that fails in one is not wrong in all
      el('p', { class: 'verdict-parts', id: 'train-paper-parts' }, shown.summary),
      atLine(shown, setting),
      scrollRegion(
        el('div', { class: 'readout-scroll' }, checksTable(shown.checks, p.measured)),
        'The claim\u2019s checks',
      ),
    );
    caption.textContent = shown.caption;
  };
}

/**
 * bar, panel: the elements to fill. store: the lab's config store. defaults:
 * the lab's default config. initial, initialSetting: the claim of the link and its setting.
 * chooseSetting: whether the reader may choose the setting (the lab page; an embed keeps quick).
 * mode: the buttons 'live', 'fixed' or 'hidden'. apply(config, id, setting): the view's way to
 * reset the run and take new settings.
 */
export function createPaperClaims({
  bar,
  panel,
  store,
  defaults,
  initial = NONE,
  initialSetting = 'quick',
  chooseSetting = false,
  mode = 'live',
  apply,
}) {
  let id = CLAIM_BY_ID[initial] ? initial : NONE;
  /** The setting of the claim: quick unless the claim has a deep one and it is chosen. */
  const settingFor = (claimId, s) =>
    chooseSetting && s === 'deep' && hasDeep(CLAIM_BY_ID[claimId]) ? 'deep' : 'quick';
  let setting = settingFor(id, initialSetting);
  /** The claim chosen at its setting (claimAt), or null. */
  const current = () => (id === NONE ? null : claimAt(CLAIM_BY_ID[id], setting));
  const live = mode === 'live';
  const listeners = new Set();
  const buttons = CLAIMS.map((p) =>
    el(
      'button',
      {
        type: 'button',
        class: 'preset',
        'data-preset': p.id,
        'aria-pressed': 'false',
        title: p.paper,
        disabled: !live,
      },
      `${p.title} (${p.cite})`,
    ),
  );
  bar.append(
    el(
      'h3',
      { class: 'field-title', id: 'train-presets-title' },
      live ? 'Paper claims' : ['Paper claim ', el('span', { class: 'fixed' }, 'fixed')],
    ),
    el('div', { class: 'presets', role: 'group', 'aria-labelledby': 'train-presets-title' }, buttons),
  );
  // a claim's button opens it at the quick setting, the default
  for (const b of buttons)
    b.addEventListener('click', () => {
      if (!live) return;
      const p = CLAIM_BY_ID[b.dataset.preset];
      apply(claimConfig(p, defaults), p.id, 'quick');
    });
  const choice = chooseSetting
    ? createSettingChoice(defaults, (s) => {
        const p = CLAIM_BY_ID[id];
        if (p) apply(claimConfig(claimAt(p, s), defaults), id, s);
      })
    : null;
  if (choice) bar.append(choice.el);

  const write = createPanelWriter(panel);

  function changed() {
    for (const b of buttons) {
      b.setAttribute('aria-pressed', String(b.dataset.preset === id));
      // fixed: the chosen claim's button only, to say which it is
      if (!live) b.hidden = b.dataset.preset !== id;
    }
    bar.hidden = mode === 'hidden' || (!live && id === NONE);
    panel.hidden = id === NONE;
    choice?.show(CLAIM_BY_ID[id] ?? null, setting);
    listeners.forEach((fn) => fn(id, setting));
  }
  changed();

  // A new choice of architectures is not the claim's comparison any more.
  store.subscribe((config) => {
    if (id === NONE) return;
    const archs = claimConfig(current(), defaults).arch;
    if ([...archs].sort().join() !== [...config.arch].sort().join()) choose(NONE);
  });

  function choose(next, nextSetting = 'quick') {
    const n = CLAIM_BY_ID[next] ? next : NONE;
    const s = settingFor(n, nextSetting);
    if (n === id && s === setting) return;
    id = n;
    setting = s;
    changed();
  }

  let shown = null; // the verdict on screen, and what it was computed from
  let shownFrom = null;
  let written = null; // {key, shown}: what the panel was last written for
  return {
    id: () => id,
    /** The claim's setting: 'quick' or 'deep' ('quick' without a claim). */
    setting: () => setting,
    /** The claim and its setting in words ('Depth claim, deep setting'), '' without one. */
    about: () => (id === NONE ? '' : `${CLAIM_BY_ID[id].title} claim, ${setting} setting`),
    choose,
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    /** The run specs of the claim for session.js (null: one run per arch). */
    specs: () => current()?.runs ?? null,
    /** Writes the panel for the session's runs; the verdict once every run has finished. */
    update({ runs, state, config }) {
      if (id === NONE) return null;
      const p = current();
      const diff = config ? differences(p, config, defaults) : [];
      const mine = runs.length === p.runs.length && p.runs.every((s, i) => runs[i].key === s.key);
      const from = state === 'done' && mine ? runs : null;
      if (from !== shownFrom) {
        shownFrom = from;
        shown = from ? runsVerdict(p, runs) : null;
        if (shown)
          shown = {
            ...shown,
            setting,
            at: computedAt(setting, runs),
            // the deep setting's caption names it; the quick one's stays the claim's own (the CLI's)
            caption: setting === 'deep' ? `At ${computedAt(setting, runs)}: ${shown.caption}` : shown.caption,
          };
      }
      const pendingText =
        state === 'idle' || state === 'error'
          ? 'Start trains the runs; the verdict appears when every run has finished.'
          : 'The verdict appears when every run has finished.';
      // every frame calls this: the panel is written again only when what it shows changes
      const key = [id, setting, diff.join(), shown ? '' : pendingText];
      if (!written || written.shown !== shown || written.key.some((k, i) => k !== key[i])) {
        written = { key, shown };
        write(p, { diff, pendingText, shown, setting: chooseSetting && hasDeep(CLAIM_BY_ID[id]) ? setting : null });
      }
      return shown ? { id, ...shown } : null;
    },
  };
}
