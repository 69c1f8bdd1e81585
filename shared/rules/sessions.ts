import type { Tx } from '../store/store.js';
import type { Caller, SessionRecord } from '../types.js';
import { iso, placeholders } from './rows.js';

/** How long ended sessions and remembered request ids are kept for anyone to look at. */
export const HISTORY_KEPT_MS = 24 * 60 * 60_000;

interface SessionRow {
  id: string;
  agent: string;
  pid: number;
  host: string;
  renewer: string | null;
  worktree: string | null;
  started_at: number;
  ended_at: number | null;
  last_active_at: number | null;
}

function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    agent: row.agent,
    pid: Number(row.pid),
    host: row.host,
    renewer: row.renewer,
    worktree: row.worktree,
    startedAt: iso(row.started_at),
    endedAt: row.ended_at === null ? null : iso(row.ended_at),
    lastActiveAt: row.last_active_at === null ? null : iso(Number(row.last_active_at)),
  };
}

/**
 * Removes sessions holding no live lease that ended before `before`, and at once those
 * named in `gone` that never ended (their process was found dead, and nobody renews them).
 */
export async function forgetSessions(tx: Tx, before: number, gone: readonly string[]): Promise<void> {
  const orGone = gone.length > 0 ? ` OR (ended_at IS NULL AND id IN (${placeholders(gone.length)}))` : '';
  await tx.run(`DELETE FROM sessions WHERE (ended_at < ?${orGone}) AND id NOT IN (SELECT session FROM leases WHERE expires_at > ?)`, [
    before,
    ...gone,
    tx.now,
  ]);
}

/** Records the caller's session as running in this process, started now (again, if it ran before). */
export async function recordSession(tx: Tx, caller: Caller, pid: number, host: string): Promise<SessionRecord> {
  // A server starting is its agent's sign of life: an agent starts its server to use it.
  const row: SessionRow = { id: caller.session, agent: caller.agent, pid, host, renewer: caller.renewer, worktree: caller.worktree, started_at: tx.now, ended_at: null, last_active_at: tx.now };
  await tx.run(
    `INSERT INTO sessions (id, agent, pid, host, renewer, worktree, started_at, ended_at, last_active_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)
     ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, pid = excluded.pid, host = excluded.host, renewer = excluded.renewer, worktree = excluded.worktree, ended_at = NULL, last_active_at = excluded.last_active_at`,
    [row.id, row.agent, row.pid, row.host, row.renewer, row.worktree, row.started_at, row.last_active_at],
  );
  return toSession(row);
}

/** Marks the session ended now, unless it already was. */
export async function endSession(tx: Tx, session: string): Promise<void> {
  await tx.run('UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL', [tx.now, session]);
}

/**
 * The sessions that matter now, newest first: those not ended (running, or gone without
 * ending) and those whose lease lives on. Ended sessions stay for a day, and this is read
 * at every change of the store, so it leaves them out in the query rather than after it.
 */
export async function currentSessions(tx: Tx): Promise<SessionRecord[]> {
  const rows = await tx.all<SessionRow>(
    `SELECT * FROM sessions WHERE ended_at IS NULL OR id IN (SELECT session FROM leases WHERE expires_at > ?)
     ORDER BY started_at DESC`,
    [tx.now],
  );
  return rows.map(toSession);
}

/** Keys of the live leases the session holds that no renewer keeps alive. */
export async function unrenewedLeases(tx: Tx, session: string): Promise<string[]> {
  const rows = await tx.all<{ key: string }>(
    'SELECT i.key FROM leases l JOIN issues i ON i.id = l.issue_id WHERE l.session = ? AND l.renewer IS NULL AND l.expires_at > ?',
    [session, tx.now],
  );
  return rows.map((r) => r.key);
}
