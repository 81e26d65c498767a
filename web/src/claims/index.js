// Every claim the site computes and judges, by page: the papers page's (./papers/index.js, in its
// order; claimOf(id) finds one of them) and the training lab's (./lab/index.js, in the lab's order).
// A claim module holds all of one claim: its computation or runs, its verdict, its words and its
// figures; the engine worker runs its computation and the views read the rest. Claims import only
// ./, ../shared/ and packages, so the engine may import them.
export { CLAIMS as PAPER_CLAIMS, claimOf } from './papers/index.js';
export { CLAIMS as LAB_CLAIMS, CLAIM_BY_ID as LAB_CLAIM_BY_ID } from './lab/index.js';
