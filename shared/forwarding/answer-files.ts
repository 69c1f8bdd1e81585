import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, nodeFileSystem, unlinkIfPresent } from '../store/file/file-system.js';

/**
 * The sealed answers of forwarded writes, one file per request id, in a folder beside
 * the database that only its owner can read.
 */
export class AnswerFiles {
  constructor(private readonly dir: string) {}

  write(id: string, sealed: Buffer): void {
    const path = join(this.dir, id);
    try {
      writeFileSync(path, sealed, { mode: 0o600 });
    } catch (error) {
      // The folder is made by the first answer only: every forwarded write passes here.
      if (errnoCode(error) !== 'ENOENT') throw error;
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileSync(path, sealed, { mode: 0o600 });
    }
  }

  read(id: string): Buffer | undefined {
    try {
      return readFileSync(join(this.dir, id));
    } catch {
      return undefined;
    }
  }

  /** Each forwarded write that records removes one: `unlink` alone, half the cost of `rmSync`. */
  remove(ids: readonly string[]): void {
    for (const id of ids) unlinkIfPresent(nodeFileSystem, join(this.dir, id));
  }

  /** Removes answers older than `ms`: left by a writer that died before its record committed. */
  removeOlderThan(ms: number, now = Date.now()): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(this.dir, name);
      try {
        if (now - statSync(path).mtimeMs > ms) unlinkIfPresent(nodeFileSystem, path);
      } catch {
        // Removed meanwhile.
      }
    }
  }
}
