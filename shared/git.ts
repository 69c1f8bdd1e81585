import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { GitState } from './types.js';

const run = promisify(execFile);

/**
 * How long a checkpoint waits for `git status` (a huge worktree, a hung file system)
 * before it records no git state rather than keep its agent waiting.
 */
export const GIT_STATUS_TIMEOUT_MS = 10_000;

/**
 * HEAD, branch and changed paths of a worktree, read with one `git status` call, or null
 * when it cannot be read (no commits yet, git missing, too slow). Recorded on every checkpoint.
 */
export async function readGitState(worktree: string, timeoutMs = GIT_STATUS_TIMEOUT_MS): Promise<GitState | null> {
  try {
    const { stdout } = await run('git', ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all'], {
      cwd: worktree,
      maxBuffer: 16 * 1024 * 1024,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    return parseStatus(stdout);
  } catch {
    return null;
  }
}

/** Parses `git status --porcelain=v2 --branch -z`. */
export function parseStatus(out: string): GitState | null {
  const fields = out.split('\0');
  let head: string | null = null;
  let branch: string | null = null;
  const dirty: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.startsWith('# branch.oid ')) head = f.slice('# branch.oid '.length);
    else if (f.startsWith('# branch.head ')) {
      const name = f.slice('# branch.head '.length);
      branch = name === '(detached)' ? null : name;
    } else if (f.startsWith('1 ')) dirty.push(f.split(' ').slice(8).join(' '));
    else if (f.startsWith('2 ')) {
      dirty.push(f.split(' ').slice(9).join(' '));
      i++; // the original path of a rename follows in its own field
    } else if (f.startsWith('u ')) dirty.push(f.split(' ').slice(10).join(' '));
    else if (f.startsWith('? ')) dirty.push(f.slice(2));
  }
  if (!head || head === '(initial)') return null;
  return { head, branch, dirty };
}
