import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Disposable } from './model/emitter.js';

/** How often to look again for a folder that does not exist yet, or a new database path. */
const REARM_MS = 2000;

/**
 * Wakes the model as soon as another process writes the database (the snapshot is
 * renamed over, the operation log grows), so changes show in tens of milliseconds;
 * the model's version poll remains the guarantee when a file system sends no events.
 */
export function watchDatabase(source: { readonly dbPath: string | null }, onChange: () => void): Disposable {
  let watcher: FSWatcher | undefined;
  let watched: string | null = null;
  const arm = (): void => {
    const db = source.dbPath;
    if (db === watched && watcher) return;
    watcher?.close();
    watcher = undefined;
    watched = null;
    if (db === null || !existsSync(dirname(db))) return;
    const names = new Set([basename(db), `${basename(db)}-log`]);
    try {
      watcher = watch(dirname(db), (_event, name) => {
        if (name === null || names.has(String(name))) onChange();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
      watched = db;
    } catch {
      watcher = undefined;
    }
  };
  arm();
  const timer = setInterval(arm, REARM_MS);
  return {
    dispose: () => {
      clearInterval(timer);
      watcher?.close();
    },
  };
}
