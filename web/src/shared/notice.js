// The notice for settings a link or an element's attributes could not use.
// Text only: every value goes in with textContent, never as markup.
import { noticeText } from './state.js';
import { workerLostText } from './worker-lost.js';

/**
 * Fills `box` (an element with the class "notice") with `notices` from
 * state.js and shows it; hides it when there are none. `source` names where
 * the settings came from ("link", "attributes"; null: the reader's own);
 * `head` replaces the sentence above the list; `table` is the field table the
 * notices' fields are of (state.js's FIELDS_TABLE unless given).
 */
export function showNotices(box, notices, { source = 'link', head: headText = null, table } = {}) {
  if (!notices.length) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const head = document.createElement('p');
  head.className = 'notice-head';
  const where = source ? ` in the ${source}` : '';
  head.textContent =
    headText ??
    (notices.length === 1
      ? `One setting${where} could not be used as given:`
      : `${notices.length} settings${where} could not be used as given:`);
  const list = document.createElement('ul');
  list.className = 'notice-list';
  for (const n of notices.slice(0, 8)) {
    const li = document.createElement('li');
    li.textContent = noticeText(n, table);
    list.append(li);
  }
  if (notices.length > 8) {
    const li = document.createElement('li');
    li.textContent = `and ${notices.length - 8} more`;
    list.append(li);
  }
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'notice-close';
  close.textContent = 'Dismiss';
  close.addEventListener('click', () => {
    box.hidden = true;
  });
  box.replaceChildren(head, list, close);
  box.hidden = false;
}

/**
 * Shows, before `anchor`, a notice each time one of `engine`'s workers stops
 * on its own (engine/client.js onWorkerLost): what happened, what the page
 * goes on with and what the reader can do (worker-lost.js). Text only.
 */
export function noticeWorkerLost(engine, anchor) {
  let box = null;
  return engine.onWorkerLost((error, left, info) => {
    if (!box) {
      box = document.createElement('p');
      box.className = 'notice worker-lost';
      box.setAttribute('role', 'status');
      anchor.before(box);
    }
    box.textContent = workerLostText(error, left, info);
  });
}
