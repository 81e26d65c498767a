// A lab claim's verdict from PyTorch (the driver: ./claim-verdict.js): the Late layers claim (the article's open question), with python3.
// Run: node --test tests/node/pytorch/claims-late.test.js
import { PARTS, claimTest } from './claim-verdict.js';

for (const id of PARTS['claims-late']) claimTest(id);
