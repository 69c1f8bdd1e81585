import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail, ok, type Result } from '../result.js';
import { runGit, gitMessage } from './git-run.js';

/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  /** Absolute path, symlinks resolved where it exists (leases and sessions record real paths). */
  path: string;
  /** HEAD commit, or null in a repository without commits. */
  head: string | null;
  /** Short branch name (`main`, `baton/bat-3-login`), or null when detached or bare. */
  branch: string | null;
  /** The first entry: the main worktree, which no command removes. */
  main: boolean;
  bare: boolean;
  /** The lock reason (`''` for a lock without one), or null when not locked. */
  locked: string | null;
  /** Why git would prune it (its folder is gone), or null. */
  prunable: string | null;
}

/**
 * Every worktree of the repository around `cwd`, main first, as git lists them;
 * `INVALID_INPUT` outside a git repository (or where git cannot list them).
 */
export async function listWorktrees(cwd: string): Promise<Result<WorktreeEntry[]>> {
  const out = await runGit(cwd, ['worktree', 'list', '--porcelain', '-z']);
  if (out.code !== 0) return fail('INVALID_INPUT', `${cwd} is not in a git repository (git worktree list: ${gitMessage(out)})`, { cwd });
  const entries = parseWorktreeList(out.stdout);
  if (entries.length === 0) return fail('INVALID_INPUT', `${cwd} is not in a git repository`, { cwd });
  return ok(entries);
}

/** Parses `git worktree list --porcelain -z`: attributes end in NUL, entries in an empty attribute. */
export function parseWorktreeList(out: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const field of out.split('\0')) {
    if (field === '') {
      current = null;
      continue;
    }
    const space = field.indexOf(' ');
    const name = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? '' : field.slice(space + 1);
    if (name === 'worktree') {
      current = { path: realPath(value), head: null, branch: null, main: entries.length === 0, bare: false, locked: null, prunable: null };
      entries.push(current);
    } else if (!current) continue;
    else if (name === 'HEAD') current.head = /^0+$/.test(value) ? null : value;
    else if (name === 'branch') current.branch = value.replace(/^refs\/heads\//, '');
    else if (name === 'bare') current.bare = true;
    else if (name === 'locked') current.locked = value;
    else if (name === 'prunable') current.prunable = value || 'gone';
  }
  return entries;
}

/** The real path of a folder that exists; the path as given (made absolute) otherwise. */
export function realPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}
