// The built worker's URL (Vite bundles worker.js and gives its address), for
// starting it through a blob: worker from another origin. Loaded by client.js
// only in that case, so Node can import the client without Vite.
import url from './worker.js?worker&url';

export default url;
