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
  const deadline = Date.now() + timeoutMs;
  let state: GitState | null;
  try {
    const { stdout } = await run('git', ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all'], {
      cwd: worktree,
      maxBuffer: 16 * 1024 * 1024,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    state = parseStatus(stdout);
  } catch {
    return null;
  }
  if (!state) return null;
  const changed = await branchChanges(worktree, deadline - Date.now());
  return changed === null ? state : { ...state, changed };
}

/** Past this many paths a branch's changes are not recorded: a checkpoint stays small, and overlaps stay meaningful. */
export const BRANCH_PATHS_MAX = 2_000;

/** The branch a worktree's work is compared with: origin's default branch, else `main`, else `master`. */
const DEFAULT_BRANCHES = ['refs/remotes/origin/HEAD', 'refs/heads/main', 'refs/heads/master'];

/**
 * The paths HEAD changed since its merge base with the default branch (`git diff
 * <default>...HEAD`), within what is left of the checkpoint's wait for git; null when
 * there is no default branch, git is too slow, or the branch changed more than
 * `BRANCH_PATHS_MAX` paths.
 */
export async function branchChanges(worktree: string, timeoutMs: number): Promise<string[] | null> {
  if (timeoutMs <= 0) return null;
  const deadline = Date.now() + timeoutMs;
  const options = { cwd: worktree, timeout: timeoutMs, killSignal: 'SIGKILL' as const, maxBuffer: 4 * 1024 * 1024 };
  try {
    const refs = (await run('git', ['for-each-ref', '--format=%(refname)', ...DEFAULT_BRANCHES], options)).stdout.split('\n');
    const base = DEFAULT_BRANCHES.find((ref) => refs.includes(ref));
    const left = deadline - Date.now();
    if (!base || left <= 0) return null;
    const { stdout } = await run('git', ['diff', '--name-only', '--no-renames', '-z', `${base}...HEAD`, '--'], { ...options, timeout: left });
    const paths = stdout.split('\0').filter(Boolean);
    return paths.length > BRANCH_PATHS_MAX ? null : paths;
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
