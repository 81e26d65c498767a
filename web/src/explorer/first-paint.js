// The default scene's result as the build computed it (web/build/first-paint.js),
// decoded to the document simulate() returns: drawn at once when the page opens
// on that config, replaced by the live engine's answer when it arrives.
import shipped from 'virtual:resnorm-first-paint';

function float64(text) {
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return new Float64Array(bytes.buffer);
}

/** The shipped {config, results}, with Float64Arrays, or null if none was shipped. */
export function firstPaint() {
  if (!shipped?.results) return null;
  const results = {};
  for (const [arch, r] of Object.entries(shipped.results))
    results[arch] = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? float64(v) : v]));
  return { config: shipped.config, results };
}
