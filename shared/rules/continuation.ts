import { listWorktrees, samePath, shellWord } from '../git-worktrees.js';
import { isSessionAlive } from '../sessions.js';
import type { Tx } from '../store/store.js';
import type { Continuation } from '../types.js';
import { iso } from './rows.js';

/**
 * How a claim that resumes continues an issue's branch that another worktree has checked
 * out, where git refuses a second checkout (docs/protocol.md, "Continuing a takeover").
 *
 * The other worktree is detached at the commit it is on: its files, index and commits
 * stay as they are, and only its HEAD stops moving the branch. Then this worktree checks
 * the branch out, at its last commit. Checking the branch out in both worktrees instead
 * (`--ignore-other-worktrees`) would leave one branch moved by two worktrees: the
 * superseded agent's next commit would land on the branch, undoing the new holder's work.
 */
export async function planContinuation(worktree: string, branch: string): Promise<Omit<Continuation, 'session'> | null> {
  const worktrees = await listWorktrees(worktree);
  const other = worktrees?.find((w) => w.branch === branch && !samePath(w.path, worktree));
  if (!other || !other.head) return null;
  return {
    branch,
    head: other.head,
    checkedOutIn: other.path,
    commands: [`git -C ${shellWord(other.path)} switch --detach`, `git switch ${shellWord(branch)}`],
  };
}

/**
 * The newest Baton session that still runs in `worktree`, if any: not ended, and its
 * process alive where this machine can tell (a killed server never ends its session).
 */
export async function sessionIn(tx: Tx, worktree: string): Promise<Continuation['session']> {
  const rows = await tx.all<{ agent: string; pid: number; host: string; started_at: number }>(
    'SELECT agent, pid, host, started_at FROM sessions WHERE worktree = ? AND ended_at IS NULL ORDER BY started_at DESC',
    [worktree],
  );
  const live = rows.find((r) => isSessionAlive({ pid: Number(r.pid), host: r.host, endedAt: null }));
  return live ? { agent: live.agent, startedAt: iso(Number(live.started_at)) } : null;
}
