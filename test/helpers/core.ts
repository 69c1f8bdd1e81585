import type { Baton } from '../../shared/baton.js';
import { ManualClock } from '../../shared/clock.js';
import type { BatonConfig } from '../../shared/config.js';
import { openBaton, type Opened } from '../../shared/open.js';
import type { Result } from '../../shared/result.js';
import type { Store } from '../../shared/store/store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { openFileStore } from '../../shared/store/file/index.js';
import { type SessionOptions, sessionsOn } from './harness-sessions.js';

/** One database, a hand-moved clock, and as many sessions of as many agents as a test needs. */
export interface Harness {
  clock: ManualClock;
  store: Store;
  /** The database file; its operation log and lock are named after it. */
  dbPath: string;
  session(agent: string, options?: SessionOptions): Baton;
}

/** A harness for the test that makes it: its store is closed and its folder removed after. */
export async function harness(config: Partial<BatonConfig> = {}): Promise<Harness> {
  const h = await openHarness(config);
  onTestFinished(() => h.close());
  return h;
}

/** A harness that lasts until its `close`, for a file's tests to share (made in `beforeAll`). */
export async function openHarness(config: Partial<BatonConfig> = {}): Promise<Harness & { close(): Promise<void> }> {
  const clock = new ManualClock();
  const dir = mkdtempSync(join(tmpdir(), 'baton-core-'));
  const dbPath = join(dir, 'baton.db');
  const store = await openFileStore({ path: dbPath, clock });
  const close = async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { clock, store, dbPath, session: sessionsOn(store, config), close };
}

/** The value of a result the test expects to succeed; fails the test with the refusal otherwise. */
export function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** The refusal of a result the test expects to be refused. */
export function refusal<T>(result: Result<T>) {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value).slice(0, 300)}`);
  return result.error;
}

export const MINUTE = 60_000;

/**
 * Opens the database of the repository at `cwd` as `agent`, as the CLI and the server do;
 * the store joins `opened`, for the test to close.
 */
export async function openAgent(cwd: string, agent: string, env: NodeJS.ProcessEnv, opened: { close(): Promise<void> }[]): Promise<Opened> {
  const result = await openBaton({ cwd, env, caller: { agent } });
  if (!result.ok) throw new Error(result.error.message);
  opened.push(result.value.store);
  return result.value;
}
