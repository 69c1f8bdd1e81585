/** A small sequential test runner for the extension host: one behaviour per test, each with its own time limit. */

interface Case {
  name: string;
  fn: () => Promise<void>;
  timeoutMs: number;
}

const cases: Case[] = [];

export function test(name: string, fn: () => Promise<void>, timeoutMs = 20_000): void {
  cases.push({ name, fn, timeoutMs });
}

/** Runs every test in order; a test that fails does not stop the next. Resolves to the number failed. */
export async function runAll(): Promise<number> {
  let passed = 0;
  let failed = 0;
  for (const c of cases) {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        c.fn(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${c.timeoutMs} ms`)), c.timeoutMs))),
      ]);
      passed++;
      console.log(`  ✓ ${c.name} (${Date.now() - started} ms)`);
    } catch (error) {
      failed++;
      console.log(`  ✗ ${c.name} (${Date.now() - started} ms)\n      ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed;
}

/** Resolves with the first truthy value of `probe`, checked every `everyMs`; rejects after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs: number, everyMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await sleep(everyMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
