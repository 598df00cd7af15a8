/**
 * The seed of a randomised test. `npm test` runs a fixed seed, so a run repeats the one before
 * it and a red run is not a roll of the dice; `npm run soak` sweeps many through TEST_SEED; the
 * test's own variable (SYNC_SEED=…, printed with every run) replays one exactly.
 */
export interface Seeded {
  seed: number;
  /** Uniform in [0, 1). */
  rand: () => number;
  pick: <T>(xs: readonly T[]) => T;
  /** How to rerun this seed: `SYNC_SEED=17`. */
  replay: string;
}

/** The seed `npm test` runs when nothing names one. */
export const FIXED_SEED = 1;

export function seeded(variable: string, env: NodeJS.ProcessEnv = process.env): Seeded {
  const named = env[variable] ?? env.TEST_SEED;
  const seed = named === undefined || named === '' ? FIXED_SEED : Number(named);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`${variable}: not a seed: ${named}`);
  const rand = xorshift32(seed);
  return { seed, rand, pick: (xs) => xs[Math.floor(rand() * xs.length)]!, replay: `${variable}=${seed}` };
}

/** xorshift32: small, seedable, and good enough to shake out edge cases. */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}
