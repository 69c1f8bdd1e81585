import type { Tx } from '../store/store.js';
import { placeholders } from './rows.js';

/** A day, in the milliseconds the store counts time in. */
export const DAY_MS = 86_400_000;

/** What one run of retention removed, and whether more is due. */
export interface Pruned {
  events: number;
  checkpoints: number;
  tokens: number;
  requests: number;
  /** Rows were left for a later run: this one stopped at its bound. */
  more: boolean;
}

/**
 * How long after a process finished pruning a database it answers the next running
 * server's retention with nothing to do. Retention is daily, and every server asks at its
 * start: agents started together would otherwise each scan the history in turn.
 */
export const PRUNE_SETTLED_MS = 60 * 60_000;

/** When this process last pruned each database (by its location) with nothing left over. */
const settledAt = new Map<string, number>();

/** Whether a running server's retention should prune `location` now (see `PRUNE_SETTLED_MS`). */
export function pruneDue(location: string, now: number): boolean {
  const at = settledAt.get(location);
  return at === undefined || now < at || now - at >= PRUNE_SETTLED_MS;
}

/** Notes that a prune of `location` left nothing over. */
export function prunedAll(location: string, now: number): void {
  settledAt.set(location, now);
}

/** What a prune that was not due removed. */
export const NOTHING_PRUNED: Readonly<Pruned> = { events: 0, checkpoints: 0, tokens: 0, requests: 0, more: false };

/** Issues retention may fold: finished ones. Open issues (todo, doing, review, stuck) keep everything. */
const FINISHED_ISSUE = `issue_id IN (SELECT id FROM issues WHERE status IN ('done', 'cancelled'))`;

/**
 * Folds history older than `before` into `history_summary` and deletes it, at most
 * `limit` rows of each kind in this run. What goes, only ever of finished issues:
 * activity events (counted by kind), checkpoints other than the issue's latest, and ended
 * tokens (their renewals counted as `renewed`). What stays whatever its age: everything
 * of an open issue, every lease, the latest checkpoint of every issue, comments. Request
 * ids go once a day old (`requestId` answers are kept for a day), as servers do at start.
 */
export async function prune(tx: Tx, before: number, requestsBefore: number, limit: number): Promise<Pruned> {
  const events = await tx.all<{ id: number; issue_id: number; type: string; at: number }>(
    `SELECT id, issue_id, type, at FROM events WHERE at < ? AND ${FINISHED_ISSUE} ORDER BY id LIMIT ${limit}`,
    [before],
  );
  const tokens = await tx.all<{ hash: string; issue_id: number; renewals: number; renewed_from: number | null; renewed_to: number | null }>(
    `SELECT hash, issue_id, renewals, renewed_from, renewed_to FROM tokens WHERE state <> 'live' AND ended_at < ? AND ${FINISHED_ISSUE} LIMIT ${limit}`,
    [before],
  );
  const folds = new Map<string, { issueId: number; type: string; count: number; first: number; last: number }>();
  const fold = (issueId: number, type: string, count: number, first: number, last: number) => {
    const id = `${issueId}\0${type}`;
    const f = folds.get(id);
    if (f) Object.assign(f, { count: f.count + count, first: Math.min(f.first, first), last: Math.max(f.last, last) });
    else folds.set(id, { issueId, type, count, first, last });
  };
  for (const e of events) fold(Number(e.issue_id), e.type, 1, Number(e.at), Number(e.at));
  for (const t of tokens) {
    if (Number(t.renewals) > 0 && t.renewed_from !== null) fold(Number(t.issue_id), 'renewed', Number(t.renewals), Number(t.renewed_from), Number(t.renewed_to ?? t.renewed_from));
  }
  for (const f of folds.values()) await addToSummary(tx, f.issueId, f.type, f.count, f.first, f.last);
  await deleteIn(tx, 'events', 'id', events.map((e) => e.id));
  await deleteIn(tx, 'tokens', 'hash', tokens.map((t) => t.hash));

  const checkpoints = await tx.all<{ id: number }>(
    `SELECT c.id FROM checkpoints c WHERE c.at < ? AND c.${FINISHED_ISSUE}
     AND c.id <> (SELECT COALESCE(i.checkpoint_id, 0) FROM issues i WHERE i.id = c.issue_id) LIMIT ${limit}`,
    [before],
  );
  await deleteIn(tx, 'checkpoints', 'id', checkpoints.map((c) => c.id));
  const requests = await tx.run('DELETE FROM requests WHERE at < ?', [requestsBefore]);
  return {
    events: events.length,
    checkpoints: checkpoints.length,
    tokens: tokens.length,
    requests: requests.changes,
    more: events.length === limit || tokens.length === limit || checkpoints.length === limit,
  };
}

async function addToSummary(tx: Tx, issueId: number, type: string, count: number, first: number, last: number): Promise<void> {
  const row = await tx.get<{ count: number; first_at: number; last_at: number }>('SELECT count, first_at, last_at FROM history_summary WHERE issue_id = ? AND type = ?', [issueId, type]);
  if (!row) {
    await tx.run('INSERT INTO history_summary (issue_id, type, count, first_at, last_at) VALUES (?, ?, ?, ?, ?)', [issueId, type, count, first, last]);
    return;
  }
  await tx.run('UPDATE history_summary SET count = ?, first_at = ?, last_at = ? WHERE issue_id = ? AND type = ?', [
    Number(row.count) + count,
    Math.min(Number(row.first_at), first),
    Math.max(Number(row.last_at), last),
    issueId,
    type,
  ]);
}

/** Keys per DELETE: well inside every backend's limit on parameters. */
const PER_STATEMENT = 500;

async function deleteIn(tx: Tx, table: string, column: string, keys: readonly (number | string)[]): Promise<void> {
  for (let at = 0; at < keys.length; at += PER_STATEMENT) {
    const chunk = keys.slice(at, at + PER_STATEMENT);
    await tx.run(`DELETE FROM ${table} WHERE ${column} IN (${placeholders(chunk.length)})`, chunk);
  }
}
