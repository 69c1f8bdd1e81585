import { sep } from 'node:path';
import type { WorktreeView } from './worktree-view.js';

/** Why tidy keeps a worktree: one code per rule of docs/protocol.md "Worktrees". */
export type KeepCode =
  | 'main'
  | 'bare'
  | 'locked'
  | 'current'
  | 'lease'
  | 'session'
  | 'uncommitted'
  | 'untracked'
  | 'unreadable'
  | 'unmerged'
  /** `git worktree remove` itself refused (its own check found something). */
  | 'refused';

export interface KeepReason {
  code: KeepCode;
  message: string;
}

/** What the rules need besides the worktree itself. */
export interface KeepContext {
  /** The default branch's name, or null when the repository has none. */
  defaultBranch: string | null;
  /** The worktree the command runs in, which it cannot remove from under itself. */
  here: string | null;
}

/**
 * Every reason to keep a worktree; none means tidy may remove it. The one place the
 * safety rules live, for the CLI and the editor alike. A worktree is removable only when
 * all hold: no live lease and no live Baton session in it; nothing uncommitted or
 * untracked; its HEAD merged into the default branch, or it is the branch of a done
 * issue and fully pushed to its upstream; not the main worktree, not locked. Whatever
 * cannot be read counts against removal.
 */
export function keepReasons(view: WorktreeView, context: KeepContext): KeepReason[] {
  const reasons: KeepReason[] = [];
  const keep = (code: KeepCode, message: string) => reasons.push({ code, message });
  if (view.main) keep('main', 'it is the main worktree');
  if (view.bare) keep('bare', 'it is the bare repository');
  if (view.locked !== null) keep('locked', `it is locked${view.locked ? ` (${view.locked})` : ''}; \`git worktree unlock\` first`);
  if (context.here !== null && (context.here === view.path || context.here.startsWith(`${view.path}${sep}`))) keep('current', 'this command runs in it');
  for (const lease of view.leases) {
    keep('lease', `live lease on ${lease.key} held by ${lease.agent}, ${duration(lease.secondsLeft)} left, last renewed ${lease.lastRenewedAt}`);
  }
  for (const session of view.sessions) keep('session', `live Baton session of ${session.agent} (pid ${session.pid} on ${session.host}, since ${session.startedAt})`);
  if (view.changesError !== null) keep('unreadable', `git status failed: ${view.changesError}`);
  if (view.changes?.uncommitted.length) keep('uncommitted', `${count(view.changes.uncommitted.length, 'uncommitted change')}: ${sample(view.changes.uncommitted)}`);
  if (view.changes?.untracked.length) keep('untracked', `${count(view.changes.untracked.length, 'untracked file')}: ${sample(view.changes.untracked)}`);
  if (!view.main && !view.bare) {
    const unmerged = unmergedReason(view, context);
    if (unmerged) keep('unmerged', unmerged);
  }
  return reasons;
}

/** Why its commits are not safe elsewhere, or null when they are. */
function unmergedReason(view: WorktreeView, context: KeepContext): string | null {
  const { upstream, issue } = view;
  if (view.merged === true) return null;
  if (view.branch !== null && upstream !== null && upstream.unpushed === 0 && issue?.status === 'done') return null;
  const into = context.defaultBranch;
  if (view.mergedError !== null) return `cannot tell whether it is merged: ${view.mergedError}`;
  if (into === null) return 'the repository has no default branch to compare with (origin/HEAD, init.defaultBranch, main or master)';
  if (view.head === null) return 'it has no commits to compare';
  if (view.branch === null) return `its detached HEAD ${view.head.slice(0, 12)} is not merged into ${into}`;
  const branch = `branch ${view.branch} is not merged into ${into}`;
  if (upstream === null) return `${branch} and has no upstream (not pushed)`;
  if (upstream.unpushed > 0) return `${branch} and has ${count(upstream.unpushed, 'commit')} not pushed to ${upstream.name}`;
  const which = issue ? `${issue.key} is ${issue.status ?? 'not in the database'}, not done` : 'it is not the branch of an issue';
  return `${branch}; it is pushed to ${upstream.name} but ${which}`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** The first few paths, enough to recognise the work. */
function sample(paths: string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown}, …` : shown;
}

/** `42s`, `12m 5s`, `1h 3m`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
