import type { Tx } from '../store/store.js';
import type { Status } from '../types.js';
import { iso, type LeaseRow, type TokenRow } from './rows.js';

/**
 * The push rule (docs/protocol.md, "Git: the push guard"): a push that updates, on the
 * remote, the branch of an issue's lease is refused when the pushing worktree does not
 * hold that issue's work:
 *
 * - another worktree's session holds the live lease; or
 * - the issue was taken over from this worktree (this worktree held an earlier token of
 *   it) and the holder after it finished it.
 *
 * Everything else passes: other branches, tags, deletions, the live holder's own pushes,
 * a lease that lapsed with nobody after it, and anyone outside the issue's history once it
 * is finished. The branch is the lease's (recorded on every token), so a title edited
 * since the claim does not let a push slip past.
 */

/** One line git gives a pre-push hook on stdin. */
export interface PushUpdate {
  localRef: string;
  localSha: string;
  remoteRef: string;
  remoteSha: string;
}

/** Why one updated branch is refused, with who holds (or finished) its issue. */
export interface PushRefusal {
  key: string;
  branch: string;
  /** `live`: the holder's lease lives; `finished`: the holder after this worktree finished the issue. */
  reason: 'live' | 'finished';
  holder: { agent: string; worktree: string | null; since: string };
}

const HEADS = 'refs/heads/';

/** The branches a push creates or moves on the remote: deletions and anything but a branch are left out. */
export function pushedBranches(updates: readonly PushUpdate[]): string[] {
  const branches = new Set<string>();
  for (const u of updates) {
    if (!u.remoteRef.startsWith(HEADS) || /^0+$/.test(u.localSha)) continue;
    branches.add(u.remoteRef.slice(HEADS.length));
  }
  return [...branches];
}

/** Parses the lines git writes to a pre-push hook: `<local ref> <local sha> <remote ref> <remote sha>`. */
export function parsePushLines(text: string): PushUpdate[] {
  const updates: PushUpdate[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(' ');
    if (fields.length !== 4) continue;
    const [localRef, localSha, remoteRef, remoteSha] = fields;
    updates.push({ localRef, localSha, remoteRef, remoteSha });
  }
  return updates;
}

type LeaseOfBranch = LeaseRow & { key: string; started_at: number | null };
type TokenOfBranch = TokenRow & { key: string; status: Status };

/** The refusals for a push from `worktree` (null outside any work tree); empty when it may go. */
export async function pushRefusals(tx: Tx, worktree: string | null, updates: readonly PushUpdate[]): Promise<PushRefusal[]> {
  const refusals: PushRefusal[] = [];
  for (const branch of pushedBranches(updates)) {
    const refusal = await refusalFor(tx, worktree, branch);
    if (refusal) refusals.push(refusal);
  }
  return refusals;
}

async function refusalFor(tx: Tx, worktree: string | null, branch: string): Promise<PushRefusal | null> {
  const lease = await tx.get<LeaseOfBranch>(
    `SELECT l.*, i.key, t.started_at FROM leases l JOIN issues i ON i.id = l.issue_id LEFT JOIN tokens t ON t.hash = l.token_hash
     WHERE l.branch = ? AND l.expires_at > ?`,
    [branch, tx.now],
  );
  if (lease) {
    if (worktree !== null && lease.worktree === worktree) return null;
    const since = lease.started_at ?? lease.claimed_at;
    return { key: lease.key, branch, reason: 'live', holder: { agent: lease.agent, worktree: lease.worktree, since: iso(Number(since)) } };
  }
  const history = await tx.all<TokenOfBranch>(
    'SELECT t.*, i.key, i.status FROM tokens t JOIN issues i ON i.id = t.issue_id WHERE t.branch = ?',
    [branch],
  );
  if (history.length === 0 || worktree === null) return null;
  history.sort(byIssue);
  const latest = history[history.length - 1];
  if (latest.state !== 'finished' || latest.worktree === worktree) return null;
  // Only a worktree that worked on the issue before the finisher is fenced off; a person
  // outside the issue's history pushes freely once it is finished.
  const earlier = history.slice(0, -1).some((t) => t.worktree === worktree && Number(t.issue_id) === Number(latest.issue_id));
  if (!earlier) return null;
  const since = latest.started_at ?? latest.ended_at ?? 0;
  return { key: latest.key, branch, reason: 'finished', holder: { agent: latest.agent, worktree: latest.worktree, since: iso(Number(since)) } };
}

/**
 * Tokens in the order they were held: by fence, then by issue time (a takeover keeps the
 * fence and ends the token it replaces as it starts its own).
 */
function byIssue(a: TokenOfBranch, b: TokenOfBranch): number {
  return Number(a.fence) - Number(b.fence) || order(a) - order(b);
}

function order(t: TokenOfBranch): number {
  return Number(t.started_at ?? t.ended_at ?? Number.MAX_SAFE_INTEGER);
}

/** The refusal as a person reads it at the terminal, with how to override it. */
export function refusalText(refusals: readonly PushRefusal[]): string {
  const lines = refusals.map((r) => {
    const where = r.holder.worktree ?? 'an unknown worktree';
    return r.reason === 'live'
      ? `baton: ${r.branch} is the branch of ${r.key}, held by ${r.holder.agent} in ${where} since ${r.holder.since}; this worktree does not hold it.`
      : `baton: ${r.branch} is the branch of ${r.key}, taken over from this worktree and finished by ${r.holder.agent} in ${where} (holder since ${r.holder.since}).`;
  });
  lines.push('baton: push refused so as not to overwrite that work. To push anyway: git push --no-verify');
  return `${lines.join('\n')}\n`;
}
