// A generated question of one of several kinds, drawn from a seed and answered
// by the engine: the kinds' table gives each kind's draw(rand) of its
// parameters and ask(engine, params), which runs the engine and returns the
// prompt, the choices, the key, the numbers and the explanation. The norm
// questions (generated-norms.js) and the newer architectures' (generated-archs.js)
// are two such tables.
import { mulberry32, pick } from './random.js';

/**
 * @param {object} kinds id -> {draw(rand), ask(engine, params)}
 * @param {object} engine what the kinds' ask() calls
 * @param {{seed?: number|string, kind?: string}} [options] kind: one of the table's ids (drawn from the seed when omitted)
 * @returns {Promise<{kind, seed, params, prompt: string, choices: {id, label}[], answer: string,
 *   numbers: object, explanation: string, check: (choice: string) => {correct, given, answer, message}}>}
 */
export async function kindQuestion(kinds, engine, { seed = 0, kind } = {}) {
  const ids = Object.keys(kinds);
  const rand = mulberry32(seed);
  const id = kind === undefined ? pick(rand, ids) : kind;
  const spec = Object.hasOwn(kinds, id) ? kinds[id] : null;
  if (!spec) throw new RangeError(`unknown kind ${JSON.stringify(String(id))} (known: ${ids.join(', ')})`);
  const params = spec.draw(rand);
  const q = await spec.ask(engine, params);
  const label = (c) => q.choices.find((x) => x.id === c)?.label ?? String(c);
  return {
    kind: id,
    seed,
    params,
    prompt: q.prompt,
    choices: q.choices,
    answer: q.key,
    numbers: q.numbers,
    explanation: q.explanation,
    check(choice) {
      const correct = choice === q.key;
      return {
        correct,
        given: choice ?? null,
        answer: q.key,
        message: correct
          ? `Right: the engine’s numbers say “${label(q.key)}”.`
          : `Not quite: the engine’s numbers say “${label(q.key)}”${choice ? `, not “${label(choice)}”` : ''}.`,
      };
    },
  };
}
