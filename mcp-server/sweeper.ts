import { SWEEP_BATCH } from '../shared/baton.js';

/** How often each server clears expired leases: well inside the protocol's 60 s. */
export const DEFAULT_SWEEP_MS = 15_000;
export const SWEEP_MS_MIN = 10;
export const SWEEP_MS_MAX = 60_000;
// Expired leases cleared per tick (the core's batch); a full tick is followed at once by another.
export { SWEEP_BATCH };

export interface Sweeper {
  /** Stops the timer and waits for a tick under way, so the process exits with nothing half done. */
  stop(): Promise<void>;
}

/**
 * Runs `sweep(limit)` every `intervalMs`, never two at once. It returns how many leases it
 * cleared; a tick that hit the limit is followed immediately by the next. The timer does
 * not keep the process alive.
 */
export function startSweeper(options: {
  intervalMs: number;
  sweep: (limit: number) => Promise<number>;
  onError: (error: unknown) => void;
}): Sweeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(tick, delay);
    timer.unref();
  };
  const tick = () => {
    running = options
      .sweep(SWEEP_BATCH)
      .then(
        (cleared) => schedule(cleared >= SWEEP_BATCH ? 0 : options.intervalMs),
        (error) => {
          options.onError(error);
          schedule(options.intervalMs);
        },
      )
      .finally(() => {
        running = undefined;
      });
  };

  schedule(options.intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** `BATON_SWEEP_MS`: the sweep interval in milliseconds, or an error naming the setting. */
export function sweepInterval(env: NodeJS.ProcessEnv): { ok: true; value: number } | { ok: false; message: string } {
  const raw = env.BATON_SWEEP_MS;
  if (raw === undefined || raw.trim() === '') return { ok: true, value: DEFAULT_SWEEP_MS };
  const value = Number(raw);
  if (!Number.isInteger(value) || value < SWEEP_MS_MIN || value > SWEEP_MS_MAX) {
    return {
      ok: false,
      message: `setting BATON_SWEEP_MS must be a whole number of milliseconds from ${SWEEP_MS_MIN} to ${SWEEP_MS_MAX}, not ${JSON.stringify(raw)}`,
    };
  }
  return { ok: true, value };
}
