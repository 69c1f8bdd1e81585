import type { Baton } from '../shared/baton.js';

/** How often a running server applies retention again. */
export const RETENTION_INTERVAL_MS = 24 * 60 * 60_000;

export interface Retention {
  stop(): Promise<void>;
}

/**
 * Applies retention (`Baton.prune`, the `historyDays` setting) once at start and then
 * daily, one bounded run each time, so a server's start never waits on a large backlog:
 * whatever is left goes at the next start or day, or with `baton prune`. A failure is
 * logged and tried again at the next turn.
 */
export function startRetention(baton: Baton, log: (line: string) => void, intervalMs = RETENTION_INTERVAL_MS): Retention {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = baton.prune().then(
      (pruned) => {
        if (!pruned.ok) log(`baton: retention failed: ${pruned.error.message}`);
      },
      (error: unknown) => log(`baton: retention failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  run();
  const timer = setInterval(run, intervalMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
