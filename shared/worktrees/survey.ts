import type { Baton } from '../baton.js';
import { ok, type Result } from '../result.js';
import { isSessionAlive } from '../sessions.js';
import type { ClaimView, SessionRecord, Status } from '../types.js';
import { unchangedAgentCopies } from './agent-files.js';
import { type DefaultBranch, defaultBranch } from './default-branch.js';
import { isMerged, readChanges, readUpstream } from './git-facts.js';
import type { WorktreeView } from './worktree-view.js';
import { listWorktrees, realPath, type WorktreeEntry } from './worktree-list.js';

/** The reads of the database that worktree commands make: live leases, sessions, issue statuses. */
export type WorktreeReads = Pick<Baton, 'listClaims' | 'listSessions' | 'issueStatuses'>;

/** Every worktree of a repository, with its leases, sessions and git state. */
export interface Survey {
  /** The main worktree (or the bare repository), where branch commands run. */
  repo: string;
  defaultBranch: DefaultBranch | null;
  worktrees: WorktreeView[];
}

/** The issue a branch belongs to by its name (`baton/bat-3-login` → `BAT-3`; see shared/rules/branch.ts). */
export function issueKeyOfBranch(branch: string | null): string | null {
  const match = branch === null ? null : /^baton\/([a-z]+-[0-9]+)(?:-|$)/i.exec(branch);
  return match ? match[1].toUpperCase() : null;
}

/**
 * Reads every worktree of the repository around `cwd`: git's list, each one's status,
 * whether it is merged or pushed, and the live leases and sessions the database has in it.
 * `only` limits the git reads to one worktree (tidy's check right before removing it).
 */
export async function surveyWorktrees(cwd: string, baton: WorktreeReads, only?: string): Promise<Result<Survey>> {
  const listed = await listWorktrees(cwd);
  if (!listed.ok) return listed;
  const entries = listed.value;
  const repo = entries[0].path;
  const [claims, sessions] = [await baton.listClaims(), await baton.listSessions()];
  if (!claims.ok) return claims;
  if (!sessions.ok) return sessions;
  const live = sessions.value.sessions.filter(isSessionAlive);
  const chosen = only === undefined ? entries : entries.filter((entry) => entry.path === only);
  const keys = new Set<string>();
  for (const entry of chosen) {
    const key = issueKeyOfBranch(entry.branch);
    if (key) keys.add(key);
  }
  for (const claim of claims.value.claims) keys.add(claim.key);
  const statuses = await baton.issueStatuses([...keys]);
  if (!statuses.ok) return statuses;
  const main = await defaultBranch(repo);
  const worktrees: WorktreeView[] = [];
  for (const entry of chosen) {
    worktrees.push(await viewOf(entry, repo, main, claims.value.claims, live, statuses.value));
  }
  return ok({ repo, defaultBranch: main, worktrees });
}

async function viewOf(
  entry: WorktreeEntry,
  repo: string,
  main: DefaultBranch | null,
  claims: ClaimView[],
  sessions: SessionRecord[],
  statuses: Map<string, Status>,
): Promise<WorktreeView> {
  // A lease counts where its holder works and on the branch it names: an agent working
  // on this branch from elsewhere still needs its commits.
  const leases = claims
    .filter((claim) => (claim.worktree !== null && realPath(claim.worktree) === entry.path) || (entry.branch !== null && claim.branch === entry.branch))
    .map(({ key, agent, session, expiresAt, secondsLeft, lastRenewedAt, lastActiveAt, renewer }) => ({ key, agent, session, expiresAt, secondsLeft, lastRenewedAt, lastActiveAt, renewer }));
  const here = sessions
    .filter((session) => session.worktree !== null && realPath(session.worktree) === entry.path)
    .map(({ id, agent, pid, host, startedAt }) => ({ id, agent, pid, host, startedAt }));
  const key = issueKeyOfBranch(entry.branch) ?? leases[0]?.key ?? null;
  const view: WorktreeView = {
    ...entry,
    issue: key === null ? null : { key, status: statuses.get(key) ?? null },
    leases,
    sessions: here,
    changes: null,
    changesError: null,
    merged: null,
    mergedError: null,
    upstream: null,
  };
  if (entry.prunable !== null || entry.bare) return view;
  const changes = await readChanges(entry.path);
  if ('error' in changes) view.changesError = changes.error;
  else if (entry.main) view.changes = changes;
  else {
    const copies = unchangedAgentCopies(repo, entry.path, changes.untracked);
    view.changes = { ...changes, untracked: changes.untracked.filter((path) => !copies.includes(path)), agentCopies: copies };
  }
  if (entry.head !== null && main !== null) {
    const merged = await isMerged(repo, entry.head, main);
    if (typeof merged === 'boolean') view.merged = merged;
    else view.mergedError = merged.error;
  }
  if (entry.branch !== null) view.upstream = await readUpstream(repo, entry.branch);
  return view;
}
