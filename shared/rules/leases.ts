import type { RandomSource } from '../clock.js';
import type { ClaimLostReason } from '../errors.js';
import { fail, ok, type Result } from '../result.js';
import type { Tx } from '../store/store.js';
import { hashToken, mintToken, sameHash } from '../tokens.js';
import type { Caller, Lease, Role } from '../types.js';
import { recordEvent } from './activity.js';
import { branchFor } from './branch.js';
import { openBlockers } from './issues.js';
import { type IssueRow, iso, type LeaseRow, limitTo, type TokenRow, type TokenState } from './rows.js';
import { WriteConflictError } from './write-conflict.js';

/**
 * The lease rules, all of them: who holds an issue, for how long, with which token.
 *
 * - A lease is live while `now < expires_at`; past it, it is dead for every check at
 *   once, whether or not the sweep has cleared it.
 * - Only a renewal (heartbeat, checkpoint, a renewer) moves `expires_at`, always to
 *   now + lease length: a full reset, never a top-up.
 * - A write that needs the lease presents the live token; anything else is refused
 *   before the write touches a row, so a superseded holder's late write changes nothing.
 * - The store keeps token hashes only; the plaintext lives in the holding session's
 *   memory (`SessionTokens`) and in the answer to it.
 * - On PostgreSQL a lease row can change between the statement that read it and the one
 *   that writes it: a renewer (`Baton.renewLeases`) updates leases without locking their
 *   issue. So a write that depends on what it read says so in its WHERE clause (this
 *   token, still expired, still live) and acts on the row count: at READ COMMITTED the
 *   server re-checks that condition on the latest version of the row after waiting for
 *   its lock. Under the file lock the condition always holds, so nothing changes there.
 */

/** What a lease operation needs besides the transaction. */
export interface LeaseContext {
  caller: Caller;
  leaseMs: number;
  random: RandomSource;
  tokens: SessionTokens;
}

/** One change to a session's tokens: a token set for a key, or the key forgotten (null). */
export type TokenChange = readonly [key: string, token: string | null];

/**
 * Plain tokens this session holds, by issue key; gone with the process, as a session is.
 * With `changes`, every change is also appended there, so an operation run on the
 * session's behalf elsewhere (a forwarded write) can hand back what it changed.
 */
export class SessionTokens {
  private readonly byKey: Map<string, string>;
  constructor(
    entries: Iterable<readonly [string, string]> = [],
    private readonly changes?: TokenChange[],
  ) {
    this.byKey = new Map(entries);
  }
  get(key: string): string | undefined {
    return this.byKey.get(key);
  }
  set(key: string, token: string): void {
    this.byKey.set(key, token);
    this.changes?.push([key, token]);
  }
  forget(key: string): void {
    this.byKey.delete(key);
    this.changes?.push([key, null]);
  }
  apply(changes: readonly TokenChange[]): void {
    for (const [key, token] of changes) {
      if (token === null) this.forget(key);
      else this.set(key, token);
    }
  }
  entries(): [string, string][] {
    return [...this.byKey];
  }
}

export function isLive(lease: LeaseRow | undefined, now: number): lease is LeaseRow {
  return lease !== undefined && Number(lease.expires_at) > now;
}

export async function getLease(tx: Tx, issueId: number): Promise<LeaseRow | undefined> {
  return tx.get<LeaseRow>('SELECT * FROM leases WHERE issue_id = ?', [issueId]);
}

/** The public view; the token only when given, which callers do for the holding session alone. */
export function leaseView(key: string, row: LeaseRow, claimToken?: string): Lease {
  const lease: Lease = {
    key,
    agent: row.agent,
    branch: row.branch,
    worktree: row.worktree,
    claimedAt: iso(row.claimed_at),
    expiresAt: iso(row.expires_at),
    lastRenewedAt: iso(row.last_renewed_at),
    renewer: row.renewer,
    fence: Number(row.fence),
  };
  if (claimToken !== undefined) lease.claimToken = claimToken;
  return lease;
}

export function holderOf(row: LeaseRow, caller: Caller): { agent: string; session: 'this' | 'other_session' } {
  return { agent: row.agent, session: row.session === caller.session ? 'this' : 'other_session' };
}

/** `by`: the agent that ended it when that is not its holder, so its holder is told (`notices`). */
async function endToken(tx: Tx, hash: string, state: TokenState, by: string | null): Promise<void> {
  await tx.run(`UPDATE tokens SET state = ?, ended_at = ?, ended_by = ? WHERE hash = ? AND state = 'live'`, [state, tx.now, by, hash]);
}

/**
 * Ends a lease (release, completion, review, an operator); the issue keeps its checkpoint.
 * `by`: the agent ending it when that is not the holder (a person's release), who is then
 * told it lost the lease; omitted when the holder ends its own lease.
 */
export async function endLease(tx: Tx, lease: LeaseRow, state: Exclude<TokenState, 'live'>, by?: string): Promise<void> {
  await tx.run('DELETE FROM leases WHERE issue_id = ?', [lease.issue_id]);
  await endToken(tx, lease.token_hash, state, by ?? null);
}

/**
 * Clears an expired lease and records it as reclaimed; the checkpoint stays for the next
 * claimer. False, with nothing changed, when the lease is no longer the expired one this
 * transaction read: a renewal committed since then, and the lease lives on.
 */
export async function reclaim(tx: Tx, issue: IssueRow, lease: LeaseRow, by: string): Promise<boolean> {
  const deleted = await tx.run('DELETE FROM leases WHERE issue_id = ? AND token_hash = ? AND expires_at <= ?', [
    lease.issue_id,
    lease.token_hash,
    tx.now,
  ]);
  if (deleted.changes === 0) return false;
  await endToken(tx, lease.token_hash, 'reclaimed', by);
  await tx.run('UPDATE issues SET reclaim_count = reclaim_count + 1 WHERE id = ?', [issue.id]);
  await recordEvent(
    tx,
    issue,
    'reclaimed',
    lease.agent,
    `lease of ${lease.agent} (fence ${lease.fence}) expired at ${iso(lease.expires_at)}; cleared by ${by}`,
  );
  return true;
}

async function lostReason(tx: Tx, issue: IssueRow, hash: string, current: LeaseRow | undefined): Promise<ClaimLostReason> {
  if (current && sameHash(current.token_hash, hash)) return 'expired';
  const token = await tx.get<TokenRow>('SELECT * FROM tokens WHERE hash = ?', [hash]);
  if (!token || Number(token.issue_id) !== issue.id) return 'never issued';
  return token.state === 'live' ? 'expired' : token.state;
}

/** `CLAIM_LOST` with the reason, and the holder when someone holds the issue now. */
async function claimLost(tx: Tx, issue: IssueRow, hash: string, current: LeaseRow | undefined, caller: Caller): Promise<Result<never>> {
  const reason = await lostReason(tx, issue, hash, current);
  const details: Record<string, unknown> = { reason };
  if (isLive(current, tx.now) && !sameHash(current.token_hash, hash)) details.holder = holderOf(current, caller);
  return fail('CLAIM_LOST', `Your claim on ${issue.key} is lost (${reason}). Stop work on it and take new work with next_issue.`, details);
}

/**
 * The fence of every write that needs the lease: the live token, of this agent, issued to
 * this session. Refusals: `CLAIM_LOST` (not the live token), `FORBIDDEN` (another agent's),
 * `CLAIM_MISMATCH` (this agent's, from another session: take it over with claim_issue).
 */
export async function authorize(tx: Tx, issue: IssueRow, token: string, caller: Caller): Promise<Result<LeaseRow>> {
  const hash = hashToken(token);
  const lease = await getLease(tx, issue.id);
  if (!isLive(lease, tx.now) || !sameHash(lease.token_hash, hash)) return claimLost(tx, issue, hash, lease, caller);
  if (lease.agent !== caller.agent) return fail('FORBIDDEN', `That claim token of ${issue.key} belongs to another agent.`);
  if (lease.session !== caller.session) {
    return fail(
      'CLAIM_MISMATCH',
      `That token of ${issue.key} was issued to another session of ${caller.agent}. Call claim_issue with it to take the lease over.`,
      { holder: holderOf(lease, caller) },
    );
  }
  return ok(lease);
}

/**
 * A full reset of the lease to now + lease length. Only the lease read, while still live:
 * if it was ended or taken over after this transaction read it (a renewer reads leases
 * without locking their issue), nothing is renewed and the transaction must run again,
 * for a renewal of a lease that is gone must never be reported.
 */
export async function renew(tx: Tx, lease: LeaseRow, leaseMs: number): Promise<LeaseRow> {
  const expires = tx.now + leaseMs;
  const renewed = await tx.run('UPDATE leases SET last_renewed_at = ?, expires_at = ? WHERE issue_id = ? AND token_hash = ? AND expires_at > ?', [
    tx.now,
    expires,
    lease.issue_id,
    lease.token_hash,
    tx.now,
  ]);
  if (renewed.changes === 0) throw new WriteConflictError(`the lease of issue ${lease.issue_id} (fence ${lease.fence}) changed before it was renewed`);
  return { ...lease, last_renewed_at: tx.now, expires_at: expires };
}

/** A claim as the holder sees it: the lease row, its plaintext token, and whether a checkpoint was waiting. */
export interface Claimed {
  lease: LeaseRow;
  token: string;
  resumed: boolean;
}

/**
 * Moves a live lease to this session with a fresh token; fence, claimedAt, branch and
 * checkpoint stay. The new session resumes whenever a checkpoint waits, including one
 * the earlier session wrote after its claim: a restarted agent must not start over.
 */
export async function takeOver(tx: Tx, issue: IssueRow, lease: LeaseRow, ctx: LeaseContext): Promise<Claimed> {
  const token = mintToken(ctx.random);
  const hash = hashToken(token);
  const { caller } = ctx;
  const moved: LeaseRow = {
    ...lease,
    token_hash: hash,
    session: caller.session,
    worktree: caller.worktree,
    renewer: caller.renewer,
    resumed: Number(lease.resumed) === 1 || issue.checkpoint_id !== null ? 1 : 0,
    last_renewed_at: tx.now,
    expires_at: tx.now + ctx.leaseMs,
  };
  await tx.run(
    'UPDATE leases SET token_hash = ?, session = ?, worktree = ?, renewer = ?, resumed = ?, last_renewed_at = ?, expires_at = ? WHERE issue_id = ?',
    [hash, moved.session, moved.worktree, moved.renewer, moved.resumed, moved.last_renewed_at, moved.expires_at, issue.id],
  );
  await endToken(tx, lease.token_hash, 'superseded', caller.agent);
  await insertToken(tx, hash, issue.id, Number(lease.fence), caller);
  await recordEvent(tx, issue, 'takeover', caller.agent, `session ${caller.session} took over fence ${lease.fence}`);
  ctx.tokens.set(issue.key, token);
  return { lease: moved, token, resumed: moved.resumed === 1 };
}

async function insertToken(tx: Tx, hash: string, issueId: number, fence: number, caller: Caller): Promise<void> {
  await tx.run(`INSERT INTO tokens (hash, issue_id, fence, agent, session, state, ended_at) VALUES (?, ?, ?, ?, ?, 'live', NULL)`, [
    hash,
    issueId,
    fence,
    caller.agent,
    caller.session,
  ]);
}

/** Whether the status lets this role claim: workers take todo/doing, reviewers take review. */
function statusAllows(issue: IssueRow, role: Role): Result<void> {
  const allowed = role === 'reviewer' ? issue.status === 'review' : issue.status === 'todo' || issue.status === 'doing';
  if (allowed) return ok(undefined);
  const hint = issue.status === 'review' ? ' It awaits review: claim it with role "reviewer".' : '';
  return fail('NOT_READY', `${issue.key} is ${issue.status} and cannot be claimed as ${role}.${hint}`, { status: issue.status });
}

/** A claim of an issue that a live lease holds: this session's own lease back, else `ALREADY_CLAIMED`. */
async function heldAnswer(tx: Tx, issue: IssueRow, lease: LeaseRow, ctx: LeaseContext): Promise<Result<Claimed>> {
  if (lease.session !== ctx.caller.session) {
    return fail('ALREADY_CLAIMED', `${issue.key} is claimed by ${lease.agent} until ${iso(lease.expires_at)}.`, {
      holder: holderOf(lease, ctx.caller),
      expiresAt: iso(lease.expires_at),
    });
  }
  const known = ctx.tokens.get(issue.key);
  // This session minted the token; a miss means its memory was lost, so it gets a fresh one.
  return ok(known ? { lease, token: known, resumed: Number(lease.resumed) === 1 } : await takeOver(tx, issue, lease, ctx));
}

/**
 * Claims an issue for this session. The issue row must already be locked by the caller.
 * With `presented` (the token of an earlier session of this agent) it is a takeover;
 * without, a fresh claim, or this session's own lease back when it already holds it.
 */
export async function claim(tx: Tx, issue: IssueRow, role: Role, ctx: LeaseContext, presented?: string): Promise<Result<Claimed>> {
  const { caller } = ctx;
  const lease = await getLease(tx, issue.id);

  if (presented !== undefined) {
    const hash = hashToken(presented);
    if (!isLive(lease, tx.now) || !sameHash(lease.token_hash, hash)) return claimLost(tx, issue, hash, lease, caller);
    if (lease.agent !== caller.agent) return fail('FORBIDDEN', `That claim token of ${issue.key} belongs to another agent.`);
    if (lease.session === caller.session) {
      ctx.tokens.set(issue.key, presented);
      return ok({ lease, token: presented, resumed: Number(lease.resumed) === 1 });
    }
    return ok(await takeOver(tx, issue, lease, ctx));
  }

  if (isLive(lease, tx.now)) return heldAnswer(tx, issue, lease, ctx);

  const allowed = statusAllows(issue, role);
  if (!allowed.ok) return allowed;
  if (role === 'worker') {
    const blockers = await openBlockers(tx, issue.id);
    if (blockers.length > 0) {
      return fail('BLOCKED', `${issue.key} is blocked by ${blockers.join(', ')}.`, { blockers });
    }
  }
  if (lease && !(await reclaim(tx, issue, lease, caller.agent))) {
    // A renewal committed after this transaction read the lease: it is live after all.
    const renewed = await getLease(tx, issue.id);
    if (!isLive(renewed, tx.now)) throw new WriteConflictError(`the lease of ${issue.key} changed while it was being reclaimed`);
    return heldAnswer(tx, issue, renewed, ctx);
  }

  const token = mintToken(ctx.random);
  const hash = hashToken(token);
  const fence = Number(issue.fence) + 1;
  const resumed = issue.checkpoint_id !== null;
  const row: LeaseRow = {
    issue_id: issue.id,
    token_hash: hash,
    agent: caller.agent,
    session: caller.session,
    role,
    branch: branchFor(issue.key, issue.title),
    worktree: caller.worktree,
    renewer: caller.renewer,
    fence,
    resumed: resumed ? 1 : 0,
    claimed_at: tx.now,
    last_renewed_at: tx.now,
    expires_at: tx.now + ctx.leaseMs,
  };
  await tx.run(
    `INSERT INTO leases (issue_id, token_hash, agent, session, role, branch, worktree, renewer, fence, resumed, claimed_at, last_renewed_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [row.issue_id, row.token_hash, row.agent, row.session, row.role, row.branch, row.worktree, row.renewer, row.fence, row.resumed, row.claimed_at, row.last_renewed_at, row.expires_at],
  );
  const status = role === 'worker' ? 'doing' : issue.status;
  await tx.run('UPDATE issues SET fence = ?, status = ?, updated_at = ? WHERE id = ?', [fence, status, tx.now, issue.id]);
  await insertToken(tx, hash, issue.id, fence, caller);
  await recordEvent(tx, issue, 'claimed', caller.agent, `${role} claim, fence ${fence}${resumed ? ', resuming from checkpoint' : ''}`);
  ctx.tokens.set(issue.key, token);
  return ok({ lease: row, token, resumed });
}

/** Whether any lease has expired without being cleared yet. */
export async function anyExpired(tx: Tx): Promise<boolean> {
  return (await tx.get('SELECT 1 AS due FROM leases WHERE expires_at <= ? LIMIT 1', [tx.now])) !== undefined;
}

/**
 * Clears up to `limit` expired leases, oldest expiry first. On PostgreSQL an issue another
 * transaction holds is skipped, to be cleared on a later tick.
 */
export async function sweepExpired(tx: Tx, limit: number, by: string): Promise<string[]> {
  const due = await tx.all<{ issue_id: number }>(`SELECT issue_id FROM leases WHERE expires_at <= ? ORDER BY expires_at ${limitTo(limit)}`, [tx.now]);
  const reclaimed: string[] = [];
  for (const { issue_id } of due) {
    const issue = await tx.get<IssueRow>(`SELECT * FROM issues WHERE id = ?${tx.dialect.skipLocked}`, [issue_id]);
    if (!issue) continue;
    const lease = await getLease(tx, issue.id);
    if (!lease || isLive(lease, tx.now)) continue;
    if (await reclaim(tx, issue, lease, by)) reclaimed.push(issue.key);
  }
  return reclaimed;
}
