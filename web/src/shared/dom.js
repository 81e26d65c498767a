// Small DOM helpers for the quiz page. No inline styles anywhere (a strict CSP
// refuses style="" attributes): classes only, and element.style from JS where a
// size must be computed.

/**
 * An element: el('button', {type: 'button', class: 'x', onclick: fn}, 'text', child, ...).
 * Attributes whose value is null, undefined or false are left out; true gives an empty attribute.
 * `html` sets innerHTML and must only ever receive quiz/text.js output (escaped bank text).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'html') node.innerHTML = v;
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  append(node, children);
  return node;
}

/** Appends children, skipping null, undefined and false (Element.append would write "null"). */
export function add(node, ...children) {
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Sets attribute `name` of `node` to `value` unless it has that value already:
 * an unchanged attribute is not rewritten, so nothing is restyled for it.
 */
export function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Sets the text of `node` (an element or an <output>'s value) unless it reads so already. */
export function setText(node, text) {
  if ('value' in node && node.tagName === 'OUTPUT') {
    if (node.value !== text) node.value = text;
  } else if (node.textContent !== text) node.textContent = text;
}

/** Replaces the children of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export const $ = (id) => document.getElementById(id);

/** Whether a key event comes from a place where letters are text (inputs, menus, editable areas). */
export function typingTarget(target) {
  if (!target || !(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range'].includes(target.type);
  return false;
}
