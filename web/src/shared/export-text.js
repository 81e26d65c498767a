// How the exports write numbers and text: every double as the shortest text
// that reads back as the same double (non-finite values spelled out in CSV,
// null in JSON, as the CLI writes them) and CSV cells quoted where they must
// be. Pure functions; the explorer's exports and the training lab's use them.

/** Shortest text that reads back as the same double; NaN/Infinity spelled out. */
export function numberText(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return String(v);
}

/** A CSV cell: quoted (with doubled quotes) when it holds a quote, comma, line break or '#'. */
export const csvCell = (s) => (/[",\n\r#]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

/** A config value in a CSV header line: a list joined by commas. */
export const configText = (v) => (Array.isArray(v) ? v.join(',') : String(v));

/** A number for JSON: finite as it is, anything else (NaN, Infinity) null. */
export const jsonNumber = (x) => (Number.isFinite(x) ? x : null);
