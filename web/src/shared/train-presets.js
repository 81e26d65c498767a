// The training lab's paper presets: published claims about training,
// each in the small setting that reproduces it natively (docs/reproductions.md,
// "Reproductions of training claims"; tests/core/test_reproductions.cpp).
// A preset (its button names it by `title` and `cite`) is the shared
// settings (`config`, over the lab's defaults) and its runs, each an
// architecture with its own overrides (depth, warmup) and a
// label; a run that only has to show it trains can stop once it has
// (stopWhenTrained: at its first logged step below halfway from chance to the
// optimum, as the C++ test stops it). shared/train-verdicts.js judges a preset's runs.
// Pure data, no DOM.
//
//   presetConfig(PRESET_BY_ID.warmup, defaults)  // the lab's config for it
//   PRESET_BY_ID.warmup.runs                     // session.js's run specs

import { sortArchs } from './archs.js';
import { REVERSE_TASK, TEACHER_TASK } from './train-tasks.js';

export const PRESETS = [
  {
    id: 'warmup',
    cite: 'Xiong et al. 2020',
    title: 'Warmup',
    paper: 'Xiong et al. 2020, On Layer Normalization in the Transformer Architecture',
    claim: 'At a large learning rate Post-LN needs a warmup of the learning rate to train; Pre-LN trains without one.',
    setting: 'reverse 4 of 8 symbols, 6 transformer blocks, Adam at 1.2\u00d710\u207b\u00b2, 300 steps',
    config: { ...REVERSE_TASK, depth: 6, lr: 1.2e-2, warmup: 0, steps: 300, log_every: 10 },
    runs: [
      { key: 'post_ln', arch: 'post_ln', label: 'Post-LN, no warmup' },
      { key: 'post_ln_warmup', arch: 'post_ln', label: 'Post-LN, warmup 200', overrides: { warmup: 200 }, dash: [] },
      { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, no warmup' },
    ],
  },
  {
    id: 'depth',
    cite: 'Liu et al. 2020; DeepNet 2022',
    title: 'Depth',
    paper: 'Liu et al. 2020 (Admin); Wang et al. 2022 (DeepNet)',
    claim: 'Post-LN trains when shallow and fails when deep; Pre-LN, DeepNorm and Admin train at the same depth.',
    setting: 'reverse 4 of 8 symbols, Adam at 4\u00d710\u207b\u00b3 without warmup, 200 steps, 6 and 18 blocks',
    config: { ...REVERSE_TASK, depth: 18, lr: 4e-3, warmup: 0, steps: 200, log_every: 10 },
    runs: [
      {
        key: 'post_ln_6',
        arch: 'post_ln',
        label: 'Post-LN, 6 blocks',
        overrides: { depth: 6 },
        dash: [],
        stopWhenTrained: true,
      },
      { key: 'post_ln', arch: 'post_ln', label: 'Post-LN, 18 blocks' },
      { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, 18 blocks', stopWhenTrained: true },
      { key: 'deepnorm', arch: 'deepnorm', label: 'DeepNorm, 18 blocks', stopWhenTrained: true },
      { key: 'admin', arch: 'admin', label: 'Admin, 18 blocks', stopWhenTrained: true },
    ],
  },
  {
    id: 'degradation',
    cite: 'He et al. 2016',
    title: 'Degradation',
    paper: 'He et al. 2016, Deep Residual Learning for Image Recognition',
    claim:
      'A deeper plain stack fits worse than a shallower one; a residual stack of the same depth fits better than both.',
    setting: 'teacher regression, MLP blocks of width 32, SGD with momentum at 3\u00d710\u207b\u00b3, 200 steps',
    config: { ...TEACHER_TASK, depth: 56, lr: 3e-3, warmup: 0, steps: 200, log_every: 10 },
    runs: [
      { key: 'plain_20', arch: 'plain', label: 'plain, 20 layers', overrides: { depth: 20 }, dash: [6, 3] },
      { key: 'plain', arch: 'plain', label: 'plain, 56 layers' },
      { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, 56 layers' },
    ],
  },
  {
    id: 'lesion',
    cite: 'Veit et al. 2016',
    title: 'Lesion',
    paper: 'Veit et al. 2016, Residual Networks Behave Like Ensembles of Relatively Shallow Networks',
    claim:
      'Removing one block of a trained residual stack costs little; removing one layer of a plain stack costs nearly all.',
    setting: 'teacher regression, 20 MLP blocks of width 32, SGD with momentum at 3\u00d710\u207b\u00b3, 200 steps',
    config: { ...TEACHER_TASK, depth: 20, lr: 3e-3, warmup: 0, steps: 200, log_every: 10 },
    needsLesion: true,
    runs: [
      { key: 'plain', arch: 'plain', label: 'plain, 20 layers' },
      { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, 20 blocks' },
    ],
  },
  {
    id: 'rezero',
    cite: 'Bachlechner et al. 2020',
    title: 'ReZero',
    paper: 'Bachlechner et al. 2020, ReZero is All You Need: Fast Convergence at Large Depth',
    claim:
      'A residual stack whose every branch starts behind a gate at zero trains at a depth where the plain stack does not and the residual stack without a norm diverges.',
    setting: 'teacher regression, 56 MLP blocks of width 32, SGD with momentum at 3\u00d710\u207b\u00b3, 200 steps',
    config: { ...TEACHER_TASK, depth: 56, lr: 3e-3, warmup: 0, steps: 200, log_every: 10 },
    runs: [
      { key: 'plain', arch: 'plain', label: 'plain, 56 layers' },
      { key: 'residual', arch: 'residual', label: 'residual, no norm, 56 blocks' },
      { key: 'rezero', arch: 'rezero', label: 'ReZero, 56 blocks' },
    ],
  },
  {
    id: 'late',
    cite: 'the article\u2019s open question',
    title: 'Late layers',
    paper:
      'ReZero (Bachlechner et al. 2020), LayerScale (Touvron et al. 2021), LNS (Sun et al. 2025), Mix-LN (Li et al. 2024), DenseFormer (Pagliardini et al. 2024)',
    claim:
      'Pre-LN keeps the gradient highway, but its late blocks add little to a stream that keeps growing; each of these answers aims to make the late blocks count.',
    setting:
      'reverse 4 of 8 symbols, 8 transformer blocks, Adam at 2\u00d710\u207b\u00b3, 300 steps (Post-LN with 100 warmup steps); then each block skipped in turn',
    config: { ...REVERSE_TASK, depth: 8, lr: 2e-3, warmup: 0, steps: 300, log_every: 10 },
    needsLesion: true,
    runs: [
      { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN' },
      { key: 'post_ln_warmup', arch: 'post_ln', label: 'Post-LN, warmup 100', overrides: { warmup: 100 } },
      { key: 'rezero', arch: 'rezero', label: 'ReZero' },
      { key: 'layerscale', arch: 'layerscale', label: 'LayerScale' },
      { key: 'lns', arch: 'lns', label: 'LNS' },
      { key: 'mix_ln', arch: 'mix_ln', label: 'Mix-LN' },
      { key: 'dwa', arch: 'dwa', label: 'DenseFormer' },
    ],
  },
];

export const PRESET_BY_ID = Object.fromEntries(PRESETS.map((p) => [p.id, p]));

export const PRESET_IDS = PRESETS.map((p) => p.id);

/** The lab's config of `preset`: the defaults, the preset's settings, and its runs' architectures (in the engine's order, as the settings keep them). */
export function presetConfig(preset, defaults) {
  return { ...defaults, ...preset.config, arch: sortArchs([...new Set(preset.runs.map((r) => r.arch))]) };
}

/** Each run's config as `resnorm train` takes it: the shared config with the run's overrides. */
export function runConfigs(preset, config) {
  return preset.runs.map((r) => ({ ...config, ...(r.overrides ?? {}), arch: r.arch }));
}
