import { statSync } from 'node:fs';
import { storePaths } from '../../shared/store/paths.js';

/** What tells one version of a file from another (cheaply, at every poll), or 'none'. */
export function fileStamp(file: string | null): string {
  const stat = file === null ? undefined : statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : 'none';
}

/**
 * The version of a database another process writes, told from its files without reading
 * them: every commit appends to the operation log (its size and times change) and a
 * compaction renames a new snapshot and log into place (their inodes change). It costs
 * two `stat`s, where asking the writer would cost it a request at every poll.
 */
export function databaseFilesStamp(dbPath: string): string {
  const paths = storePaths(dbPath);
  return `${fileStamp(paths.snapshot)}/${fileStamp(paths.log)}`;
}
