// Number formatting for the quiz's sentences (checks and generated questions), in the page's style:
// 3 significant digits (trailing zeros dropped), scientific with a superscript exponent outside
// 1e-3..1e5.

const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/** "⁻¹²" for -12. */
export const superscript = (n) => String(n).replace(/[-0-9]/g, (c) => SUP[c]);

/**
 * A number for prose: "0.949", "1607", "2", "3.9×10⁻¹¹", "NaN", "∞".
 * @param {number} v
 * @param {number} [digits=3] significant digits
 * @returns {string}
 */
export function fmt(v, digits = 3) {
  if (typeof v !== 'number' || Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 10 ** (digits - 1) && a < 1e5) return String(Math.round(v));
  if (a >= 1e-3 && a < 1e5) return trimZeros(v.toPrecision(digits));
  const [m, e] = v.toExponential(digits - 1).split('e');
  return `${trimZeros(m)}×10${superscript(Number(e))}`;
}

// "1.50" -> "1.5", "2.00" -> "2" (only after a decimal point).
const trimZeros = (s) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);
