import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small memory file system mounted for one test: a real read-only folder or full disk, even for root. */
export interface Tmpfs {
  dir: string;
  /** Remounts read-only or read-write (files open for writing make a read-only remount fail). */
  readOnly(on: boolean): void;
  remove(): void;
}

/** Mounts a tmpfs of `sizeKb`, or answers null where this process may not mount (then tests inject faults instead). */
export function mountTmpfs(sizeKb: number): Tmpfs | null {
  const dir = mkdtempSync(join(tmpdir(), 'baton-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    readOnly: (on) => execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir], { stdio: 'pipe' }),
    remove: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether tmpfs mounts work here, checked once. */
export const canMount: boolean = (() => {
  const probe = mountTmpfs(64);
  probe?.remove();
  return probe !== null;
})();
