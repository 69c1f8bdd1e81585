/**
 * Waiting in tests. Wait for an event (`waitFor`) rather than for a time: a negative
 * checked after a fixed `sleep` passes without testing anything on a slow machine, so a
 * test that must show something did not happen also shows, in the same window, that
 * something which could have happened did (a positive control).
 */

/** Resolves after `ms` milliseconds: for pacing, never as the only proof that something did not happen. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every 20 ms until it holds, or rejects after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}
