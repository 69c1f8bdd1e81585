import type * as In from './inputs.js';
import { LIMITS } from './limits.js';
import { fail, ok, type Result } from './result.js';
import { listEvents, recordEvent } from './rules/activity.js';
import { addCheckpoint } from './rules/checkpoints.js';
import { addComment, listComments } from './rules/comments.js';
import { planContinuation, sessionIn } from './rules/continuation.js';
import { claimNext, claimResult, rememberRequest, replayRequest, reserveRequest } from './rules/dispatch.js';
import { finish, judge, releaseLease, submit } from './rules/finish.js';
import { lockRelationGraph } from './rules/graph-lock.js';
import { findIssue, findIssueById, issueView, loadCheckpoint, loadRelations, lockIssues, touchIssue } from './rules/issues.js';
import { authorize, claim, getLease, holderOf, isLive, leaseView, renew } from './rules/leases.js';
import { listIssues } from './rules/listing.js';
import { lastActiveOf, markActive } from './rules/liveness.js';
import { overlapsFor } from './rules/overlaps.js';
import { changeRelation } from './rules/relations.js';
import { iso } from './rules/rows.js';
import { createIssue, updateIssue } from './rules/tracking.js';
import { ServiceOperations } from './service-operations.js';
import type * as T from './types.js';
import { SETTABLE_STATUSES, STATUSES } from './types.js';
import { check } from './validate.js';

export type { BatonDeps } from './session-operations.js';
export { PRUNE_BATCH, SWEEP_BATCH } from './service-operations.js';
export { HISTORY_KEPT_MS } from './rules/sessions.js';

/**
 * Baton's operations for one session: every tool of docs/protocol.md section 5, and (from
 * `ServiceOperations`) what people, renewers and servers need besides. Each validates its
 * input, runs as one transaction of the store calling the rules of `rules/`, and answers a
 * `Result`; a refusal changes nothing. The SQL lives in the rules, never here.
 */
export class Baton extends ServiceOperations {
  // Dispatch and leases

  async nextIssue(input: In.NextIssueInput): Promise<Result<T.ClaimResult | null>> {
    const valid = check().labels('labels', input.labels).oneOf('role', input.role, ['worker', 'reviewer']).text('requestId', input.requestId, LIMITS.requestId).done();
    if (!valid.ok) return valid;
    const claimed = await this.claimReady(input.role ?? 'worker', input.labels ?? [], 1, input.requestId);
    return claimed.ok ? ok(claimed.value[0] ? await this.withContinuation(claimed.value[0]) : null) : claimed;
  }

  async nextBatch(input: In.NextBatchInput): Promise<Result<{ items: T.ClaimResult[] }>> {
    const valid = check().int('max', input.max, 1, LIMITS.batchMax).labels('labels', input.labels).text('requestId', input.requestId, LIMITS.requestId).done();
    if (!valid.ok) return valid;
    const claimed = await this.claimReady('worker', input.labels ?? [], input.max, input.requestId);
    return claimed.ok ? ok({ items: await Promise.all(claimed.value.map((c) => this.withContinuation(c))) }) : claimed;
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
    const claimed = await this.write(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      const claimed = await claim(tx, found.value, input.role ?? 'worker', this.ctx, input.claimToken);
      if (!claimed.ok) return claimed;
      return ok(await claimResult(tx, found.value.id, claimed.value));
    });
    return claimed.ok ? ok(await this.withContinuation(claimed.value)) : claimed;
  }

  /**
   * A claim of an issue someone worked on before, whose branch another worktree has checked
   * out, gets how to continue that branch here (rules/continuation.ts). Git is read after
   * the transaction, as a checkpoint reads it before.
   */
  private async withContinuation(result: T.ClaimResult): Promise<T.ClaimResult> {
    const worktree = this.caller.worktree;
    if (!worktree || (!result.resumed && result.lease.fence <= 1)) return result;
    const plan = await planContinuation(worktree, result.lease.branch);
    if (!plan) return result;
    const session = await this.read(async (tx) => ok(await sessionIn(tx, plan.checkedOutIn)));
    return { ...result, continueFrom: { ...plan, session: session.ok ? session.value : null } };
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
    return this.withLease('heartbeat', input, async (tx, issue, lease) => {
      await markActive(tx, [this.caller.session]);
      return ok({ lease: leaseView(issue.key, await renew(tx, lease, this.ctx.leaseMs), input.claimToken) });
    });
  }

  async checkpoint(input: In.CheckpointInput): Promise<Result<{ lease: T.Lease; checkpoint: T.Checkpoint; overlaps: T.Overlap[] }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('note', input.note, LIMITS.note, true).state('state', input.state).done();
    if (!valid.ok) return valid;
    // Read before the transaction: git is slow next to the store, and the lease is checked inside.
    const git = await this.worktreeState();
    return this.withLease('checkpoint', input, async (tx, issue, lease) => {
      const checkpoint = await addCheckpoint(tx, issue.id, { note: input.note, state: input.state, agent: this.caller.agent, git });
      const renewed = await renew(tx, lease, this.ctx.leaseMs);
      await markActive(tx, [this.caller.session]);
      await recordEvent(tx, issue, 'checkpoint', this.caller.agent, input.note.length > 120 ? `${input.note.slice(0, 117)}...` : input.note);
      const overlaps = await overlapsFor(tx, { key: issue.key, agent: lease.agent, worktree: lease.worktree }, git);
      return ok({ lease: leaseView(issue.key, renewed, input.claimToken), checkpoint, overlaps });
    });
  }

  async release(input: In.ReleaseInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('note', input.note, LIMITS.note).done();
    if (!valid.ok) return valid;
    return this.withLease('release', input, async (tx, issue, lease) => {
      await releaseLease(tx, issue, lease, this.caller.agent, input.note);
      this.tokens.forget(issue.key);
      return this.issueAnswer(tx, issue.id);
    });
  }

  async done(input: In.DoneInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('summary', input.summary, LIMITS.summary).done();
    if (!valid.ok) return valid;
    return this.withLease('done', input, async (tx, issue, lease) => {
      await finish(tx, issue, lease, this.caller, this.config.requireReview, input.summary);
      this.tokens.forget(issue.key);
      return this.issueAnswer(tx, issue.id);
    });
  }

  async submitForReview(input: In.SubmitForReviewInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).text('summary', input.summary, LIMITS.summary, true).done();
    if (!valid.ok) return valid;
    return this.withLease('submit_for_review', input, async (tx, issue, lease) => {
      await submit(tx, issue, lease, this.caller, input.summary);
      this.tokens.forget(issue.key);
      return this.issueAnswer(tx, issue.id);
    });
  }

  async review(input: In.ReviewInput): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).token('claimToken', input.claimToken, true).oneOf('verdict', input.verdict, ['approve', 'changes']).text('note', input.note, LIMITS.note).done();
    if (!valid.ok) return valid;
    if (input.verdict === undefined) return fail('INVALID_INPUT', 'Invalid input: verdict: required.', { issues: [{ path: 'verdict', message: 'required' }] });
    return this.withLease('review', input, async (tx, issue, lease) => {
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
      .oneOf('status', input.status, SETTABLE_STATUSES)
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
      const checkpoint = await loadCheckpoint(tx, row);
      return ok({
        issue: await issueView(tx, row),
        lease: live ? { ...leaseView(row.key, live, token), lastActiveAt: await lastActiveOf(tx, live.session) } : null,
        checkpoint,
        relations: await loadRelations(tx, row),
        comments: await listComments(tx, row.id),
        activity: await listEvents(tx, row.id, LIMITS.detailActivity),
        overlaps: live ? await overlapsFor(tx, { key: row.key, agent: live.agent, worktree: live.worktree }, checkpoint?.git) : [],
      });
    });
  }

  async listIssues(input: In.ListIssuesInput): Promise<Result<{ issues: T.IssueSummary[]; nextCursor: string | null }>> {
    const valid = check()
      .oneOf('status', input.status, STATUSES)
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
}
