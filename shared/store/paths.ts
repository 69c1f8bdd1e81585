import { basename, dirname, resolve } from 'node:path';

/** Every file the store keeps for one database, all named after it so they travel together. */
export interface StorePaths {
  /** The snapshot: a real SQLite file any sqlite3 tool can open. */
  readonly snapshot: string;
  /** The append-only operation log replayed on top of the snapshot. */
  readonly log: string;
  /** The folder of the cross-process lock (owner file, queue tickets, break lock). */
  readonly lockDir: string;
  /** Where the server that writes for the others listens (see shared/forwarding). */
  readonly socket: string;
  /** The sealed answers of forwarded writes, until their callers have them. */
  readonly answers: string;
  /** The folder holding all of them. */
  readonly dir: string;
  /** File-name prefix of temporary files, so leftovers of killed writers can be found. */
  readonly tmpPrefix: string;
}

/** The files of the database at `path` (made absolute). */
export function storePaths(path: string): StorePaths {
  const snapshot = resolve(path);
  return {
    snapshot,
    log: `${snapshot}-log`,
    lockDir: `${snapshot}.lock`,
    socket: `${snapshot}.sock`,
    answers: `${snapshot}.answers`,
    dir: dirname(snapshot),
    tmpPrefix: `${basename(snapshot)}.tmp-`,
  };
}
