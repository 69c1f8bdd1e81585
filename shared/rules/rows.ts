import type { ActivityEvent, Checkpoint, Comment, GitState, Status } from '../types.js';

/** Rows as the schema stores them (see store/sqlite-schema.ts). Times are epoch milliseconds. */
export interface IssueRow {
  id: number;
  number: number;
  key: string;
  title: string;
  body: string;
  status: Status;
  priority: number;
  eff_priority: number;
  labels: string;
  parent_id: number | null;
  fence: number;
  reclaim_count: number;
  checkpoint_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface LeaseRow {
  issue_id: number;
  token_hash: string;
  agent: string;
  session: string;
  role: string;
  branch: string;
  worktree: string | null;
  renewer: string | null;
  fence: number;
  resumed: number;
  claimed_at: number;
  last_renewed_at: number;
  expires_at: number;
}

export interface CheckpointRow {
  id: number;
  issue_id: number;
  note: string;
  state: string | null;
  agent: string;
  git: string | null;
  at: number;
}

export interface CommentRow {
  id: number;
  issue_id: number;
  text: string;
  agent: string;
  at: number;
}

export interface EventRow {
  id: number;
  issue_id: number | null;
  key: string | null;
  type: string;
  agent: string;
  detail: string;
  at: number;
}

export interface TokenRow {
  hash: string;
  issue_id: number;
  fence: number;
  agent: string;
  session: string;
  state: TokenState;
  ended_at: number | null;
}

/** What became of a token; `live` until its lease ends. */
export type TokenState = 'live' | 'reclaimed' | 'released' | 'finished' | 'superseded';

export const ISSUE_COLUMNS =
  'id, number, key, title, body, status, priority, eff_priority, labels, parent_id, fence, reclaim_count, checkpoint_id, created_at, updated_at';

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function toCheckpoint(row: CheckpointRow): Checkpoint {
  return {
    note: row.note,
    state: row.state === null ? null : (JSON.parse(row.state) as Record<string, unknown>),
    agent: row.agent,
    at: iso(row.at),
    git: row.git === null ? null : (JSON.parse(row.git) as GitState),
  };
}

export function toComment(row: CommentRow): Comment {
  return { id: Number(row.id), text: row.text, agent: row.agent, at: iso(row.at) };
}

export function toEvent(row: EventRow): ActivityEvent {
  return { at: iso(row.at), key: row.key, type: row.type, agent: row.agent, detail: row.detail };
}

/** `?, ?, ?` for an IN list of n values. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * `LIMIT n`, with n written into the statement rather than bound. SQLite plans with the
 * value of a bound LIMIT, so binding one makes the statement compile again each time:
 * on sql.js that made dispatch, which asks for one row, take 170 µs instead of 35.
 */
export function limitTo(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a LIMIT must be a whole number, not ${n}`);
  return `LIMIT ${n}`;
}
