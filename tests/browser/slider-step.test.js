// What one slider step costs the page, counted rather than timed (timings vary
// with the machine's load, counts do not): the charts are drawn before any
// text of the step is written, so no layout of the page is forced while the
// step runs (a canvas in the charts' size container must otherwise lay the
// page out before it can draw text), and the step rewrites no attribute and
// no text with the value it already had.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, served, useBrowser } from './harness.js';

// a Chromium of its own: the trace below must hold this file's page alone
const it = useBrowser({ own: true });

/**
 * `count` steps of slider `id` in the page, each one step of the slider away
 * from the last and back, every one waited for until it is painted and a frame
 * has passed (as a person moving the slider one notch at a time), then `pause`
 * ms more (steps slower than the numbers table's settling rebuild it each time).
 */
const steps = (page, id, count, pause = 0) =>
  page.evaluate(
    async ([id, count, pause]) => {
      const el = document.getElementById(id);
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const step = Number(el.step) || 1;
      const start = Number(el.value);
      const room = Number(el.max) - start >= step;
      for (let i = 0; i < count; i++) {
        const renders = window.__resnorm.renders;
        el.value = String(i % 2 === 0 ? start + (room ? step : -step) : start);
        el.dispatchEvent(new Event('input', { bubbles: true }));
        while (window.__resnorm.renders === renders) await frame();
        await frame();
        // on purpose a person's pause between notches, past the table's settling time, so the step
        // after it is not a stream; a slower machine only lengthens it, so it cannot decide the outcome
        if (pause) await new Promise((r) => setTimeout(r, pause));
      }
    },
    [id, count, pause],
  );

/** The page once the engine's own answer is on screen (not only the shipped first paint). */
async function settled(url) {
  const page = await openPage(it.browser, url);
  await page.waitForFunction(() => document.querySelector('.status')?.dataset.state === 'ready');
  await steps(page, 'gain', 2); // the engine's code warm, every instance built
  return page;
}

// The layouts the renderer's main thread ran inside script (forced by a read
// or a canvas text draw), from a DevTools trace: a Layout event nested in a
// script event.
function forcedLayouts(trace) {
  const events = JSON.parse(trace.toString()).traceEvents;
  const main = events.find((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain');
  const on = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X')
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const SCRIPT = new Set(['FunctionCall', 'RunMicrotasks', 'EventDispatch', 'TimerFire', 'FireAnimationFrame']);
  const open = [];
  let forced = 0;
  for (const e of on) {
    while (open.length && open[open.length - 1].ts + open[open.length - 1].dur <= e.ts) open.pop();
    if (e.name === 'Layout' && open.some((o) => SCRIPT.has(o.name))) forced++;
    open.push(e);
  }
  return { forced, layouts: on.filter((e) => e.name === 'Layout').length };
}

test('a slider step forces no layout of the page: the charts are drawn before the text', () =>
  served({}, async (url) => {
    const page = await settled(url);
    for (const id of ['gain', 'depth']) {
      await it.browser.startTracing(page, { categories: ['devtools.timeline'] });
      await steps(page, id, 8);
      const { forced, layouts } = forcedLayouts(await it.browser.stopTracing());
      assert.ok(layouts >= 8, `${id}: ${layouts} layouts in the trace, fewer than the steps`);
      assert.equal(forced, 0, `${id}: ${forced} layouts forced inside script over 8 steps`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a slider step rewrites no attribute and no text with the value it had', () =>
  served({}, async (url) => {
    const page = await settled(url);
    await page.evaluate(() => {
      window.__rewrites = [];
      const name = (n) => {
        const e = n.nodeType === 1 ? n : n.parentElement;
        const cls = typeof e?.className === 'string' && e.className ? `.${e.className.split(' ')[0]}` : '';
        return `${e?.tagName.toLowerCase()}${e?.id ? `#${e.id}` : ''}${cls}`;
      };
      const text = (nodes) => [...nodes].map((n) => n.textContent).join('');
      // Called once per task's writes, so a value is compared with what it became in that task.
      new MutationObserver((records) => {
        for (const r of records) {
          if (r.type === 'attributes' && r.oldValue === r.target.getAttribute(r.attributeName))
            window.__rewrites.push(`${name(r.target)} [${r.attributeName}="${r.oldValue}"]`);
          if (r.type === 'childList' && r.addedNodes.length && text(r.removedNodes) === text(r.addedNodes))
            window.__rewrites.push(`${name(r.target)} text "${text(r.addedNodes).slice(0, 40)}"`);
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeOldValue: true });
    });
    await steps(page, 'gain', 6);
    await steps(page, 'depth', 6);
    await steps(page, 'gain', 3, 400); // slow steps: each rebuilds the numbers table
    const rewrites = await page.evaluate(() => [...new Set(window.__rewrites)]);
    assert.deepEqual(rewrites, []);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
