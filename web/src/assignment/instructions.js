// A teacher's instructions, written as plain text, as blocks on the page: a blank line starts a
// new paragraph, lines that start with "- ", "* " or "• " make a list, lines that start with
// "1. " or "1) " a numbered list (from the first line's number), and a line break inside a
// paragraph stays one. Every block is text: nothing in it is read as markup, so whatever a link
// carries shows as the characters it is.
//
//   instructionBlocks('Read it.\n\n- one\n- two')
//   // [{type: 'p', lines: ['Read it.']}, {type: 'ul', items: ['one', 'two']}]
//   renderInstructions(text)   // the same as elements: <p>, <ul>, <ol> (start), <li>
import { el } from '../shared/dom.js';

const BULLET = /^\s*[-*\u2022]\s+(.*)$/;
const NUMBER = /^\s*(\d{1,4})[.)]\s+(.*)$/;

/** The blocks of `text`: [{type: 'p', lines}, {type: 'ul', items}, {type: 'ol', start, items}]. */
export function instructionBlocks(text) {
  const blocks = [];
  let open = null; // the block the next line may join
  for (const line of String(text ?? '').split(/\r\n?|\n/)) {
    if (!line.trim()) {
      open = null;
      continue;
    }
    const bullet = BULLET.exec(line);
    const number = bullet ? null : NUMBER.exec(line);
    if (bullet || number) {
      const type = bullet ? 'ul' : 'ol';
      const item = (bullet ? bullet[1] : number[2]).trim();
      if (open?.type !== type) {
        open = type === 'ol' ? { type, start: Number(number[1]), items: [] } : { type, items: [] };
        blocks.push(open);
      }
      open.items.push(item);
    } else if (open?.type === 'p') open.lines.push(line.trim());
    else if (open && open.items.length && /^\s/.test(line)) {
      // an indented line goes on with the list item above it
      open.items[open.items.length - 1] += ` ${line.trim()}`;
    } else {
      open = { type: 'p', lines: [line.trim()] };
      blocks.push(open);
    }
  }
  return blocks;
}

/** The instructions as elements, text only. */
export function renderInstructions(text) {
  return instructionBlocks(text).map((b) => {
    if (b.type === 'p')
      return el(
        'p',
        {},
        b.lines.flatMap((l, i) => (i ? [el('br'), l] : [l])),
      );
    const attrs = b.type === 'ol' && b.start !== 1 ? { start: b.start } : {};
    return el(
      b.type,
      attrs,
      b.items.map((t) => el('li', {}, t)),
    );
  });
}
