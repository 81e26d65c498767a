// Renders TeX to MathML at build time (Temml), so the page ships no math
// code and no fonts: \( ... \) inline and \[ ... \] display, in index.html and
// in any module imported with the `?math` suffix (JSON whose strings hold TeX).
import temml from 'temml';
import { readFileSync } from 'node:fs';

const INLINE = /\\\((.+?)\\\)/gs;
const DISPLAY = /\\\[(.+?)\\\]/gs;

// A strict Content-Security-Policy refuses style="" attributes, so the one
// Temml writes for display math is dropped (math[display=block] is styled
// in app.css), and any other inline style fails the build.
export function renderMath(text) {
  const render = (tex, displayMode) => {
    const html = temml
      .renderToString(tex.trim(), { displayMode, throwOnError: true, xml: false })
      .replace(' style="display:block math;"', '');
    if (/\sstyle=/.test(html)) throw new Error(`math with an inline style (refused under CSP): ${tex}`);
    return html;
  };
  return text.replace(DISPLAY, (_, tex) => render(tex, true)).replace(INLINE, (_, tex) => render(tex, false));
}

// Every string in a JSON value, rendered.
export function renderMathDeep(value) {
  if (typeof value === 'string') return renderMath(value);
  if (Array.isArray(value)) return value.map(renderMathDeep);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderMathDeep(v)]));
  return value;
}

export function mathPlugin() {
  return {
    name: 'resnorm-math',
    transformIndexHtml: {
      order: 'pre',
      handler(html) {
        // Only outside <script> and <style>.
        return html.split(/(<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>)/).map((part, i) => (i % 2 ? part : renderMath(part))).join('');
      },
    },
    load(id) {
      if (!id.endsWith('.json?math')) return null;
      const data = JSON.parse(readFileSync(id.slice(0, -'?math'.length), 'utf8'));
      return `export default ${JSON.stringify(renderMathDeep(data))};`;
    },
  };
}
