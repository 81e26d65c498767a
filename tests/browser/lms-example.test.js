// examples/lms.html on the site: the snippet an LMS page editor takes, shown as
// text, and a preview of it that frames only the site itself (the snippet's
// own address, example.org, stands for the site and is never loaded).
import test from 'node:test';
import assert from 'node:assert/strict';
import { SITE_CSP, SHOTS, pageIn, served, useBrowser } from './harness.js';

const it = useBrowser();

test('examples/lms.html shows the snippet to paste and previews it from its own site, under the CSP', () =>
  served({ csp: SITE_CSP, base: '/course/' }, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const requested = [];
    context.on('request', (r) => requested.push(r.url()));
    const page = await pageIn(context, `${url}examples/lms.html`, { ready: false });
    const frames = page.locator('#lms-preview iframe');
    assert.equal(await frames.count(), 2);
    for (const frame of await frames.all()) await frame.scrollIntoViewIfNeeded(); // lazy ones load
    await page.waitForFunction(() => document.querySelectorAll('#lms-preview iframe').length === 2);
    for (const frame of page.frames().slice(1)) await frame.waitForFunction(() => document.body?.dataset.ready === '1');

    const origin = new URL(url).origin;
    const foreign = requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
    assert.deepEqual(foreign, [], 'every request stays on the site');

    // the snippet, read as a person copies it, is HTML whose iframes point at the site's placeholder
    // address with the same settings as the preview's
    const { snippet, preview } = await page.evaluate(() => {
      const text = document.getElementById('lms-snippet').textContent;
      const parsed = new DOMParser().parseFromString(text, 'text/html');
      const srcs = (root) => [...root.querySelectorAll('iframe')].map((f) => f.getAttribute('src'));
      return { snippet: srcs(parsed), preview: srcs(document.getElementById('lms-preview')) };
    });
    assert.equal(snippet.length, 2);
    for (const [i, src] of snippet.entries()) {
      assert.match(src, /^https:\/\/example\.org\/resnorm\/embed\.html#/);
      assert.equal(src.replace('https://example.org/resnorm/', '../'), preview[i]);
    }
    await page.screenshot({ path: `${SHOTS}/lms-example.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
    await context.close();
  }));
