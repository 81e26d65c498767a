// Waits on what a page has drawn, never on a duration: shared by the browser
// tests (through harness.js) and by scripts that drive the built site
// (scripts/screenshots.js). Nothing here imports node:test.

/**
 * Waits until the lab has drawn what it holds: no heatmap or after-training chart left for a later
 * frame (their data-drawing), in the page or in an embed's shadow root; then two frames more, so
 * what those frames laid out has been painted and reported.
 */
export async function labDrawn(page) {
  await page.waitForFunction(() => {
    const shadows = [...document.querySelectorAll('*')].filter((e) => e.shadowRoot).map((e) => e.shadowRoot);
    return [document, ...shadows].every((r) => !r.querySelector('[data-drawing]'));
  });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/**
 * Waits until the boxes of the elements `selector` matches (canvases included) stay the same over
 * three frames running: the resize observers have run and what they redrew is laid out.
 */
export const layoutSettled = (page, selector) =>
  page.evaluate(async (sel) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const boxes = () =>
      JSON.stringify(
        [...document.querySelectorAll(sel)].flatMap((e) =>
          [e, ...e.querySelectorAll('canvas')].map((c) => {
            const r = c.getBoundingClientRect();
            return [r.x, r.y, r.width, r.height, c.width ?? 0, c.height ?? 0];
          }),
        ),
      );
    let last = boxes();
    for (let same = 0; same < 3;) {
      await frame();
      const now = boxes();
      same = now === last ? same + 1 : 0;
      last = now;
    }
  }, selector);
