/**
 * Runs `step` at once and then every `ms` (a number, or asked again after each step)
 * until SIGINT or SIGTERM, then returns so the caller can close what it opened. A
 * signal during a wait ends the wait at once.
 */
export async function untilInterrupted(ms: number | (() => number), step: (tick: number) => Promise<void>): Promise<void> {
  let stopped = false;
  let wake = (): void => {};
  const stop = (): void => {
    stopped = true;
    wake();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for (let tick = 0; !stopped; tick++) {
      await step(tick);
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, typeof ms === 'number' ? ms : ms());
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
