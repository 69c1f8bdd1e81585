import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** How long a claim waits for `git worktree list` before it answers without a way to continue. */
export const GIT_WORKTREE_TIMEOUT_MS = 5_000;

/** One worktree of a repository as `git worktree list --porcelain` gives it. */
export interface WorktreeEntry {
  path: string;
  head: string | null;
  /** The branch checked out (without `refs/heads/`), or null when detached or bare. */
  branch: string | null;
}

/** Parses `git worktree list --porcelain -z`: attribute lines, one worktree per blank-separated block. */
export function parseWorktreeList(out: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) {
      current = { path: field.slice('worktree '.length), head: null, branch: null };
      entries.push(current);
    } else if (current && field.startsWith('HEAD ')) current.head = field.slice('HEAD '.length);
    else if (current && field.startsWith('branch refs/heads/')) current.branch = field.slice('branch refs/heads/'.length);
  }
  return entries;
}

/** The worktrees of the repository at `cwd`, or null when git cannot tell in time. */
export async function listWorktrees(cwd: string, timeoutMs = GIT_WORKTREE_TIMEOUT_MS): Promise<WorktreeEntry[] | null> {
  try {
    const { stdout } = await run('git', ['worktree', 'list', '--porcelain', '-z'], { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 });
    return parseWorktreeList(stdout);
  } catch {
    return null;
  }
}

/** The same folder, however it was spelled (a symlinked temporary folder, say). */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync.native(a) === realpathSync.native(b);
  } catch {
    return false;
  }
}

/** A shell word: single-quoted unless it needs no quoting. */
export function shellWord(value: string): string {
  return /^[\w./@:+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
