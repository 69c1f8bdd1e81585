import { randomBytes } from 'node:crypto';

/** Where time comes from; tests pass a clock they move by hand. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Where randomness comes from (tokens, session ids); tests may pass a seeded one. */
export interface RandomSource {
  bytes(n: number): Buffer;
}

export const systemClock: Clock = { now: () => Date.now() };
export const systemRandom: RandomSource = { bytes: (n) => randomBytes(n) };

/** A clock for tests: starts at `start` and moves only when told. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
