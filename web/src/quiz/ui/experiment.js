// An item's live experiment: what to look at, a link to the explorer set to the item's setting (or to
// the norm panel, or to the training lab set to the item's training settings), a link to the lab's claim
// it names (claims/lab/), and, where the item
// names a check, the engine's verdict on its claim. A training claim (train_check) takes seconds to
// train, so it is not run here: the block says what the project's tests train and confirm.
// "Confirmed by the engine" is shown only for status 'confirmed'; a refuted claim is said to be
// refuted, and a check that could not run says so. Never the other way round.

import { checkItem } from '../checks.js';
import { toHtml } from '../text.js';
import { configToHash, defaultConfig } from '../../shared/state.js';
import { archNames } from '../../shared/archs.js';
import { el } from '../../shared/dom.js';
import { TRAIN_CHECKS, labHref, trainSettings } from '../train-checks.js';
import { TRAIN_TABLE, defaultTrainConfig } from '../../shared/train-fields.js';
import { CLAIM_BY_ID } from '../../claims/lab/index.js';

/** The explorer's URL for a setting: './#arch=...&depth=...' (defaults left out). */
export function explorerHref(setting) {
  const config = { ...defaultConfig(), ...setting, arch: [...setting.arch] };
  return `./${configToHash(config)}`;
}

/** The training lab opened at lab claim `id` (its link's parameter keeps the name preset=). */
export const claimHref = (id) => `./train.html#preset=${encodeURIComponent(id)}`;

/** "plain; Pre-LN · depth 48 · gain 1 · linear, orthogonal" for a setting. */
export function describeSetting(setting) {
  const parts = [archNames(setting.arch), `depth ${setting.depth}`, `gain ${setting.gain}`];
  const dflt = defaultConfig();
  for (const k of ['width', 'tokens', 'expansion', 'activation', 'init', 'final_norm', 'seed']) {
    if (k in setting && String(setting[k]) !== String(dflt[k])) parts.push(`${k.replace('_', ' ')} ${setting[k]}`);
  }
  return parts.join(' · ');
}

/** "Post-LN; Pre-LN · copy · depth 6 · width 16 · lr 0.01 · 200 steps" for training settings. */
export function describeTraining(train) {
  const s = trainSettings(train);
  const dflt = defaultTrainConfig();
  const name = (k) => TRAIN_TABLE[k].names?.[s[k]] ?? String(s[k]);
  const parts = [archNames(s.arch), name('task')];
  const always = ['depth', 'lr', 'warmup', 'steps'];
  for (const k of ['depth', 'width', 'optimizer', 'lr', 'warmup', 'steps', 'seed'])
    if (always.includes(k) || String(s[k]) !== String(dflt[k]))
      parts.push(k === 'optimizer' ? name(k) : `${k === 'lr' ? 'learning rate' : k} ${s[k]}`);
  return parts.join(' \u00b7 ');
}

/**
 * Runs checks against the engine, once per item (the engine is deterministic).
 * @param {{call: Function}} engine the engine client (../../engine/client.js)
 */
export function createChecker(engine) {
  const cache = new Map();
  const fns = {
    simulate: (cfg) => engine.call('simulate', [cfg]),
    normToken: (kind, x, gamma, beta) =>
      engine.call('normToken', [kind, Array.from(x), Array.from(gamma), Array.from(beta)]),
  };
  return (item) => {
    if (!cache.has(item.id)) {
      const p = checkItem(item, fns);
      cache.set(item.id, p);
      // A failure to run is not cached: the next showing may succeed.
      p.then((r) => {
        if (r.status === 'not-applicable' && /could not run/.test(r.measured)) cache.delete(item.id);
      });
    }
    return cache.get(item.id);
  };
}

const VERDICT = {
  pending: () => 'Checking this claim with the engine…',
  confirmed: (m) => `Confirmed by the engine: ${m}`,
  refuted: (m) => `Refuted: the engine's numbers do not show this claim. Measured: ${m}`,
  'not-applicable': (m) => `Not checked by the engine: ${m}`,
};

/**
 * The experiment block of an item.
 * @param {object} item a bank item (rendered with ?math)
 * @param {{check: (item) => Promise<{status, measured}>, onOpenPanel: (id) => void, onLeave: (id) => void}} deps
 * @returns {{node: HTMLElement, started: Promise|null}}
 */
export function experimentBlock(item, { check, onOpenPanel, onLeave }) {
  const exp = item.experiment;
  const titleId = `exp-title-${item.id}`;
  const node = el(
    'section',
    { class: 'experiment', 'aria-labelledby': titleId, dataset: { kind: exp.panel ? 'panel' : 'setting' } },
    el('h4', { id: titleId }, 'Live experiment'),
    el('div', { class: 'exp-look', html: toHtml(exp.look) }),
  );

  if (exp.setting) {
    node.append(
      el('p', { class: 'exp-setting' }, describeSetting(exp.setting)),
      el(
        'p',
        { class: 'exp-actions' },
        el(
          'a',
          {
            class: 'button-link',
            href: explorerHref(exp.setting),
            'data-action': 'explorer',
            onclick: () => onLeave(item.id),
          },
          'Open in the explorer',
        ),
      ),
    );
  } else if (exp.train) {
    node.append(
      el('p', { class: 'exp-setting exp-train' }, describeTraining(exp.train)),
      el(
        'p',
        { class: 'exp-actions' },
        el(
          'a',
          { class: 'button-link', href: labHref(exp.train), 'data-action': 'lab', onclick: () => onLeave(item.id) },
          'Open in the training lab',
        ),
      ),
    );
  } else if (exp.panel === 'norm') {
    node.append(
      el(
        'p',
        { class: 'exp-actions' },
        el(
          'a',
          { class: 'button-link', href: '#norm', 'data-action': 'norm', onclick: () => onOpenPanel(item.id) },
          'Open the norm panel',
        ),
      ),
    );
  }

  const claim = exp.claim && Object.hasOwn(CLAIM_BY_ID, exp.claim) ? CLAIM_BY_ID[exp.claim] : null;
  if (claim) {
    node.append(
      el(
        'p',
        { class: 'exp-actions exp-claim' },
        el(
          'a',
          { class: 'button-link', href: claimHref(claim.id), 'data-action': 'claim', onclick: () => onLeave(item.id) },
          `See it trained: ${claim.title}`,
        ),
        ` (the training lab\u2019s claim, after ${claim.cite})`,
      ),
    );
  }

  let started = null;
  const trainCheck =
    exp.train_check && Object.hasOwn(TRAIN_CHECKS, exp.train_check) ? TRAIN_CHECKS[exp.train_check] : null;
  if (trainCheck) {
    node.append(
      el(
        'p',
        { class: 'exp-check exp-train-check', dataset: { status: 'tested' } },
        `Checked by the project\u2019s tests, which train this setting with the engine: ${trainCheck.claim}`,
      ),
    );
  } else if (exp.check) {
    const verdict = el('p', { class: 'exp-check', dataset: { status: 'pending' } }, VERDICT.pending());
    node.append(verdict);
    started = check(item).then((r) => {
      const status =
        Object.prototype.hasOwnProperty.call(VERDICT, r.status) && r.status !== 'pending' ? r.status : 'not-applicable';
      verdict.dataset.status = status;
      verdict.textContent = VERDICT[status](r.measured);
      return r;
    });
  } else {
    node.append(el('p', { class: 'hint exp-nocheck' }, 'No automatic check for this one: look for yourself.'));
  }
  return { node, started };
}
