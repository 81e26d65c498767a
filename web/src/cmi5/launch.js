// The cmi5 runtime with its client library, @xapi/cmi5: loaded by the launch page only for a
// cmi5 package, so that a SCORM package's page does not load the library.
import Cmi5 from '@xapi/cmi5';
import { startCmi5Runtime } from './runtime.js';

/** startCmi5Runtime with the library's class and the page's launch parameters. */
export const startCmi5 = (options) => startCmi5Runtime({ Cmi5, ...options });
