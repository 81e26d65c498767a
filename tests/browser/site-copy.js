// A copy of the build for one test file, served at `base` under the site's CSP: tests write host
// pages into it (site.dir) and load them from site.url. Set up before the file's tests, removed
// after them.
import { after, before } from 'node:test';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, SITE_CSP } from './harness.js';
import { startServer } from '../../scripts/serve.js';

/**
 * {dir, url, origin}, filled in before the tests run, and `ready`, a promise of the same for
 * other before() hooks (the test runner does not wait for one root hook before the next).
 */
export function useSiteCopy({ base = '/', csp = SITE_CSP } = {}) {
  const site = { dir: null, url: null, origin: null };
  let server = null;
  let done;
  site.ready = new Promise((ok, fail) => (done = { ok, fail }));
  site.ready.catch(() => {}); // the failing hook reports it
  before(async () => {
    try {
      site.dir = mkdtempSync(join(tmpdir(), 'resnorm-site-'));
      cpSync(DIST, site.dir, { recursive: true });
      server = await startServer({ port: 0, root: site.dir, base, csp });
      site.origin = `http://127.0.0.1:${server.address().port}`;
      site.url = site.origin + base;
      done.ok(site);
    } catch (e) {
      done.fail(e);
      throw e;
    }
  });
  after(async () => {
    if (server) await new Promise((ok) => server.close(ok));
    if (site.dir) rmSync(site.dir, { recursive: true, force: true });
  });
  return site;
}
