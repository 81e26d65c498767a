// Every claim the site computes and judges, by page: the papers page's (./papers/index.js, in its
// order). A claim module holds all of one claim: its computation, its verdict, its words and its
// figures; the engine worker runs its computation and the views read the rest. Claims import only
// ./, ../shared/ and packages, so the engine may import them.
export { CLAIMS, claimOf } from './papers/index.js';
