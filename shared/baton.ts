import { systemRandom, type RandomSource } from './clock.js';
import type { BatonConfig } from './config.js';
import { StoreUnavailableError } from './errors.js';
import { readGitState } from './git.js';
import type * as In from './inputs.js';
import { LIMITS } from './limits.js';
import { fail, ok, type Result } from './result.js';
import { listEvents, recordEvent } from './rules/activity.js';
import { addComment, listComments } from './rules/comments.js';
import { claimNext, claimResult, readyIssues, rememberRequest, replayRequest, reserveRequest } from './rules/dispatch.js';
import { finish, judge, releaseByOperator, releaseLease, submit } from './rules/finish.js';
import { lockRelationGraph } from './rules/graph-lock.js';
import { findIssue, findIssueById, issueView, loadCheckpoint, loadRelations, lockIssues, statusesOf, summaries, touchIssue } from './rules/issues.js';
import { anyExpired, authorize, claim, getLease, holderOf, isLive, type LeaseContext, leaseView, renew, SessionTokens, sweepExpired } from './rules/leases.js';
import { listIssues, recentlyDone } from './rules/listing.js';
import { claimNotices, markActive, unnoticedLosses } from './rules/liveness.js';
import { changeRelation } from './rules/relations.js';
import { type CheckpointRow, iso, type IssueRow, type LeaseRow, placeholders, toCheckpoint } from './rules/rows.js';
import { createIssue, updateIssue } from './rules/tracking.js';
import type { Store, Tx } from './store/store.js';
import type * as T from './types.js';
import { check } from './validate.js';

export interface BatonDeps {
  store: Store;
  caller: T.Caller;
  config: BatonConfig;
  random?: RandomSource;
  /** Reads HEAD, branch and changed paths of a worktree for checkpoints. */
  git?: (worktree: string) => Promise<T.GitState | null>;
  /** The session's plain tokens, when someone else keeps them too (a forwarded write). */
  tokens?: SessionTokens;
}

/** Default number of expired leases one sweep clears. */
export const SWEEP_BATCH = 100;

/** How long ended sessions and remembered request ids are kept for anyone to look at. */
export const HISTORY_KEPT_MS = 24 * 60 * 60_000;

/**
 * Baton's operations for one session: every tool of docs/protocol.md section 5 and what people,
 * renewers and servers need besides. Each validates its input, runs as one transaction of
 * the store and answers a `Result`; a refusal changes nothing.
 */
export class Baton {
  readonly caller: T.Caller;
  readonly config: BatonConfig;
  private readonly store: Store;
  private readonly random: RandomSource;
  private readonly git: (worktree: string) => Promise<T.GitState | null>;
  private readonly tokens: SessionTokens;

  constructor(deps: BatonDeps) {
    this.store = deps.store;
    this.caller = deps.caller;
    this.config = deps.config;
    this.random = deps.random ?? systemRandom;
    this.git = deps.git ?? readGitState;
    this.tokens = deps.tokens ?? new SessionTokens();
  }

  /** HEAD, branch and changed paths of the caller's worktree, as a checkpoint records them; null outside git. */
  worktreeState(): Promise<T.GitState | null> {
    return this.caller.worktree ? this.git(this.caller.worktree) : Promise.resolve(null);
  }

  get leaseSeconds(): number {
    return this.config.leaseSeconds;
  }

  private get ctx(): LeaseContext {
    return { caller: this.caller, leaseMs: this.config.leaseSeconds * 1000, random: this.random, tokens: this.tokens };
  }

  private async write<R>(fn: (tx: Tx) => Promise<Result<R>>): Promise<Result<R>> {
    try {
      return await this.store.write(fn);
    } catch (error) {
      return unavailable(error);
    }
  }

  private async read<R>(fn: (tx: Tx) => Promise<Result<R>>): Promise<Result<R>> {
    try {
      return await this.store.read(fn);
    } catch (error) {
      return unavailable(error);
    }
  }

  /** Runs `fn` on the issue's row (locked) once the lease check passed. */
  private withLease<R>(input: In.LeaseInput, fn: (tx: Tx, issue: IssueRow, lease: LeaseRow) => Promise<Result<R>>): Promise<Result<R>> {
    return this.write(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      const lease = await authorize(tx, found.value, input.claimToken, this.caller);
      if (!lease.ok) return lease;
      return fn(tx, found.value, lease.value);
    });
  }

  private async issueAnswer(tx: Tx, id: number): Promise<Result<{ issue: T.Issue }>> {
    return ok({ issue: await issueView(tx, await findIssueById(tx, id)) });
  }

  // Dispatch and leases

  async nextIssue(input: In.NextIssueInput): Promise<Result<T.ClaimResult | null>> {
    const valid = check().labels('labels', input.labels).oneOf('role', input.role, ['worker', 'reviewer']).text('requestId', input.requestId, LIMITS.requestId).done();
    if (!valid.ok) return valid;
    const claimed = await this.claimReady(input.role ?? 'worker', input.labels ?? [], 1, input.requestId);
    return claimed.ok ? ok(claimed.value[0] ?? null) : claimed;
  }

  async nextBatch(input: In.NextBatchInput): Promise<Result<{ items: T.ClaimResult[] }>> {
    const valid = check().int('max', input.max, 1, LIMITS.batchMax).labels('labels', input.labels).text('requestId', input.requestId, LIMITS.requestId).done();
    if (!valid.ok) return valid;
    const claimed = await this.claimReady('worker', input.labels ?? [], input.max, input.requestId);
    return claimed.ok ? ok({ items: claimed.value }) : claimed;
  }

  private claimReady(role: T.Role, labels: string[], max: number, requestId?: string): Promise<Result<T.ClaimResult[]>> {
    return this.write(async (tx) => {
      if (requestId !== undefined && !(await reserveRequest(tx, this.ctx, requestId))) {
        return ok(await replayRequest(tx, this.ctx, requestId));
      }
      const results = await claimNext(tx, this.ctx, role, labels.map((l) => l.trim()), max);
      if (requestId !== undefined) await rememberRequest(tx, this.ctx, requestId, results);
      return ok(results);
    });
  }

  async claimIssue(input: In.ClaimIssueInput): Promise<Result<T.ClaimResult>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, false).oneOf('role', input.role, ['worker', 'reviewer']).done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      const claimed = await claim(tx, found.value, input.role ?? 'worker', this.ctx, input.claimToken);
      if (!claimed.ok) return claimed;
      return ok(await claimResult(tx, found.value.id, claimed.value));
    });
  }

  async checkClaim(input: In.CheckClaimInput): Promise<Result<T.ClaimStatus>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, false).done();
    if (!valid.ok) return valid;
    return this.read<T.ClaimStatus>(async (tx) => {
      const found = await findIssue(tx, input.key);
      if (!found.ok) return found;
      const lease = await getLease(tx, found.value.id);
      if (!isLive(lease, tx.now)) {
        return ok({ held: false, youHold: false, holder: null, claimedAt: null, expiresAt: null, lastRenewedAt: null, renewer: null, fence: null, secondsLeft: null });
      }
      const mine = lease.session === this.caller.session;
      const tokenMatches = input.claimToken === undefined || (await authorize(tx, found.value, input.claimToken, this.caller)).ok;
      return ok({
        held: true,
        youHold: mine && tokenMatches,
        holder: holderOf(lease, this.caller),
        claimedAt: iso(lease.claimed_at),
        expiresAt: iso(lease.expires_at),
        lastRenewedAt: iso(lease.last_renewed_at),
        renewer: lease.renewer,
        fence: Number(lease.fence),
        secondsLeft: Math.max(0, Math.floor((Number(lease.expires_at) - tx.now) / 1000)),
      });
    });
  }

  async heartbeat(input: In.LeaseInput): Promise<Result<{ lease: T.Lease }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).done();
    if (!valid.ok) return valid;
    return this.withLease(input, async (tx, issue, lease) => {
      await markActive(tx, [this.caller.session]);
      return ok({ lease: leaseView(issue.key, await renew(tx, lease, this.ctx.leaseMs), input.claimToken) });
    });
  }

  async checkpoint(input: In.CheckpointInput): Promise<Result<{ lease: T.Lease; checkpoint: T.Checkpoint }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('note', input.note, LIMITS.note, true).state('state', input.state).done();
    if (!valid.ok) return valid;
    // Read before the transaction: git is slow next to the store, and the lease is checked inside.
    const git = await this.worktreeState();
    return this.withLease(input, async (tx, issue, lease) => {
      const state = input.state === undefined ? null : JSON.stringify(input.state);
      const gitText = git === null ? null : JSON.stringify(git);
      const row = (await tx.get<CheckpointRow>(
        'INSERT INTO checkpoints (issue_id, note, state, agent, git, at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
        [issue.id, input.note, state, this.caller.agent, gitText, tx.now],
      ))!;
      await touchIssue(tx, issue.id, { checkpoint_id: row.id });
      const renewed = await renew(tx, lease, this.ctx.leaseMs);
      await markActive(tx, [this.caller.session]);
      await recordEvent(tx, issue, 'checkpoint', this.caller.agent, input.note.length > 120 ? `${input.note.slice(0, 117)}...` : input.note);
      return ok({ lease: leaseView(issue.key, renewed, input.claimToken), checkpoint: toCheckpoint(row) });
    });
  }

  async release(input: In.ReleaseInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('note', input.note, LIMITS.note).done();
    if (!valid.ok) return valid;
    return this.withLease(input, async (tx, issue, lease) => {
      await releaseLease(tx, issue, lease, this.caller.agent, input.note);
      this.tokens.forget(issue.key);
      return this.issueAnswer(tx, issue.id);
    });
  }

  async done(input: In.DoneInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('summary', input.summary, LIMITS.summary).done();
    if (!valid.ok) return valid;
    return this.withLease(input, async (tx, issue, lease) => {
      await finish(tx, issue, lease, this.caller, this.config.requireReview, input.summary);
      this.tokens.forget(issue.key);
      return this.issueAnswer(tx, issue.id);
    });
  }

  async submitForReview(input: In.SubmitForReviewInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('summary', input.summary, LIMITS.summary, true).done();
    if (!valid.ok) return valid;
    return this.withLease(input, async (tx, issue, lease) => {
      await submit(tx, issue, lease, this.caller, input.summary);
      this.tokens.forget(issue.key);
      return this.issueAnswer(tx, issue.id);
    });
  }

  async review(input: In.ReviewInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).oneOf('verdict', input.verdict, ['approve', 'changes']).text('note', input.note, LIMITS.note).done();
    if (!valid.ok) return valid;
    if (input.verdict === undefined) return fail('INVALID_INPUT', 'Invalid input: verdict: required.', { issues: [{ path: 'verdict', message: 'required' }] });
    return this.withLease(input, async (tx, issue, lease) => {
      const judged = await judge(tx, issue, lease, this.caller, input.verdict, input.note);
      if (!judged.ok) return judged;
      this.tokens.forget(issue.key);
      return this.issueAnswer(tx, issue.id);
    });
  }

  // Tracking

  async createIssue(input: In.CreateIssueInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check()
      .text('title', input.title, LIMITS.title, true)
      .text('body', input.body, LIMITS.body)
      .priority('priority', input.priority)
      .labels('labels', input.labels)
      .keys('blockedBy', input.blockedBy)
      .key('parent', input.parent)
      .done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      const created = await createIssue(tx, this.caller, this.config.prefix, input);
      return created.ok ? this.issueAnswer(tx, created.value.id) : created;
    });
  }

  async updateIssue(input: In.UpdateIssueInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check()
      .key('key', input.key)
      .text('title', input.title, LIMITS.title, input.title !== undefined)
      .text('body', input.body, LIMITS.body)
      .priority('priority', input.priority)
      .labels('labels', input.labels)
      .oneOf('status', input.status, ['todo', 'doing', 'review', 'done', 'cancelled'])
      .done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      // The rule answers the row as it now stands: no need to read it again.
      const updated = await updateIssue(tx, this.caller, this.tokens, input);
      return updated.ok ? ok({ issue: await issueView(tx, updated.value) }) : updated;
    });
  }

  async getIssue(input: { key: string }): Promise<Result<T.IssueDetail>> {
    const valid = check().key('key', input.key).done();
    if (!valid.ok) return valid;
    return this.read(async (tx) => {
      const found = await findIssue(tx, input.key);
      if (!found.ok) return found;
      const row = found.value;
      const lease = await getLease(tx, row.id);
      const live = isLive(lease, tx.now) ? lease : null;
      const token = live && live.session === this.caller.session ? this.tokens.get(row.key) : undefined;
      return ok({
        issue: await issueView(tx, row),
        lease: live ? leaseView(row.key, live, token) : null,
        checkpoint: await loadCheckpoint(tx, row),
        relations: await loadRelations(tx, row),
        comments: await listComments(tx, row.id),
        activity: await listEvents(tx, row.id, LIMITS.detailActivity),
      });
    });
  }

  async listIssues(input: In.ListIssuesInput): Promise<Result<{ issues: T.IssueSummary[]; nextCursor: string | null }>> {
    const valid = check()
      .oneOf('status', input.status, ['todo', 'doing', 'review', 'done', 'cancelled'])
      .text('label', input.label, LIMITS.label)
      .text('text', input.text, LIMITS.title)
      .int('limit', input.limit, 1, LIMITS.listMax)
      .text('cursor', input.cursor, 200)
      .done();
    if (!valid.ok) return valid;
    return this.read((tx) => listIssues(tx, input));
  }

  async relate(input: In.RelateInput): Promise<Result<{ issue: T.Issue; relations: T.Relations }>> {
    const valid = check().key('key', input.key).key('other', input.other).oneOf('type', input.type, ['blocks', 'blockedBy', 'relatesTo', 'parent']).done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      // The graph's lock before any row's (see lockRelationGraph), then both issues in id order.
      await lockRelationGraph(tx);
      const issue = await findIssue(tx, input.key);
      if (!issue.ok) return issue;
      const other = await findIssue(tx, input.other);
      if (!other.ok) return other;
      await lockIssues(tx, [issue.value.id, other.value.id]);
      const changed = await changeRelation(tx, issue.value.id, input.type, other.value.id, input.remove === true);
      if (!changed.ok) return changed;
      if (changed.value.changed) {
        await touchIssue(tx, issue.value.id, {});
        const verb = input.remove ? 'unrelated' : 'related';
        await recordEvent(tx, issue.value, verb, this.caller.agent, `${input.remove ? 'removed' : 'added'}: ${input.type} ${other.value.key}`);
      }
      const row = await findIssueById(tx, issue.value.id);
      return ok({ issue: await issueView(tx, row), relations: await loadRelations(tx, row) });
    });
  }

  async comment(input: In.CommentInput): Promise<Result<{ comment: T.Comment }>> {
    const valid = check().key('key', input.key).text('text', input.text, LIMITS.comment, true).done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      return ok({ comment: await addComment(tx, found.value, this.caller.agent, input.text) });
    });
  }

  async listClaims(): Promise<Result<{ claims: T.ClaimView[] }>> {
    return this.read(async (tx) => {
      const rows = await tx.all<LeaseRow & { key: string; title: string; checkpoint_id: number | null; last_active_at: number | null }>(
        `SELECT l.*, i.key, i.title, i.checkpoint_id, s.last_active_at FROM leases l JOIN issues i ON i.id = l.issue_id
         LEFT JOIN sessions s ON s.id = l.session
         WHERE l.expires_at > ? ORDER BY l.claimed_at DESC, i.number DESC`,
        [tx.now],
      );
      const checkpoints = await checkpointsById(tx, rows.map((r) => r.checkpoint_id).filter((id): id is number => id !== null));
      return ok({
        claims: rows.map((r) => ({
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
      });
    });
  }

  async activity(input: In.ActivityInput): Promise<Result<{ events: T.ActivityEvent[] }>> {
    const valid = check().key('key', input.key).int('limit', input.limit, 1, LIMITS.activityMax).done();
    if (!valid.ok) return valid;
    return this.read(async (tx) => {
      let issueId: number | null = null;
      if (input.key !== undefined) {
        const found = await findIssue(tx, input.key);
        if (!found.ok) return found;
        issueId = found.value.id;
      }
      return ok({ events: await listEvents(tx, issueId, input.limit ?? LIMITS.activityDefault) });
    });
  }

  // For people, renewers and servers

  /** Ready issues in dispatch order, claiming nothing. */
  async readyQueue(input: { limit?: number; labels?: string[] } = {}): Promise<Result<{ issues: T.IssueSummary[] }>> {
    const valid = check().int('limit', input.limit, 1, LIMITS.listMax).labels('labels', input.labels).done();
    if (!valid.ok) return valid;
    return this.read(async (tx) => ok({ issues: await summaries(tx, await readyIssues(tx, 'worker', input.labels ?? [], input.limit ?? LIMITS.listDefault)) }));
  }

  /** The fence of every live lease by issue key, in one read: for the editor, which releases a claim only at the fence it showed. */
  async liveFences(): Promise<Result<Record<string, number>>> {
    return this.read(async (tx) => {
      const rows = await tx.all<{ key: string; fence: number }>(
        'SELECT i.key, l.fence FROM leases l JOIN issues i ON i.id = l.issue_id WHERE l.expires_at > ?',
        [tx.now],
      );
      return ok(Object.fromEntries(rows.map((r) => [r.key, Number(r.fence)])));
    });
  }

  /** Done issues, those finished (or edited) last first: for the editor's Done list. */
  async recentlyDone(input: { limit?: number } = {}): Promise<Result<{ issues: T.IssueSummary[] }>> {
    const valid = check().int('limit', input.limit, 1, LIMITS.listMax).done();
    if (!valid.ok) return valid;
    return this.read(async (tx) => ok({ issues: await recentlyDone(tx, input.limit ?? LIMITS.listDefault) }));
  }

  /**
   * The status of each issue among `keys` (as the store gives them, in `blockedBy` say),
   * in one read; keys that name no issue are left out. For the editor, whose Blocked list
   * meets blockers in none of the lists it read.
   */
  async issueStatuses(keys: readonly string[]): Promise<Result<Map<string, T.Status>>> {
    const valid = keys.reduce((checks, key, i) => checks.key(`keys.${i}`, key), check()).done();
    if (!valid.ok) return valid;
    return this.read(async (tx) => ok(await statusesOf(tx, keys)));
  }

  /**
   * Ends whatever live lease holds the issue, without its token: for `baton release` and the editor.
   * With `fence`, only the claim of that fence: a claim taken since is left alone and `released` is false.
   */
  async releaseAsOperator(input: { key: string; note?: string; fence?: number }): Promise<Result<{ issue: T.Issue; released: boolean }>> {
    const valid = check().key('key', input.key).text('note', input.note, LIMITS.note).int('fence', input.fence, 1, Number.MAX_SAFE_INTEGER).done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      const released = await releaseByOperator(tx, found.value, this.caller.agent, input.note, input.fence);
      return ok({ issue: await issueView(tx, await findIssueById(tx, found.value.id)), released });
    });
  }

  /** A renewer's full reset of the live leases held by these sessions (optionally only those it is recorded on). */
  async renewLeases(input: In.RenewInput): Promise<Result<{ leases: T.Lease[] }>> {
    if (input.sessions.length === 0) return ok({ leases: [] });
    return this.write(async (tx) => {
      // A renewer's renewal is no sign of life, or no agent would ever be idle: only a hook's is.
      const filter = input.renewer === undefined ? '' : ' AND l.renewer = ?';
      const rows = await tx.all<LeaseRow & { key: string }>(
        `SELECT l.*, i.key FROM leases l JOIN issues i ON i.id = l.issue_id
         WHERE l.expires_at > ? AND l.session IN (${placeholders(input.sessions.length)})${filter} ORDER BY l.issue_id`,
        [tx.now, ...input.sessions, ...(input.renewer === undefined ? [] : [input.renewer])],
      );
      const leases: T.Lease[] = [];
      // In issue order, as every write that changes several issues locks them: two renewers
      // of overlapping sessions then queue instead of deadlocking on PostgreSQL.
      for (const row of rows) leases.push(leaseView(row.key, await renew(tx, row, this.ctx.leaseMs)));
      if (input.active) await markActive(tx, input.sessions);
      return ok({ leases });
    });
  }

  /**
   * Records this server process so renewers can tell whether it still runs. A server
   * starting also clears what every server start and every `requestId` would otherwise
   * add to for good. Sessions holding no live lease go when they ended `HISTORY_KEPT_MS`
   * ago, or at once when named in `gone`: sessions whose process it found dead, which
   * nobody renews. Request ids go when that old, long past any retry of a lost answer.
   */
  async registerSession(input: { pid: number; host: string; gone?: readonly string[] }): Promise<Result<T.SessionRecord>> {
    return this.write(async (tx) => {
      const { caller } = this;
      const before = tx.now - HISTORY_KEPT_MS;
      const gone = (input.gone ?? []).filter((id) => id !== caller.session);
      const orGone = gone.length > 0 ? ` OR (ended_at IS NULL AND id IN (${placeholders(gone.length)}))` : '';
      await tx.run(`DELETE FROM sessions WHERE (ended_at < ?${orGone}) AND id NOT IN (SELECT session FROM leases WHERE expires_at > ?)`, [
        before,
        ...gone,
        tx.now,
      ]);
      await tx.run('DELETE FROM requests WHERE at < ?', [before]);
      await tx.run(
        `INSERT INTO sessions (id, agent, pid, host, renewer, worktree, started_at, ended_at, last_active_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)
         ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, pid = excluded.pid, host = excluded.host, renewer = excluded.renewer, worktree = excluded.worktree, ended_at = NULL, last_active_at = excluded.last_active_at`,
        [caller.session, caller.agent, input.pid, input.host, caller.renewer, caller.worktree, tx.now, tx.now],
      );
      const at = iso(tx.now);
      return ok({ id: caller.session, agent: caller.agent, pid: input.pid, host: input.host, renewer: caller.renewer, worktree: caller.worktree, startedAt: at, endedAt: null, lastActiveAt: at });
    });
  }

  /** Marks this session ended; its leases live on until they expire or are taken over. */
  async endSession(): Promise<Result<void>> {
    return this.write(async (tx) => {
      await tx.run('UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL', [tx.now, this.caller.session]);
      return ok(undefined);
    });
  }

  /**
   * The sessions that matter now, newest first: those not ended (running, or gone without
   * ending) and those whose lease lives on. The editor reads these at every change of the
   * store, and ended sessions stay for a day (`registerSession`): over all 10,000 sessions
   * of a long-used database that took 66-70 ms, over these 1.7.
   */
  async listSessions(): Promise<Result<{ sessions: T.SessionRecord[] }>> {
    return this.read(async (tx) => {
      const rows = await tx.all<{
        id: string;
        agent: string;
        pid: number;
        host: string;
        renewer: string | null;
        worktree: string | null;
        started_at: number;
        ended_at: number | null;
        last_active_at: number | null;
      }>(
        `SELECT * FROM sessions WHERE ended_at IS NULL OR id IN (SELECT session FROM leases WHERE expires_at > ?)
         ORDER BY started_at DESC`,
        [tx.now],
      );
      return ok({
        sessions: rows.map((r) => ({
          id: r.id,
          agent: r.agent,
          pid: Number(r.pid),
          host: r.host,
          renewer: r.renewer,
          worktree: r.worktree,
          startedAt: iso(r.started_at),
          endedAt: r.ended_at === null ? null : iso(r.ended_at),
          lastActiveAt: r.last_active_at === null ? null : iso(Number(r.last_active_at)),
        })),
      });
    });
  }

  /** Clears up to `limit` expired leases, recording each as reclaimed. */
  async sweep(limit = SWEEP_BATCH): Promise<Result<{ reclaimed: string[] }>> {
    // Every server sweeps on a timer: look first, so an idle tick takes no cross-process lock.
    const due = await this.read(async (tx) => ok(await anyExpired(tx)));
    if (!due.ok || !due.value) return due.ok ? ok({ reclaimed: [] }) : due;
    return this.write(async (tx) => ok({ reclaimed: await sweepExpired(tx, limit, this.caller.agent) }));
  }

  /** Keys of live leases this session holds that no renewer keeps alive. */
  async unrenewedLeases(): Promise<Result<string[]>> {
    return this.read(async (tx) => {
      const rows = await tx.all<{ key: string }>(
        'SELECT i.key FROM leases l JOIN issues i ON i.id = l.issue_id WHERE l.session = ? AND l.renewer IS NULL AND l.expires_at > ?',
        [this.caller.session, tx.now],
      );
      return ok(rows.map((r) => r.key));
    });
  }

  // Liveness (docs/protocol.md, "Liveness")

  /** Records a sign of life of these sessions' agents (this session's by default). */
  async markActive(input: { sessions?: string[] } = {}): Promise<Result<void>> {
    return this.write(async (tx) => {
      await markActive(tx, input.sessions ?? [this.caller.session]);
      return ok(undefined);
    });
  }

  /**
   * The leases these sessions (this one by default) lost that nobody told them of yet,
   * each answered once: a read, and a write only when there is a loss to tell.
   */
  async leaseNotices(input: { sessions?: string[] } = {}): Promise<Result<{ notices: T.LeaseNotice[] }>> {
    const sessions = input.sessions ?? [this.caller.session];
    const found = await this.read(async (tx) => ok(await unnoticedLosses(tx, sessions)));
    if (!found.ok || found.value.length === 0) return found.ok ? ok({ notices: [] }) : found;
    const losses = found.value;
    return this.write(async (tx) => ok({ notices: (await claimNotices(tx, losses)).map(({ hash: _, ...notice }) => notice) }));
  }

  /** Records, once per lease, that a renewer stopped renewing it and why (`renewal_stopped`). */
  async recordRenewalStopped(input: { stops: { key: string; detail: string }[] }): Promise<Result<void>> {
    if (input.stops.length === 0) return ok(undefined);
    return this.write(async (tx) => {
      for (const stop of input.stops) {
        const found = await findIssue(tx, stop.key);
        if (found.ok) await recordEvent(tx, found.value, 'renewal_stopped', this.caller.agent, stop.detail);
      }
      return ok(undefined);
    });
  }
}

async function checkpointsById(tx: Tx, ids: number[]): Promise<Map<number, T.Checkpoint>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.all<CheckpointRow>(`SELECT * FROM checkpoints WHERE id IN (${placeholders(ids.length)})`, ids);
  return new Map(rows.map((r) => [Number(r.id), toCheckpoint(r)]));
}

function unavailable(error: unknown): Result<never> {
  if (error instanceof StoreUnavailableError) return fail('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason });
  throw error;
}
