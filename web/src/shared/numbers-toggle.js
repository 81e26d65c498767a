// "Show numbers": the button that shows a data table's box on screen (screen
// readers read the table always). Shown, the box scrolls, so it is a named
// region keyboard users can focus and scroll with the arrow keys; hidden, it
// is no keyboard stop. The explorer's table and the training lab's.

/** wrap: the box around the table (class numbers-wrap visually-hidden); button: its toggle; label: the region's name. */
export function numbersToggle({ wrap, button, label }) {
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', label);
  button.addEventListener('click', () => {
    const show = button.getAttribute('aria-pressed') !== 'true';
    button.setAttribute('aria-pressed', String(show));
    button.textContent = show ? 'Hide numbers' : 'Show numbers';
    wrap.classList.toggle('visually-hidden', !show);
    if (show) wrap.tabIndex = 0;
    else wrap.removeAttribute('tabindex');
  });
}
