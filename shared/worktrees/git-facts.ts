import type { DefaultBranch } from './default-branch.js';
import { gitMessage, runGit } from './git-run.js';

/** What is in a worktree that no commit holds. */
export interface Changes {
  /** Paths changed or staged but not committed (conflicts included). */
  uncommitted: string[];
  /** Paths git does not track and does not ignore, agent copies aside. */
  untracked: string[];
  /**
   * Untracked copies of the agent files `baton worktree new` copied in, still the same as
   * the main worktree's: nothing to lose, so they do not keep a worktree (tidy deletes them
   * right before `git worktree remove`, which would refuse them).
   */
  agentCopies: string[];
}

/**
 * `git status` of a worktree, ignored files aside (they are build output and caches,
 * which `git worktree remove` removes too), or an error message when git cannot read it.
 * Untracked files are listed one by one (`all`, not `normal`), so that an agent copy in
 * an untracked folder (`.vscode/mcp.json`) is told apart from work beside it.
 */
export async function readChanges(worktree: string): Promise<Changes | { error: string }> {
  // --no-optional-locks: status would otherwise refresh the index under its lock, and an
  // agent's own `git commit` at that moment would fail on the lock file.
  const out = await runGit(worktree, ['--no-optional-locks', 'status', '--porcelain=v1', '--untracked-files=all', '--ignore-submodules=none', '-z']);
  if (out.code !== 0) return { error: gitMessage(out) };
  return parseChanges(out.stdout);
}

/** Parses `git status --porcelain=v1 -z`: `XY path`, a rename or copy followed by its source path. */
export function parseChanges(out: string): Changes {
  const changes: Changes = { uncommitted: [], untracked: [], agentCopies: [] };
  const fields = out.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (field.length < 4) continue;
    const xy = field.slice(0, 2);
    const path = field.slice(3);
    if (xy === '??') changes.untracked.push(path);
    else if (xy !== '!!') changes.uncommitted.push(path);
    if (xy[0] === 'R' || xy[0] === 'C') i++;
  }
  return changes;
}

/**
 * Whether `commit` is reachable from one of the default branch's refs (`git merge-base
 * --is-ancestor`), or an error message when git cannot tell.
 */
export async function isMerged(repo: string, commit: string, into: DefaultBranch): Promise<boolean | { error: string }> {
  for (const ref of into.refs) {
    const out = await runGit(repo, ['merge-base', '--is-ancestor', commit, ref]);
    if (out.code === 0) return true;
    if (out.code !== 1) return { error: gitMessage(out) };
  }
  return false;
}

/** Where a branch is pushed, and how many of its commits are not there yet. */
export interface Upstream {
  /** `origin/baton/bat-3-login`. */
  name: string;
  /** Commits of the branch its upstream lacks (`git rev-list --count upstream..branch`). */
  unpushed: number;
}

/** The branch's upstream, or null when it has none (never pushed with `-u`, or deleted on the remote). */
export async function readUpstream(repo: string, branch: string): Promise<Upstream | null> {
  // `<branch>@{upstream}` takes a short name only; a branch named like a tag or a remote
  // would be ambiguous, which for-each-ref's `upstream` field is not.
  const ref = await runGit(repo, ['for-each-ref', '--format=%(refname)%00%(upstream:short)', `refs/heads/${branch}`]);
  // The pattern matches `refs/heads/<branch>/…` too: only the exact ref counts.
  const line = ref.code === 0 ? ref.stdout.split('\n').find((l) => l.startsWith(`refs/heads/${branch}\0`)) : undefined;
  const name = line?.split('\0')[1]?.trim() ?? '';
  if (!name) return null;
  const count = await runGit(repo, ['rev-list', '--count', `${name}..refs/heads/${branch}`]);
  // An upstream configured but never fetched cannot be compared: as good as none.
  if (count.code !== 0) return null;
  return { name, unpushed: Number(count.stdout.trim()) };
}
