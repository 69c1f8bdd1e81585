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
  /** The agent that ended it when that was not its holder (a takeover, a reclaim, a person); else null. */
  ended_by: string | null;
  /** When its holder was told it lost it (`notices`); null until then. */
  noticed_at: number | null;
}

/** What became of a token; `live` until its lease ends. */
export type TokenState = 'live' | 'reclaimed' | 'released' | 'finished' | 'superseded';

export const ISSUE_COLUMNS =
  'id, number, key, title, body, status, priority, eff_priority, labels, parent_id, fence, reclaim_count, checkpoint_id, created_at, updated_at';

const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59.999Z: past it, ISO 8601 needs six-digit years, which Date writes. */
const LAST_FOUR_DIGIT_MS = 253_402_300_799_999;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * `new Date(ms).toISOString()`, formatted without a Date for the years 1970 to 9999:
 * every answer carries several timestamps per issue or lease, and building a Date for
 * each was a large share of a `list_claims`; this takes a fraction of that. Any other
 * value goes to Date (and one Date cannot hold throws its RangeError).
 */
export function iso(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // Days since 1970-01-01 to a civil date, in 400-year eras that start on March 1st
  // (Howard Hinnant's `civil_from_days`), so that February's length comes last.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
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
 * on sql.js that made dispatch, which asks for one row, several times slower.
 */
export function limitTo(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a LIMIT must be a whole number, not ${n}`);
  return `LIMIT ${n}`;
}
