// A lab claim's verdict from PyTorch (the driver: ./claim-verdict.js): the Depth claim (Liu et al. 2020; Wang et al. 2022), with python3.
// Run: node --test tests/node/pytorch/claims-depth.test.js
import { PARTS, claimTest } from './claim-verdict.js';

for (const id of PARTS['claims-depth']) claimTest(id);
