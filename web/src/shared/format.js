// Every number the pages print: the readout, the caption, the table, the axes,
// the exports, the quiz's sentences and the papers' panels.

const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
export const superscript = (n) => String(n).replace(/[-0-9]/g, (c) => SUP[c]);

/** "10⁻⁴" for a power of ten on a log axis. */
export const powerOfTen = (exp) => (exp === 0 ? '1' : exp === 1 ? '10' : `10${superscript(exp)}`);

/** 3 significant digits; scientific with a superscript exponent outside 1e-3..1e4. */
export function fmtValue(v) {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return 'overflow';
  const a = Math.abs(v);
  if (a >= 100 && a < 1e4) return String(Math.round(v));
  if (a >= 1e-3 && a < 100) return trim(v.toPrecision(3));
  const [m, e] = v.toExponential(2).split('e');
  return `${trim(m)}×10${superscript(Number(e))}`;
}

/** Plain ASCII for the data table (copy-paste friendly): 1.23e-4. */
export function fmtPlain(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e4) {
    const s = v.toPrecision(4);
    if (!s.includes('e')) return trim(s);
  }
  return v.toExponential(3).replace(/\.?0+e/, 'e');
}

function trim(s) {
  return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s;
}

/**
 * A ratio for prose: "3.2×" between 1/100 and 1000, else a power of ten with
 * one decimal in the exponent, returned as parts so the caller can set it as
 * a superscript: {text: '3.2×'} or {base: '10', exp: '−4.1'}.
 */
export function fmtRatio(r) {
  if (r === 0) return { text: '0×' };
  if (!Number.isFinite(r)) return { text: 'overflow' };
  if (r >= 10 && r < 1000) return { text: `${Math.round(r)}×` };
  if (r >= 0.01 && r < 10) return { text: `${trim(r.toPrecision(2))}×` };
  const e = Math.log10(r);
  return { base: '10', exp: e.toFixed(1).replace('-', '−') };
}

/**
 * A number for prose: "0.949", "1607", "2", "3.9×10⁻¹¹", "NaN", "∞".
 * @param {number} v
 * @param {number} [digits=3] significant digits
 * @returns {string}
 */
export function significant(v, digits = 3) {
  if (typeof v !== 'number' || Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 10 ** (digits - 1) && a < 1e5) return String(Math.round(v));
  if (a >= 1e-3 && a < 1e5) return trim(v.toPrecision(digits));
  const [m, e] = v.toExponential(digits - 1).split('e');
  return `${trim(m)}×10${superscript(Number(e))}`;
}

/** A number for the panels: fixed decimals, a real minus sign, no "-0.000". */
export function fixed(v, digits = 3) {
  if (typeof v !== 'number' || Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  const s = v.toFixed(digits);
  if (/^-0\.?0*$/.test(s)) return s.slice(1);
  return s.replace('-', '−');
}

/** A factor for the papers' tables: "1.03×", "3.9×10⁵×", "3.2×10⁻⁴×", "∞ (a value is 0)". */
export function fmtFactor(r) {
  if (!Number.isFinite(r)) return '∞ (a value is 0)';
  if (r === 0) return '0×';
  if (r >= 0.01 && r < 100) return `${r.toFixed(r < 10 ? 2 : 1)}×`;
  const e = Math.floor(Math.log10(r));
  return `${(r / 10 ** e).toFixed(1)}×10${superscript(e)}×`;
}

/** A share as a percentage: one decimal under 10%, none above ("3.4%", "12%"). */
export function percent(v) {
  return `${(100 * v).toFixed(v < 0.1 ? 1 : 0)}%`;
}

/**
 * A number for the papers' captions: 2, 1 or 0 decimals between 0.01 and 10⁴
 * ("0.54", "12.3", "157"), else a power of ten ("3.9×10⁵").
 */
export function decimals(v) {
  if (!Number.isFinite(v)) return fixed(v, 0);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 0.01 && a < 1e4) return fixed(v, a >= 100 ? 0 : a >= 10 ? 1 : 2);
  return fmtFactor(v).replace(/×$/, '');
}

/** A compute time for the status line: "4.2" under 10 ms, whole milliseconds above. */
export const fmtMs = (ms) => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms)));
