// Seeded randomness for the quizzes: the same seed gives the same question, in the browser and in
// Node, so tests are deterministic and a question can be re-created from its seed.
//
// mulberry32 (Tommy Ettinger's 32-bit generator): one 32-bit state, period 2^32, plenty for
// shuffling a few dozen items or drawing a config. Not for anything security related.

/**
 * A seed as a uint32: numbers are truncated to 32 bits, strings hashed (FNV-1a), anything else is 0.
 * @param {number|string} seed
 * @returns {number} integer in 0..2^32-1
 */
export function seedToUint32(seed) {
  if (typeof seed === 'number' && Number.isFinite(seed)) return Math.trunc(seed) >>> 0;
  if (typeof seed === 'string') {
    let h = 0x811c9dc5;
    for (let i = 0; i < seed.length; i++) {
      h ^= seed.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    return h >>> 0;
  }
  return 0;
}

/**
 * A generator of floats in [0, 1).
 * @param {number|string} seed
 * @returns {() => number}
 */
export function mulberry32(seed) {
  let a = seedToUint32(seed);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in lo..hi (both included), from a generator `rand`. */
export function randInt(rand, lo, hi) {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

/** One element of a non-empty array. */
export function pick(rand, array) {
  return array[Math.floor(rand() * array.length)];
}

/**
 * A shuffled copy (Fisher-Yates); the input is not modified.
 * @template T
 * @param {T[]} array
 * @param {() => number} rand
 * @returns {T[]}
 */
export function shuffled(array, rand) {
  const out = array.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
