import type { Tx } from '../store/store.js';
import type { ClaimView, Lease } from '../types.js';
import { checkpointsById } from './checkpoints.js';
import { leaseView, renew } from './leases.js';
import { withOverlaps } from './overlaps.js';
import { iso, type LeaseRow, placeholders } from './rows.js';

/**
 * Every live claim, the latest taken first, with the checkpoint each issue last recorded,
 * when its agent last showed a sign of life, and the other live claims whose checkpoints touched the same paths.
 */
export async function listClaims(tx: Tx): Promise<ClaimView[]> {
  const rows = await tx.all<LeaseRow & { key: string; title: string; checkpoint_id: number | null; last_active_at: number | null }>(
    `SELECT l.*, i.key, i.title, i.checkpoint_id, s.last_active_at FROM leases l JOIN issues i ON i.id = l.issue_id
     LEFT JOIN sessions s ON s.id = l.session
     WHERE l.expires_at > ? ORDER BY l.claimed_at DESC, i.number DESC`,
    [tx.now],
  );
  const checkpoints = await checkpointsById(tx, rows.map((r) => r.checkpoint_id).filter((id): id is number => id !== null));
  return withOverlaps(
    rows.map((r) => ({
    key: r.key,
    title: r.title,
    agent: r.agent,
    session: r.session,
    branch: r.branch,
    worktree: r.worktree,
    claimedAt: iso(r.claimed_at),
    expiresAt: iso(r.expires_at),
    lastRenewedAt: iso(r.last_renewed_at),
    renewer: r.renewer,
    secondsLeft: Math.max(0, Math.floor((Number(r.expires_at) - tx.now) / 1000)),
    checkpoint: r.checkpoint_id === null ? null : (checkpoints.get(Number(r.checkpoint_id)) ?? null),
    lastActiveAt: r.last_active_at === null ? null : iso(Number(r.last_active_at)),
    })),
  );
}

/** The fence of every live lease, by issue key. */
export async function liveFences(tx: Tx): Promise<Record<string, number>> {
  const rows = await tx.all<{ key: string; fence: number }>('SELECT i.key, l.fence FROM leases l JOIN issues i ON i.id = l.issue_id WHERE l.expires_at > ?', [tx.now]);
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.fence)]));
}

/**
 * Renews in full every live lease held by these sessions (only those recorded with
 * `renewer`, when given), and answers them renewed. Token-less answers: the renewer
 * keeps the leases alive, not the tokens.
 */
export async function renewSessionLeases(tx: Tx, leaseMs: number, sessions: readonly string[], renewer?: string): Promise<Lease[]> {
  if (sessions.length === 0) return [];
  const filter = renewer === undefined ? '' : ' AND l.renewer = ?';
  const rows = await tx.all<LeaseRow & { key: string }>(
    `SELECT l.*, i.key FROM leases l JOIN issues i ON i.id = l.issue_id
     WHERE l.expires_at > ? AND l.session IN (${placeholders(sessions.length)})${filter} ORDER BY l.issue_id`,
    [tx.now, ...sessions, ...(renewer === undefined ? [] : [renewer])],
  );
  const leases: Lease[] = [];
  // In issue order, as every write that changes several issues locks them: two renewers
  // of overlapping sessions then queue instead of deadlocking on PostgreSQL.
  for (const row of rows) leases.push(leaseView(row.key, await renew(tx, row, leaseMs)));
  return leases;
}
