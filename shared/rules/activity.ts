import type { Tx } from '../store/store.js';
import type { ActivityEvent } from '../types.js';
import { type EventRow, limitTo, toEvent } from './rows.js';

/** Event types of the append-only activity log. */
export type EventType =
  | 'created'
  | 'updated'
  | 'status'
  | 'claimed'
  | 'takeover'
  | 'checkpoint'
  | 'released'
  | 'reclaimed'
  | 'done'
  | 'submitted'
  | 'approved'
  | 'changes_requested'
  | 'commented'
  | 'related'
  | 'unrelated'
  | 'renewal_stopped';

/** Appends one event. The log is never updated or deleted from, and never holds a token. */
export async function recordEvent(
  tx: Tx,
  issue: { id: number; key: string } | null,
  type: EventType,
  agent: string,
  detail: string,
): Promise<void> {
  await tx.run('INSERT INTO events (issue_id, key, type, agent, detail, at) VALUES (?, ?, ?, ?, ?, ?)', [
    issue?.id ?? null,
    issue?.key ?? null,
    type,
    agent,
    detail,
    tx.now,
  ]);
}

/** The latest `limit` events, newest first, of one issue or of all. */
export async function listEvents(tx: Tx, issueId: number | null, limit: number): Promise<ActivityEvent[]> {
  const rows =
    issueId === null
      ? await tx.all<EventRow>(`SELECT * FROM events ORDER BY id DESC ${limitTo(limit)}`)
      : await tx.all<EventRow>(`SELECT * FROM events WHERE issue_id = ? ORDER BY id DESC ${limitTo(limit)}`, [issueId]);
  return rows.map(toEvent);
}
