// Light and dark for an embed: `choice` is the author's (auto, light, dark);
// auto follows the reader's system setting. The colours are custom properties
// on the wrapper (embed.css), set through its data-theme attribute.
export function createEmbedTheme(wrapper, choice, signal) {
  const media = matchMedia('(prefers-color-scheme: dark)');
  const listeners = new Set();
  const current = () => (choice === 'auto' ? (media.matches ? 'dark' : 'light') : choice);
  const apply = () => {
    const t = current();
    if (wrapper.dataset.theme === t) return;
    wrapper.dataset.theme = t;
    listeners.forEach((fn) => fn(t));
  };
  media.addEventListener('change', apply, { signal });
  wrapper.dataset.theme = current();
  return {
    current,
    onChange: (fn) => listeners.add(fn),
    set(next) {
      choice = next;
      apply();
    },
  };
}
