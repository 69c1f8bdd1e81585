import { runGit } from './git-run.js';

/** The branch work is merged into, and the refs that stand for it. */
export interface DefaultBranch {
  /** Its short name: `main`. */
  name: string;
  /**
   * The refs a commit is "merged" when reachable from: the local branch and origin's copy
   * of it, those that exist. Either keeps the commits, so either makes a worktree's branch
   * safe to remove.
   */
  refs: string[];
}

/**
 * The default branch (docs/protocol.md "Worktrees"): the one `refs/remotes/origin/HEAD`
 * points to when set (what `git clone` records), else `init.defaultBranch`, `main` or
 * `master`, the first that exists as a local branch. Null when none does.
 */
export async function defaultBranch(cwd: string): Promise<DefaultBranch | null> {
  const originHead = await runGit(cwd, ['symbolic-ref', '-q', 'refs/remotes/origin/HEAD']);
  const remote = originHead.code === 0 ? originHead.stdout.trim() : '';
  if (remote.startsWith('refs/remotes/origin/')) {
    const name = remote.slice('refs/remotes/origin/'.length);
    const refs = await existing(cwd, [`refs/heads/${name}`, remote]);
    if (refs.length) return { name, refs };
  }
  const configured = await runGit(cwd, ['config', '--get', 'init.defaultBranch']);
  const names = [...new Set([configured.code === 0 ? configured.stdout.trim() : '', 'main', 'master'].filter(Boolean))];
  for (const name of names) {
    const refs = await existing(cwd, [`refs/heads/${name}`]);
    if (refs.length) return { name, refs: await existing(cwd, [`refs/heads/${name}`, `refs/remotes/origin/${name}`]) };
  }
  return null;
}

/** The refs of `refs` that exist, in the same order. */
async function existing(cwd: string, refs: string[]): Promise<string[]> {
  const out = await runGit(cwd, ['for-each-ref', '--format=%(refname)', ...refs]);
  const found = new Set(out.code === 0 ? out.stdout.split('\n').filter(Boolean) : []);
  return refs.filter((ref) => found.has(ref));
}
