import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Disposable } from './model/emitter.js';

/** How often to look again for a folder that does not exist yet, was made anew, or a new database path. */
const REARM_MS = 2000;

/**
 * Wakes the model as soon as another process writes the database (the snapshot is
 * renamed over, the operation log grows), so changes show in tens of milliseconds;
 * the model's version poll remains the guarantee when a file system sends no events.
 */
export function watchDatabase(source: { readonly dbPath: string | null }, onChange: () => void, rearmMs = REARM_MS): Disposable {
  let watcher: FSWatcher | undefined;
  let watched: { db: string; folder: string } | undefined;
  const close = (): void => {
    watcher?.close();
    watcher = undefined;
    watched = undefined;
  };
  const arm = (): void => {
    const db = source.dbPath;
    // A watcher follows the folder it was opened on: once that folder is deleted it sees
    // nothing of one made again at the same path, so the folder's identity is checked too.
    const folder = db === null ? undefined : folderId(dirname(db));
    if (watcher && watched && db === watched.db && folder === watched.folder) return;
    close();
    if (db === null || folder === undefined) return;
    const names = new Set([basename(db), `${basename(db)}-log`]);
    const own = basename(dirname(db));
    try {
      watcher = watch(dirname(db), (_event, name) => {
        if (name === null || names.has(String(name))) onChange();
        // The folder itself went (its own name is reported): let the next round watch the new one.
        else if (String(name) === own && watched && folderId(dirname(watched.db)) !== watched.folder) close();
      });
      watcher.on('error', close);
      watched = { db, folder };
    } catch {
      close();
    }
  };
  arm();
  const timer = setInterval(arm, rearmMs);
  return {
    dispose: () => {
      clearInterval(timer);
      close();
    },
  };
}

/**
 * Tells a folder from one made again at the same path, or undefined when there is none.
 * The inode alone does not: a folder deleted and made again often gets the same one back.
 */
function folderId(path: string): string | undefined {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat?.isDirectory() ? `${stat.ino}:${stat.birthtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}
