import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Disposable } from '../../extension/model/emitter.js';
import { watchDatabase } from '../../extension/watchDatabase.js';
import { sleep } from '../helpers/wait.js';

const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));

function watched(): { dir: string; db: string; changes: () => number } {
  const root = mkdtempSync(join(tmpdir(), 'baton-watch-'));
  const dir = join(root, 'baton');
  const db = join(dir, 'baton.db');
  mkdirSync(dir);
  let changes = 0;
  const watcher: Disposable = watchDatabase({ dbPath: db }, () => changes++, 50);
  cleanup.push(() => watcher.dispose(), () => rmSync(root, { recursive: true, force: true }));
  return { dir, db, changes: () => changes };
}

describe('watchDatabase', () => {
  it('wakes the model when the database or its log is written', async () => {
    const w = watched();
    writeFileSync(`${w.db}-log`, 'x');
    await vi.waitFor(() => expect(w.changes()).toBeGreaterThan(0), { timeout: 1000 });
  });

  it('watches the folder again after it was deleted and made anew', async () => {
    const w = watched();
    rmSync(w.dir, { recursive: true });
    mkdirSync(w.dir);
    await sleep(300);
    const before = w.changes();
    writeFileSync(w.db, 'new database');
    await vi.waitFor(() => expect(w.changes()).toBeGreaterThan(before), { timeout: 1000 });
  });
});
