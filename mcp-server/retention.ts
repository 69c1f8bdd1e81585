import type { Baton } from '../shared/baton.js';

/** How often a running server applies retention again. */
export const RETENTION_INTERVAL_MS = 24 * 60 * 60_000;

export interface Retention {
  stop(): Promise<void>;
}

/** Transactions one turn runs at most: a day of eight busy agents is well within it. */
export const RETENTION_TURN_RUNS = 200;

/**
 * Applies retention (`Baton.pruneIfDue`, the `historyDays` setting) once at start and then
 * daily, in the background: transactions of a bounded size one after another until
 * nothing is due (or `RETENTION_TURN_RUNS`), so that no write waits long behind one and
 * a busy day's history is still cleared in one turn. A failure is logged and tried again
 * at the next turn.
 */
export function startRetention(baton: Baton, log: (line: string) => void, intervalMs = RETENTION_INTERVAL_MS): Retention {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const turn = async () => {
    for (let n = 0; n < RETENTION_TURN_RUNS && !stopped; n++) {
      const pruned = await baton.pruneIfDue();
      if (!pruned.ok) return log(`baton: retention failed: ${pruned.error.message}`);
      if (!pruned.value.more) return;
    }
  };
  const run = () => {
    running = turn().catch((error: unknown) => log(`baton: retention failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  run();
  const timer = setInterval(run, intervalMs).unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
