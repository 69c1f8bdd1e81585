import { sleep } from '../../helpers/wait.js';

export { sleep };

/**
 * A small sequential test runner for the extension host: one behaviour per test, each
 * with its own time limit, then the teardowns, which run however the tests went.
 */

interface Case {
  name: string;
  fn: () => Promise<void>;
  timeoutMs: number;
}

const cases: Case[] = [];
const teardowns: Case[] = [];

export function test(name: string, fn: () => Promise<void>, timeoutMs = 20_000): void {
  cases.push({ name, fn, timeoutMs });
}

/** Registers clean-up to run once every test has run, passed or failed; a failing one counts as a failure. */
export function suiteTeardown(name: string, fn: () => Promise<void>, timeoutMs = 20_000): void {
  teardowns.push({ name, fn, timeoutMs });
}

/** Runs `c` within its time limit: undefined when it passed, else what went wrong. */
async function attempt(c: Case): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      c.fn(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${c.timeoutMs} ms`)), c.timeoutMs))),
    ]);
    return undefined;
  } catch (error) {
    return error ?? new Error('failed');
  } finally {
    clearTimeout(timer);
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Runs every test in order, then every teardown; a test that fails does not stop the next. Resolves to the number failed. */
export async function runAll(): Promise<number> {
  let passed = 0;
  let failed = 0;
  for (const c of cases) {
    const started = Date.now();
    const error = await attempt(c);
    if (error === undefined) {
      passed++;
      console.log(`  ✓ ${c.name} (${Date.now() - started} ms)`);
    } else {
      failed++;
      console.log(`  ✗ ${c.name} (${Date.now() - started} ms)\n      ${describeError(error)}`);
    }
  }
  for (const t of teardowns) {
    const error = await attempt(t);
    if (error === undefined) continue;
    failed++;
    console.log(`  ✗ teardown: ${t.name}\n      ${describeError(error)}`);
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
