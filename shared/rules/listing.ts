import type { ListIssuesInput } from '../inputs.js';
import { LIMITS } from '../limits.js';
import { fail, ok, type Result } from '../result.js';
import type { SqlValue, Tx } from '../store/store.js';
import type { IssueSummary } from '../types.js';
import { labelsCondition, readyCondition } from './dispatch.js';
import { summaries } from './issues.js';
import { ISSUE_COLUMNS, type IssueRow, limitTo } from './rows.js';

interface Cursor {
  c: number;
  n: number;
}

function encodeCursor(row: IssueRow): string {
  return Buffer.from(JSON.stringify({ c: Number(row.created_at), n: Number(row.number) })).toString('base64url');
}

function decodeCursor(text: string): Cursor | null {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    return Number.isInteger(value.c) && Number.isInteger(value.n) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The issues finished last, latest first. Lists run newest created first, so an old issue
 * finished a minute ago can be far down the done list: this reads by the time of the
 * last change instead, which for a done issue is when it was finished or last edited.
 */
export async function recentlyDone(tx: Tx, limit: number): Promise<IssueSummary[]> {
  const rows = await tx.all<IssueRow>(`SELECT ${ISSUE_COLUMNS} FROM issues WHERE status = 'done' ORDER BY updated_at DESC, number DESC ${limitTo(limit)}`);
  return summaries(tx, rows);
}

/** `%`, `_` and the escape itself match literally in a LIKE pattern. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Issues matching every filter given, newest first, a page at a time. */
export async function listIssues(tx: Tx, input: ListIssuesInput): Promise<Result<{ issues: IssueSummary[]; nextCursor: string | null }>> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (input.status !== undefined) {
    where.push('i.status = ?');
    params.push(input.status);
  }
  if (input.label !== undefined) {
    const labelled = labelsCondition([input.label.trim()]);
    where.push(labelled.sql);
    params.push(...labelled.params);
  }
  if (input.ready !== undefined) {
    const ready = readyCondition(tx, 'worker');
    where.push(input.ready ? `(${ready.sql})` : `NOT (${ready.sql})`);
    params.push(...ready.params);
  }
  if (input.text !== undefined && input.text.trim() !== '') {
    // Both sides folded by the database's own lower(): SQLite folds ASCII only, and a
    // pattern folded further (by JavaScript) would miss the very text it was copied from.
    where.push(`(lower(i.title) LIKE lower(?) ESCAPE '\\' OR lower(i.body) LIKE lower(?) ESCAPE '\\')`);
    const pattern = likePattern(input.text.trim());
    params.push(pattern, pattern);
  }
  if (input.cursor !== undefined) {
    const cursor = decodeCursor(input.cursor);
    if (!cursor) return fail('INVALID_INPUT', 'Invalid input: cursor: not a cursor this list gave out.', { issues: [{ path: 'cursor', message: 'unknown cursor' }] });
    where.push('(i.created_at < ? OR (i.created_at = ? AND i.number < ?))');
    params.push(cursor.c, cursor.c, cursor.n);
  }
  const limit = input.limit ?? LIMITS.listDefault;
  const rows = await tx.all<IssueRow>(
    `SELECT ${ISSUE_COLUMNS.split(', ').map((c) => `i.${c}`).join(', ')} FROM issues i
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY i.created_at DESC, i.number DESC ${limitTo(limit + 1)}`,
    params,
  );
  const page = rows.slice(0, limit);
  return ok({ issues: await summaries(tx, page), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null });
}
