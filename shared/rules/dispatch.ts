import type { Tx } from '../store/store.js';
import type { ClaimResult, Role } from '../types.js';
import { findIssue, findIssueById, issueView } from './issues.js';
import { claim, type Claimed, getLease, isLive, type LeaseContext, leaseView, takeOver } from './leases.js';
import { ISSUE_COLUMNS, type IssueRow, limitTo, placeholders } from './rows.js';

/**
 * Dispatch: which issue goes next. An issue is ready when it is `todo`, or `doing` with no
 * live lease, and nothing unfinished blocks it (reviewers: `review` with no live lease).
 * Order: effective priority, priority, creation time, then key number.
 */

const UNBLOCKED = `NOT EXISTS (SELECT 1 FROM relations r JOIN issues b ON b.id = r.from_id
  WHERE r.type = 'blocks' AND r.to_id = i.id AND b.status NOT IN ('done', 'cancelled'))`;

/** The SQL condition (on alias `i`) and its parameters for "ready for this role now". */
export function readyCondition(tx: Tx, role: Role): { sql: string; params: number[] } {
  const unheld = 'NOT EXISTS (SELECT 1 FROM leases l WHERE l.issue_id = i.id AND l.expires_at > ?)';
  return role === 'reviewer'
    ? { sql: `i.status = 'review' AND ${unheld}`, params: [tx.now] }
    : { sql: `i.status IN ('todo', 'doing') AND ${unheld} AND ${UNBLOCKED}`, params: [tx.now] };
}

/** The SQL condition (on alias `i`) for "carries every one of these labels". */
export function labelsCondition(labels: readonly string[]): { sql: string; params: string[] } {
  // Counted against the labels an issue carries, so a label asked for twice counts once.
  const wanted = [...new Set(labels)];
  if (wanted.length === 0) return { sql: '1 = 1', params: [] };
  return {
    sql: `(SELECT count(*) FROM issue_labels il WHERE il.issue_id = i.id AND il.label IN (${placeholders(wanted.length)})) = ${wanted.length}`,
    params: wanted,
  };
}

/**
 * Ready issues in dispatch order. On PostgreSQL `lock` locks the rows it returns, passing
 * over rows other transactions hold (`skip`) or waiting for them (`wait`).
 */
export async function readyIssues(
  tx: Tx,
  role: Role,
  labels: readonly string[],
  limit: number,
  options: { lock?: 'skip' | 'wait'; exclude?: readonly number[] } = {},
): Promise<IssueRow[]> {
  const ready = readyCondition(tx, role);
  const labelled = labelsCondition(labels);
  const exclude = options.exclude ?? [];
  const excluded = exclude.length > 0 ? ` AND i.id NOT IN (${placeholders(exclude.length)})` : '';
  return tx.all<IssueRow>(
    `SELECT ${ISSUE_COLUMNS.split(', ').map((c) => `i.${c}`).join(', ')} FROM issues i
     WHERE ${ready.sql} AND ${labelled.sql}${excluded}
     ORDER BY i.eff_priority, i.priority, i.created_at, i.number ${limitTo(limit)}${lockClause(tx, options.lock)}`,
    [...ready.params, ...labelled.params, ...exclude],
  );
}

function lockClause(tx: Tx, lock: 'skip' | 'wait' | undefined): string {
  if (lock === 'skip') return tx.dialect.skipLocked;
  return lock === 'wait' ? tx.dialect.forUpdate : '';
}

/** The answer a claimer gets: the issue as it now stands, the lease with its token, the checkpoint. */
export async function claimResult(tx: Tx, issueId: number, claimed: Claimed): Promise<ClaimResult> {
  const row = await findIssueById(tx, issueId);
  const issue = await issueView(tx, row);
  return {
    issue,
    lease: leaseView(row.key, claimed.lease, claimed.token),
    // The same row's checkpoint, already read for the issue view.
    checkpoint: issue.checkpoint,
    resumed: claimed.resumed,
  };
}

/** Claims up to `max` ready issues in dispatch order, in this one transaction. */
export async function claimNext(tx: Tx, ctx: LeaseContext, role: Role, labels: readonly string[], max: number): Promise<ClaimResult[]> {
  const results: ClaimResult[] = [];
  const tried: number[] = [];
  while (results.length < max) {
    let rows = await readyIssues(tx, role, labels, max - results.length, { lock: 'skip', exclude: tried });
    if (rows.length === 0 && results.length === 0 && tx.dialect.skipLocked) {
      // Every ready row left is locked. Not only claimers lock one: an edit, a comment or a
      // sweep recording a reclaim holds a ready issue for a moment, and "nothing is ready"
      // would send this agent away from work that is. So wait for the first of them. Only
      // while this call has claimed nothing: holding claimed rows while waiting for another
      // claimer's would make two batches wait for each other.
      rows = await readyIssues(tx, role, labels, 1, { lock: 'wait', exclude: tried });
    }
    if (rows.length === 0) break;
    for (const row of rows) {
      tried.push(row.id);
      // Under the file lock every candidate is claimable; on PostgreSQL one that another
      // transaction claimed after this read is refused here, and the loop looks further.
      const claimed = await claim(tx, row, role, ctx);
      if (claimed.ok) results.push(await claimResult(tx, row.id, claimed.value));
    }
  }
  return results;
}

interface RememberedAnswer {
  items: { key: string; fence: number }[];
}

/**
 * Takes a request id of this agent for this call: true when it is new. A repeat finds the
 * row (on PostgreSQL, once the first call has committed) and replays its answer instead.
 */
export async function reserveRequest(tx: Tx, ctx: LeaseContext, requestId: string): Promise<boolean> {
  const inserted = await tx.run(
    `INSERT INTO requests (agent, request_id, session, answer, at) VALUES (?, ?, ?, '{"items":[]}', ?) ON CONFLICT DO NOTHING`,
    [ctx.caller.agent, requestId, ctx.caller.session, tx.now],
  );
  return inserted.changes > 0;
}

/**
 * The first answer to a request id of this agent, replayed: the leases it handed out that
 * this agent still holds, moved to this session with fresh tokens if another session asked
 * first.
 */
export async function replayRequest(tx: Tx, ctx: LeaseContext, requestId: string): Promise<ClaimResult[]> {
  const row = await tx.get<{ session: string; answer: string }>(
    `SELECT session, answer FROM requests WHERE agent = ? AND request_id = ?${tx.dialect.forUpdate}`,
    [ctx.caller.agent, requestId],
  );
  if (!row) return [];
  const answer = JSON.parse(row.answer) as RememberedAnswer;
  const results: ClaimResult[] = [];
  for (const item of answer.items) {
    const found = await findIssue(tx, item.key, true);
    if (!found.ok) continue;
    const lease = await getLease(tx, found.value.id);
    if (!isLive(lease, tx.now) || Number(lease.fence) !== item.fence || lease.agent !== ctx.caller.agent) continue;
    const known = lease.session === ctx.caller.session ? ctx.tokens.get(found.value.key) : undefined;
    const claimed = known
      ? { lease, token: known, resumed: Number(lease.resumed) === 1 }
      : await takeOver(tx, found.value, lease, ctx);
    results.push(await claimResult(tx, found.value.id, claimed));
  }
  if (row.session !== ctx.caller.session) {
    await tx.run('UPDATE requests SET session = ? WHERE agent = ? AND request_id = ?', [ctx.caller.session, ctx.caller.agent, requestId]);
  }
  return results;
}

/** Remembers what a request id was answered with (keys and fences, never tokens). */
export async function rememberRequest(tx: Tx, ctx: LeaseContext, requestId: string, results: readonly ClaimResult[]): Promise<void> {
  const answer: RememberedAnswer = { items: results.map((r) => ({ key: r.issue.key, fence: r.lease.fence })) };
  await tx.run('UPDATE requests SET answer = ? WHERE agent = ? AND request_id = ?', [JSON.stringify(answer), ctx.caller.agent, requestId]);
}

/** Forgets request ids remembered before `before`: long past any retry of a lost answer. */
export async function forgetRequests(tx: Tx, before: number): Promise<void> {
  await tx.run('DELETE FROM requests WHERE at < ?', [before]);
}
