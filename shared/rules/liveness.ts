import type { Tx } from '../store/store.js';
import type { LeaseNotice, LostLease } from '../types.js';
import { iso, placeholders, type TokenState } from './rows.js';

/**
 * Activity and lost-lease notices in the store (docs/protocol.md, "Liveness").
 *
 * - `sessions.last_active_at`: when the session's agent last showed a sign of life.
 *   Renewals write it in their own transaction; a server writes it on its own at most
 *   every few seconds (`activityWriteMs`).
 * - A token ended by someone other than its holder (a takeover, a reclaim, a person's
 *   release) records that agent in `ended_by`: a loss. `noticed_at` is set once the holder
 *   was told, by a tool answer or a hook, whichever comes first: each loss is told once.
 */

/** Marks these sessions active at the transaction's time (never moving it back). */
export async function markActive(tx: Tx, sessions: readonly string[]): Promise<void> {
  if (sessions.length === 0) return;
  await tx.run(`UPDATE sessions SET last_active_at = ? WHERE id IN (${placeholders(sessions.length)}) AND (last_active_at IS NULL OR last_active_at < ?)`, [
    tx.now,
    ...sessions,
    tx.now,
  ]);
}

/** When the session's agent was last active, as the store has it; null when unknown. */
export async function lastActiveOf(tx: Tx, session: string): Promise<string | null> {
  const row = await tx.get<{ last_active_at: number | null }>('SELECT last_active_at FROM sessions WHERE id = ?', [session]);
  return row?.last_active_at == null ? null : iso(Number(row.last_active_at));
}

/** Marks these sessions ended now, unless they already are. */
export async function endSessions(tx: Tx, sessions: readonly string[]): Promise<void> {
  if (sessions.length === 0) return;
  await tx.run(`UPDATE sessions SET ended_at = ? WHERE id IN (${placeholders(sessions.length)}) AND ended_at IS NULL`, [tx.now, ...sessions]);
}

interface LossRow {
  hash: string;
  key: string;
  state: TokenState;
  ended_by: string;
  ended_at: number;
}

/** What a loss's reason is called in a notice: the token state, `reclaimed` being an expiry. */
const REASONS: Partial<Record<TokenState, LeaseNotice['reason']>> = { reclaimed: 'expired', released: 'released', finished: 'finished', superseded: 'superseded' };

/** The losses of these sessions nobody has told them of yet, oldest first (read only; the partial index makes it cheap). */
export async function unnoticedLosses(tx: Tx, sessions: readonly string[]): Promise<LostLease[]> {
  if (sessions.length === 0) return [];
  const rows = await tx.all<LossRow>(
    `SELECT t.hash, i.key, t.state, t.ended_by, t.ended_at FROM tokens t JOIN issues i ON i.id = t.issue_id
     WHERE t.session IN (${placeholders(sessions.length)}) AND t.ended_by IS NOT NULL AND t.noticed_at IS NULL ORDER BY t.ended_at`,
    [...sessions],
  );
  return rows.map((r) => ({ hash: r.hash, key: r.key, kind: 'lease_lost', reason: REASONS[r.state] ?? 'released', by: r.ended_by, at: iso(Number(r.ended_at)) }));
}

/**
 * Records these losses as told and answers those this call was first to tell: of two
 * processes telling the same session at once (its server, a hook), only one tells it.
 */
export async function claimNotices<N extends { hash: string }>(tx: Tx, losses: readonly N[]): Promise<N[]> {
  const told: N[] = [];
  for (const loss of losses) {
    const marked = await tx.run('UPDATE tokens SET noticed_at = ? WHERE hash = ? AND noticed_at IS NULL', [tx.now, loss.hash]);
    if (marked.changes > 0) told.push(loss);
  }
  return told;
}
