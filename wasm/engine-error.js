// The one error of the engine: every refusal and failure of the JS API
// (wasm/resnorm.js) is an EngineError, and the page's engine client
// (web/src/engine/) passes it on unchanged, across its workers too.
//
//   e.field    the field it names ('depth', 'state', 'trainer', 'engine', ...), or null
//   e.code     'type'    a value of the wrong type                         (a TypeError)
//              'range'   a value its field does not allow                  (a RangeError)
//              'budget'  a value over the engine's memory or work budget   (a RangeError);
//                        e.max is the largest value of the field that fits (0 if none does)
//              'engine'  the engine or a trainer cannot answer: disposed, failed or deleted (an Error)
//   e.message  "<field>: <what is wrong>"
//
// `e instanceof EngineError` holds for each; so does `instanceof` the
// built-in kind in brackets, as for JS's own errors, so that code checking
// for a RangeError or a TypeError sees one. This module imports nothing, so a
// page can import it without the engine.

const KINDS = { type: TypeError, range: RangeError, budget: RangeError, engine: Error };

// One subclass of each kind; every EngineError is an instance of one of them.
const CLASSES = Object.fromEntries(
  Object.entries(KINDS).map(([code, Kind]) => {
    const C = class extends Kind {};
    Object.defineProperty(C, 'name', { value: 'EngineError' });
    return [code, C];
  }),
);

export class EngineError extends Error {
  /**
   * @param {'type'|'range'|'budget'|'engine'} code what kind of refusal (an unknown code is taken as 'range')
   * @param {string|null} field the field named, or null
   * @param {string} message what is wrong; "<field>: " is put in front unless it starts so
   * @param {number} [max] for 'budget', the largest value of the field that fits
   */
  constructor(code, field, message, max) {
    const known = Object.hasOwn(CLASSES, code) ? code : 'range';
    const name = field === null || field === undefined ? null : printable(field);
    // A constructor may return another object: the instance of the kind's subclass.
    const e = new CLASSES[known](name === null || message.startsWith(`${name}: `) ? message : `${name}: ${message}`);
    e.code = known;
    e.field = field ?? null;
    if (Number.isFinite(max)) e.max = max;
    return e;
  }

  static [Symbol.hasInstance](e) {
    return Object.values(CLASSES).some((C) => e instanceof C);
  }
}

/**
 * An error as a worker posts it, {code, field, message, max} (structured
 * clone keeps no class and no own property); errorFromData() rebuilds it. Any
 * other error thrown in the worker crosses as a 'range' one.
 */
export function errorData(e) {
  return {
    code: e instanceof EngineError ? e.code : 'range',
    field: e?.field ?? null,
    message: e?.message ?? String(e),
    max: Number.isFinite(e?.max) ? e.max : null,
  };
}

/** The EngineError a worker's errorData() describes. */
export function errorFromData(data) {
  return new EngineError(data?.code, data?.field ?? null, data?.message || 'the engine failed', data?.max);
}

/** What a message may show of a value: 40 characters, control characters as '?'. */
export function printable(value) {
  const s = String(value);
  return s.slice(0, 40).replace(/[^\x20-\x7e]/g, '?') + (s.length > 40 ? '...' : '');
}
