import { performance } from 'node:perf_hooks';
import { StoreUnavailableError } from '../../errors.js';
import { classifyFailure, describeFailure } from './failures.js';

/** How long the store keeps trying to reach a server that does not answer. */
export interface ConnectRetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; each later wait doubles it. */
  firstDelayMs: number;
  /** No new try starts once this much time has passed since the first. */
  budgetMs: number;
}

/** A few tries over a few seconds: long enough to ride out a server restart or failover. */
export const DEFAULT_CONNECT_RETRY: ConnectRetryPolicy = { attempts: 4, firstDelayMs: 200, budgetMs: 5_000 };

/**
 * Runs `op`, trying again while it fails to reach the server, then gives up with
 * `StoreUnavailableError`. A server that answers with a refusal (password, missing
 * database) is unavailable at once; any other failure is raised as it is.
 * `op` must be safe to repeat: it only ever runs whole transactions or reads.
 */
export async function withConnectRetries<T>(
  op: () => Promise<T>,
  location: string,
  policy: ConnectRetryPolicy = DEFAULT_CONNECT_RETRY,
): Promise<T> {
  // The monotonic clock: a wall clock stepped by NTP must not stretch or cut the budget.
  const started = performance.now();
  let delay = policy.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      const kind = classifyFailure(err);
      if (kind === 'refused') throw new StoreUnavailableError(location, describeFailure(err));
      if (kind !== 'connection') throw err;
      const elapsed = performance.now() - started;
      if (attempt >= policy.attempts || elapsed + delay > policy.budgetMs) {
        const seconds = (elapsed / 1000).toFixed(1);
        throw new StoreUnavailableError(
          location,
          `cannot reach the server (${attempt} tries over ${seconds} s): ${describeFailure(err)}`,
        );
      }
      // Jitter keeps the processes of a team from reconnecting in lockstep.
      await sleep(delay * (0.75 + Math.random() / 2));
      delay *= 2;
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
