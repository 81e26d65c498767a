// A box that scrolls sideways (a wide table on a phone, a long formula) can be
// scrolled from the keyboard only if it takes the focus (WCAG 2.1.1; axe's
// scrollable-region-focusable). scrollRegion() makes it a keyboard stop, named
// as a region where a label is given, while its content is wider than it is,
// and no stop while everything fits, so a desktop's tab order gains nothing.
import { setAttr } from './dom.js';

/** Watches `box` (and the elements in it) and returns it; `label` names it as a region, null keeps its own role. */
export function scrollRegion(box, label = null) {
  const update = () => {
    if (box.scrollWidth > box.clientWidth + 1) {
      setAttr(box, 'tabindex', '0');
      if (label) {
        setAttr(box, 'role', 'region');
        setAttr(box, 'aria-label', label);
      }
    } else if (box.hasAttribute('tabindex') && document.activeElement !== box) {
      box.removeAttribute('tabindex');
      if (label) {
        box.removeAttribute('role');
        box.removeAttribute('aria-label');
      }
    }
  };
  const sizes = new ResizeObserver(update);
  const watch = () => {
    sizes.disconnect();
    sizes.observe(box);
    for (const child of box.children) sizes.observe(child);
  };
  new MutationObserver(watch).observe(box, { childList: true });
  watch();
  return box;
}

/** scrollRegion(node) for every node under `root` that `selector` matches (formulas: their own role stays). */
export function scrollRegions(root, selector) {
  for (const node of root.querySelectorAll(selector)) scrollRegion(node);
}
