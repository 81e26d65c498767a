// Printouts read back with poppler (pdfinfo, pdftotext, pdftoppm): a page printed to PDF under
// print media, its page count, the text of each page and how much of a page is dark. The PDFs
// and a PNG of each page are left in test-results/.
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { SHOTS } from './harness.js';

/** The number of pages of the PDF file `pdf`. */
export const pageCount = (pdf) =>
  Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))[1]);

/** The text of each page. */
export function pageTexts(pdf) {
  const texts = [];
  for (let i = 1; i <= pageCount(pdf); i++) {
    const raw = execFileSync('pdftotext', ['-f', String(i), '-l', String(i), pdf, '-'], { encoding: 'utf8' });
    texts.push(raw);
  }
  return texts;
}

/** Whitespace runs as one space. */
export const squash = (s) => s.replace(/\s+/g, ' ').trim();

/** The share of dark pixels (grey below 128) on page `n`, rendered in grey at 30 dpi. */
export function darkShare(pdf, n) {
  const pgm = execFileSync('pdftoppm', ['-gray', '-r', '30', '-f', String(n), '-l', String(n), pdf]);
  // binary PGM: "P5 <w> <h> <max>" then one byte per pixel
  const head = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 40).toString('latin1'));
  const [w, h] = [Number(head[1]), Number(head[2])];
  const pixels = pgm.subarray(head[0].length, head[0].length + w * h);
  let dark = 0;
  for (const p of pixels) if (p < 128) dark++;
  return dark / pixels.length;
}

/**
 * Prints `page` to test-results/print-<name>.pdf (print media, backgrounds on) and a PNG per page,
 * print-<name>-<n>.png (those of an earlier printout of that name removed first).
 */
export async function printToPdf(page, name, format) {
  const pdf = `${SHOTS}/print-${name}.pdf`;
  for (const f of readdirSync(SHOTS)) if (new RegExp(`^print-${name}-\\d+\\.png$`).test(f)) rmSync(`${SHOTS}/${f}`);
  await page.pdf({ path: pdf, format, printBackground: true });
  execFileSync('pdftoppm', ['-png', '-r', '60', pdf, `${SHOTS}/print-${name}`]);
  return pdf;
}
