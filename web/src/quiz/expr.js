// A safe arithmetic expression for "predict the number": a small recursive-descent parser that
// evaluates as it parses. It understands numbers (with e-notation), + - * / ^, parentheses, one
// unary minus per operand and sqrt(), and nothing else: no names are looked up and no code runs.
//
// Grammar (^ binds tightest and is right-associative; -2^2 is -(2^2)):
//   expr    := term (("+" | "-") term)*
//   term    := unary (("*" | "/") unary)*
//   unary   := "-" power | power
//   power   := primary ("^" unary)?
//   primary := number | "(" expr ")" | "sqrt" "(" expr ")"
// "×" and "·" are read as "*", and "−" (the minus sign) as "-". A power of ten with an integer
// exponent is the decimal literal it spells, and a number times one is too, so 2*10^-4 is exactly
// 2e-4.
//
// evaluate(text) -> {ok: true, value} | {ok: false, error}: never throws; the error is one sentence
// that quotes (at most 24 characters of) what was not understood.

export const MAX_LENGTH = 200;
export const MAX_DEPTH = 32;

const HELP = 'numbers, + - * / ^, parentheses and sqrt()';
const quote = (s) => JSON.stringify(s.length > 24 ? `${s.slice(0, 24)}…` : s);

class ExprError extends Error {}
const fail = (msg) => {
  throw new ExprError(msg);
};

// Tokens: {kind: 'num', text, value} | {kind: 'op', text} | {kind: 'name', text}.
function tokenize(src) {
  const tokens = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') {
      i += 1;
      continue;
    }
    const num = /^(?:\d+\.?\d*|\.\d+)/.exec(src.slice(i));
    if (num) {
      let text = num[0];
      const rest = src.slice(i + text.length);
      if (/^[eE]/.test(rest)) {
        const exp = /^[eE][+-]?\d+/.exec(rest);
        if (!exp)
          fail(`${quote(text + /^[eE][+-]?/.exec(rest)[0])} is not a number: an exponent needs digits after "e"`);
        text += exp[0];
      }
      if (/^[A-Za-z_\d]/.test(src.slice(i + text.length))) {
        const word = /^[\w.]+/.exec(src.slice(i))[0];
        fail(`${quote(word)} is not understood as a number`);
      }
      tokens.push({ kind: 'num', text, value: Number(text) });
      i += text.length;
      continue;
    }
    const name = /^[A-Za-z_][\w]*/.exec(src.slice(i));
    if (name) {
      if (name[0] !== 'sqrt') fail(`${quote(name[0])} is not understood: the only name is sqrt(); use ${HELP}`);
      tokens.push({ kind: 'name', text: 'sqrt' });
      i += name[0].length;
      continue;
    }
    const op = { '×': '*', '·': '*', '−': '-' }[c] || c;
    if ('+-*/^()'.includes(op)) {
      tokens.push({ kind: 'op', text: op });
      i += 1;
      continue;
    }
    fail(`${quote(c)} is not understood; use ${HELP}`);
  }
  return tokens;
}

// A value with what exact decimal arithmetic needs: the literal it came from, or the integer
// exponent of a power of ten.
const plain = (value) => ({ value });

function finite(v, what) {
  if (Number.isNaN(v)) fail(`${what} is not a real number`);
  if (!Number.isFinite(v)) fail(`${what} is too large`);
  return v;
}

function parse(tokens) {
  let pos = 0;
  let depth = 0;
  const peek = () => tokens[pos];
  const isOp = (t, ops) => t && t.kind === 'op' && ops.includes(t.text);
  const where = () => (pos < tokens.length ? quote(tokens[pos].text) : 'the end');

  function nest(fn) {
    depth += 1;
    if (depth > MAX_DEPTH) fail(`the expression is nested more than ${MAX_DEPTH} deep`);
    const v = fn();
    depth -= 1;
    return v;
  }

  // One level of left-associative binary operators: operand (op operand)*.
  function chain(operand, ops, apply) {
    let left = operand();
    while (isOp(peek(), ops)) {
      const op = tokens[pos++].text;
      left = apply(op, left, operand());
    }
    return left;
  }

  function expr() {
    return chain(term, '+-', (op, a, b) =>
      plain(finite(op === '+' ? a.value + b.value : a.value - b.value, 'the sum')),
    );
  }

  function term() {
    return chain(unary, '*/', (op, a, b) => {
      if (op === '/') {
        if (b.value === 0) fail('division by zero');
        return plain(finite(a.value / b.value, 'the quotient'));
      }
      if (a.literal !== undefined && !/e/i.test(a.literal) && b.pow10 !== undefined)
        return plain(Number(`${a.literal}e${b.pow10}`));
      return plain(finite(a.value * b.value, 'the product'));
    });
  }

  function unary() {
    if (isOp(peek(), '-')) {
      pos += 1;
      if (isOp(peek(), '-')) fail('two minus signs in a row are not understood; use parentheses, e.g. -(-1)');
      return plain(-nest(power).value);
    }
    return power();
  }

  function power() {
    const base = primary();
    if (!isOp(peek(), '^')) return base;
    pos += 1;
    const exp = nest(unary);
    if (base.value === 10 && Number.isInteger(exp.value)) {
      const v = Number(`1e${exp.value}`);
      finite(v, 'the power');
      return { value: v, pow10: exp.value };
    }
    return plain(finite(base.value ** exp.value, 'the power'));
  }

  function primary() {
    const t = peek();
    if (!t) fail(`the expression ends too early: expected a number, "(" or sqrt( at the end`);
    if (t.kind === 'num') {
      pos += 1;
      return { value: finite(t.value, quote(t.text)), literal: t.text };
    }
    if (t.kind === 'name') {
      pos += 1;
      if (!isOp(peek(), '(')) fail(`expected "(" after sqrt, found ${where()}`);
      pos += 1;
      const inner = nest(expr);
      if (!isOp(peek(), ')')) fail(`expected ")" to close sqrt(, found ${where()}`);
      pos += 1;
      if (inner.value < 0) fail('the square root of a negative number is not a real number');
      return plain(Math.sqrt(inner.value));
    }
    if (isOp(t, '(')) {
      pos += 1;
      const inner = nest(expr);
      if (!isOp(peek(), ')')) fail(`expected ")" to close "(", found ${where()}`);
      pos += 1;
      return plain(inner.value);
    }
    fail(`${quote(t.text)} is not understood here: expected a number, "(" or sqrt(`);
  }

  const v = expr();
  if (pos < tokens.length) {
    const t = tokens[pos];
    fail(
      t.text === ')'
        ? `this ")" closes no "("`
        : `${quote(t.text)} is not understood after a complete expression (an operator is missing?)`,
    );
  }
  return v.value;
}

/**
 * Evaluates a safe arithmetic expression. Never throws.
 * @param {string} text
 * @returns {{ok: true, value: number} | {ok: false, error: string}}
 */
export function evaluate(text) {
  if (typeof text !== 'string') return { ok: false, error: 'the guess is not text' };
  if (text.length > MAX_LENGTH)
    return { ok: false, error: `the expression is too long (over ${MAX_LENGTH} characters)` };
  if (text.trim() === '') return { ok: false, error: 'the guess is empty' };
  try {
    return { ok: true, value: parse(tokenize(text)) };
  } catch (e) {
    if (e instanceof ExprError) return { ok: false, error: e.message };
    return { ok: false, error: 'the expression could not be read' };
  }
}
