// The training lab's claims, in the lab's order (its buttons', the C++ reproductions' settings
// file's): one module each (./<id>.js: id, cite, title, paper, claim, setting, config, needsLesion,
// runs, judge, deep), and verdict(id, runs), which judges a claim by its id. What the claims share
// (./common.js) and a claim at a setting (./setting.js) are re-exported, so one import gives the lab
// its claims and the judging of runs.
//
//   CLAIM_BY_ID.warmup.runs                          // session.js's run specs
//   claimConfig(CLAIM_BY_ID.warmup, defaults)        // the lab's config for it
//   verdict('warmup', { post_ln, post_ln_warmup, pre_ln })
//
// Two settings of each claim: the module's config, runs and judge are its quick one, small enough
// to answer in seconds (found by scripts/search-reproductions.js); its `deep` is the depth of the
// paper's claim with the quick setting's recipe (optimizer, learning rate, steps, task), not tuned
// until the claim holds:
//
//   export const deep = {
//     setting: 'the setting in words',        // always
//     config: { ...config, depth: 48 },       // absent: the quick setting is already the paper's depth
//     runs: [...],                            // optional: the quick runs' keys, labels at the deep depths
//     judge(s, runs) {...},                   // optional: the quick judge, its words at the deep depths
//   };
//
// claimAt(claim, 'deep') (./setting.js) is the claim with those in place of the quick ones, for
// claimConfig, runConfigs and claimVerdict alike; scripts/claim-seeds.js runs both over seeds.
import { claimVerdict } from './common.js';
import * as warmup from './warmup.js';
import * as depth from './depth.js';
import * as degradation from './degradation.js';
import * as lesion from './lesion.js';
import * as rezero from './rezero.js';
import * as late from './late.js';
import * as batchnorm from './batchnorm.js';
import * as qknorm from './qknorm.js';
import * as dyt from './dyt.js';
import * as hybrid from './hybrid.js';
import * as attnres from './attnres.js';
import * as hc from './hc.js';
import * as ngpt from './ngpt.js';

export * from './common.js';
export * from './setting.js';

export const CLAIMS = [
  warmup,
  depth,
  degradation,
  lesion,
  rezero,
  late,
  batchnorm,
  qknorm,
  dyt,
  hybrid,
  attnres,
  hc,
  ngpt,
];

export const CLAIM_BY_ID = Object.fromEntries(CLAIMS.map((c) => [c.id, c]));

export const CLAIM_IDS = CLAIMS.map((c) => c.id);

/** The verdict of claim `id` on `runs` (common.js's claimVerdict), or null for an id no claim has. */
export const verdict = (id, runs) => claimVerdict(CLAIM_BY_ID[id], runs);
