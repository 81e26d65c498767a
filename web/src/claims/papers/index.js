// Every claim of the papers page, in the page's order (the six of the article's
// papers, then the answers to its open question). Each module (./<id>.js) holds
// one claim: its id, defaults and compute(), citation, the claim in words and its
// section's prose, the panel's metadata and controls, its criteria, summarize(),
// caption(), figures(), pageFigures and embedView(). ../../engine/experiments.js,
// the papers page's views (../../papers/) and the build read them from this list
// (../index.js gathers it with the other pages' claims).
import * as theorem1 from './theorem1.js';
import * as figure3 from './figure3.js';
import * as lemma2 from './lemma2.js';
import * as deepnet from './deepnet.js';
import * as gpt2 from './gpt2.js';
import * as veit from './veit.js';
import * as rezero from './rezero.js';
import * as lns from './lns.js';
import * as mixln from './mixln.js';
import * as layerscale from './layerscale.js';
import * as dwa from './dwa.js';
import * as batchnorm from './batchnorm.js';
import * as rmsnorm from './rmsnorm.js';

export const CLAIMS = [
  theorem1,
  figure3,
  lemma2,
  deepnet,
  gpt2,
  veit,
  rezero,
  lns,
  mixln,
  layerscale,
  dwa,
  batchnorm,
  rmsnorm,
];

/** The claim of an id, or a RangeError for an id no claim has. */
export function claimOf(id) {
  const claim = CLAIMS.find((c) => c.id === id);
  if (!claim) throw new RangeError(`unknown reproduction: ${id}`);
  return claim;
}
