// A lab claim's verdict from PyTorch (the driver: ./claim-verdict.js): the Warmup claim (Xiong et al. 2020), with python3 and with torchrun over two processes.
// Run: node --test tests/node/pytorch/claims-warmup.test.js
import { PARTS, claimTest } from './claim-verdict.js';

for (const id of PARTS['claims-warmup']) claimTest(id, { torchrun: true });
