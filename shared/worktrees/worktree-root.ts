import { basename, dirname, join, resolve } from 'node:path';

/** What a worktree's name may be: a folder name and a branch name in every file system. */
export const WORKTREE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The folder new worktrees go in: `.baton.json`'s `worktreeRoot`, relative to the main
 * worktree (or absolute); by default `<parent>/<repo>-worktrees` beside the main worktree,
 * outside it, so that no tool of the main worktree walks into the others.
 */
export function worktreeRoot(mainWorktree: string, configured: string | null): string {
  if (configured !== null) return resolve(mainWorktree, configured);
  const name = basename(mainWorktree).replace(/\.git$/, '') || 'repo';
  return join(dirname(mainWorktree), `${name}-worktrees`);
}

/** Why a name cannot be a worktree's, or null when it can. */
export function badWorktreeName(name: string): string | null {
  if (!WORKTREE_NAME.test(name)) return `"${name}" is not a worktree name: 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`;
  if (name.endsWith('.lock') || name.includes('..')) return `"${name}" is not a worktree name: git branch names cannot end in ".lock" or hold ".."`;
  return null;
}
