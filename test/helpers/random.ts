import { randomInt } from 'node:crypto';
import { seeded } from '../../bench/generate.js';

/**
 * Random numbers for a test that draws them, from a seed it prints: a failure found on
 * one run can be replayed with `BATON_TEST_SEED=<seed>`. The seed fixes the draws, not
 * the order in which concurrent processes take them.
 */
export function seededRandom(what: string): () => number {
  const given = process.env.BATON_TEST_SEED;
  const seed = given === undefined ? randomInt(2 ** 31) : Number(given);
  if (!Number.isInteger(seed)) throw new Error(`BATON_TEST_SEED must be an integer, not ${given}`);
  console.error(`${what}: seed ${seed} (BATON_TEST_SEED=${seed} draws the same numbers)`);
  return seeded(seed);
}
