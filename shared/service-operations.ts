import { buildStory, type Story } from './history/story.js';
import type { HookProcess } from './hooks/agent-sessions.js';
import { answerHook } from './hooks/answer-hook.js';
import type { HookAnswer, HookInput } from './hooks/hook-event.js';
import type * as In from './inputs.js';
import { LIMITS } from './limits.js';
import { ok, type Result } from './result.js';
import { recordEvent } from './rules/activity.js';
import { listClaims, liveFences, renewSessionLeases } from './rules/claims.js';
import { forgetRequests, readyIssues } from './rules/dispatch.js';
import { releaseByOperator } from './rules/finish.js';
import { findIssue, findIssueById, issueView, statusesOf, summaries } from './rules/issues.js';
import { anyExpired, sweepExpired } from './rules/leases.js';
import { recentlyDone } from './rules/listing.js';
import { claimNotices, endSessions, markActive, unnoticedLosses } from './rules/liveness.js';
import { closeByOperator, reopenIssue } from './rules/operator.js';
import { type PushRefusal, type PushUpdate, pushRefusals } from './rules/push-guard.js';
import { DAY_MS, NOTHING_PRUNED, prune, prunedAll, pruneDue, type Pruned } from './rules/retention.js';
import { currentSessions, endSession, forgetSessions, HISTORY_KEPT_MS, recordSession, unrenewedLeases } from './rules/sessions.js';
import { SessionOperations } from './session-operations.js';
import type { Tx } from './store/store.js';
import type * as T from './types.js';
import { check } from './validate.js';

/** Default number of expired leases one sweep clears. */
export const SWEEP_BATCH = 100;

/** Rows of each kind one run of retention folds at most: a server's run at start or daily stays short. */
export const PRUNE_BATCH = 5000;

/**
 * The operations of people (the CLI, the editor), of renewers, of servers and of hooks,
 * and `listClaims`, which they share with the agents' `list_claims`. `Baton` adds the
 * agents' tools; both are one session's operations.
 */
export abstract class ServiceOperations extends SessionOperations {
  /** Ready issues in dispatch order, claiming nothing. */
  async readyQueue(input: { limit?: number; labels?: string[] } = {}): Promise<Result<{ issues: T.IssueSummary[] }>> {
    const valid = check().int('limit', input.limit, 1, LIMITS.listMax).labels('labels', input.labels).done();
    if (!valid.ok) return valid;
    return this.read(async (tx) => ok({ issues: await summaries(tx, await readyIssues(tx, 'worker', input.labels ?? [], input.limit ?? LIMITS.listDefault)) }));
  }

  /** The fence of every live lease by issue key, in one read: for the editor, which releases a claim only at the fence it showed. */
  async liveFences(): Promise<Result<Record<string, number>>> {
    return this.read(async (tx) => ok(await liveFences(tx)));
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
   * Retention: folds history of finished issues older than `olderThanDays` (default the
   * `historyDays` setting) into per-issue summaries, at most `limit` rows of each kind
   * (shared/rules/retention.ts). `more` says a further run has work.
   */
  async prune(input: { olderThanDays?: number; limit?: number } = {}): Promise<Result<Pruned>> {
    const valid = check().int('olderThanDays', input.olderThanDays, 0, 36_500).int('limit', input.limit, 1, 1_000_000).done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => ok(await this.pruneIn(tx, input)));
  }

  /**
   * Retention as a running server applies it, at its start and daily
   * (mcp-server/retention.ts): a `prune`, unless this process pruned the database to the
   * end within the last hour. Servers send it to the writer like any write, so of the
   * servers that start together one prunes and the others hear there is nothing to do.
   */
  async pruneIfDue(): Promise<Result<Pruned>> {
    const { location } = this.store;
    const due = await this.read(async (tx) => ok(pruneDue(location, tx.now)), { quiet: true });
    if (!due.ok || !due.value) return due.ok ? ok({ ...NOTHING_PRUNED }) : due;
    let at = 0;
    const pruned = await this.write(async (tx) => {
      at = tx.now;
      return ok(await this.pruneIn(tx, {}));
    });
    if (pruned.ok && !pruned.value.more) prunedAll(location, at);
    return pruned;
  }

  private pruneIn(tx: Tx, input: { olderThanDays?: number; limit?: number }): Promise<Pruned> {
    const days = input.olderThanDays ?? this.config.historyDays;
    return prune(tx, tx.now - days * DAY_MS, tx.now - HISTORY_KEPT_MS, input.limit ?? PRUNE_BATCH);
  }

  /** `baton why`: the issue's story in order, one line an event (shared/history/story.ts). */
  async story(input: { key: string }): Promise<Result<Story>> {
    const valid = check().key('key', input.key).done();
    if (!valid.ok) return valid;
    return this.read((tx) => buildStory(tx, input.key));
  }

  /** `baton close`: ends whatever live lease holds the issue, as `releaseAsOperator` does, and marks it done. */
  async closeAsOperator(input: { key: string; reason?: string }): Promise<Result<{ issue: T.Issue; released: boolean }>> {
    const valid = check().key('key', input.key).text('reason', input.reason, LIMITS.note).done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      const closed = await closeByOperator(tx, found.value, this.caller.agent, this.config.maxReclaims, input.reason);
      return closed.ok ? ok({ issue: await issueView(tx, await findIssueById(tx, found.value.id)), released: closed.value.released }) : closed;
    });
  }

  /** `baton reopen`: a done, cancelled or stuck issue back to todo. */
  async reopen(input: { key: string }): Promise<Result<{ issue: T.Issue }>> {
    const valid = check().key('key', input.key).done();
    if (!valid.ok) return valid;
    return this.write(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      const reopened = await reopenIssue(tx, found.value, this.caller.agent);
      return reopened.ok ? this.issueAnswer(tx, found.value.id) : reopened;
    });
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
      const released = await releaseByOperator(tx, found.value, this.caller.agent, this.config.maxReclaims, input.note, input.fence);
      return ok({ issue: await issueView(tx, await findIssueById(tx, found.value.id)), released });
    });
  }

  /** A renewer's full reset of the live leases held by these sessions (optionally only those it is recorded on). */
  async renewLeases(input: In.RenewInput): Promise<Result<{ leases: T.Lease[] }>> {
    if (input.sessions.length === 0) return ok({ leases: [] });
    return this.write(async (tx) => {
      const leases = await renewSessionLeases(tx, this.ctx.leaseMs, input.sessions, input.renewer);
      // A renewer's renewal is no sign of life, or no agent would ever be idle: only a hook's is.
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
      const before = tx.now - HISTORY_KEPT_MS;
      await forgetSessions(tx, before, (input.gone ?? []).filter((id) => id !== this.caller.session));
      await forgetRequests(tx, before);
      return ok(await recordSession(tx, this.caller, input.pid, input.host));
    });
  }

  /** Marks this session ended; its leases live on until they expire or are taken over. */
  async endSession(): Promise<Result<void>> {
    return this.write(async (tx) => ok(await endSession(tx, this.caller.session)));
  }

  /** The sessions that matter now, newest first: those not ended and those whose lease lives on. */
  async listSessions(): Promise<Result<{ sessions: T.SessionRecord[] }>> {
    return this.read(async (tx) => ok({ sessions: await currentSessions(tx) }));
  }

  /** Clears up to `limit` expired leases, recording each as reclaimed. */
  async sweep(limit = SWEEP_BATCH): Promise<Result<{ reclaimed: string[] }>> {
    // Every server sweeps on a timer: look first, so an idle tick takes no cross-process lock.
    const due = await this.read(async (tx) => ok(await anyExpired(tx)));
    if (!due.ok || !due.value) return due.ok ? ok({ reclaimed: [] }) : due;
    return this.write(async (tx) => ok({ reclaimed: await sweepExpired(tx, limit, this.caller.agent, this.config.maxReclaims) }));
  }

  /** Keys of live leases this session holds that no renewer keeps alive. */
  async unrenewedLeases(): Promise<Result<string[]>> {
    return this.read(async (tx) => ok(await unrenewedLeases(tx, this.caller.session)));
  }

  /** Every live claim with its countdown, checkpoint, overlaps and its agent's last sign of life (`list_claims`). */
  async listClaims(): Promise<Result<{ claims: T.ClaimView[] }>> {
    return this.read(async (tx) => ok({ claims: await listClaims(tx) }));
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
   * each answered once: a read at every call (`lostLeases`), and a write only when there is
   * a loss to tell (`tellLosses`). Each is an operation of its own, so that a server that
   * holds no copy of the database sends both to the one that does.
   */
  async leaseNotices(input: { sessions?: string[] } = {}): Promise<Result<{ notices: T.LeaseNotice[] }>> {
    // A session can lose only a lease it holds a token of: one that holds none asks nothing.
    if (input.sessions === undefined && this.tokens.entries().length === 0) return ok({ notices: [] });
    const found = await this.lostLeases({ sessions: input.sessions ?? [this.caller.session] });
    if (!found.ok || found.value.length === 0) return found.ok ? ok({ notices: [] }) : found;
    return this.tellLosses({ losses: found.value });
  }

  /**
   * This core as one tool call uses it, and the notices of the session's lost leases to
   * give with that call's answer. A server that sends its calls to the writer has the
   * look-up ride with the call's own request (shared/forwarding/forward-calls.ts).
   */
  forCall(): CallScope<this> {
    return { core: this, notices: () => this.leaseNotices() };
  }

  /** Leases these sessions lost and were not told of, with their tokens' hashes (never the tokens). */
  async lostLeases(input: { sessions: string[] }): Promise<Result<T.LostLease[]>> {
    return this.read(async (tx) => ok(await unnoticedLosses(tx, input.sessions)), { quiet: true });
  }

  /** Marks these losses told and answers those not told before (another call may have told one meanwhile). */
  async tellLosses(input: { losses: T.LostLease[] }): Promise<Result<{ notices: T.LeaseNotice[] }>> {
    return this.write(async (tx) => ok({ notices: (await claimNotices(tx, input.losses)).map(({ hash: _, ...notice }) => notice) }));
  }

  /** Marks these sessions ended (a hook saw their agent end); their leases live on until they expire or are taken over. */
  async endSessions(input: { sessions: string[] }): Promise<Result<void>> {
    return this.write(async (tx) => {
      await endSessions(tx, input.sessions);
      return ok(undefined);
    });
  }

  /** Answers one hook event of an agent (shared/hooks/answer-hook.ts); `now`: the store's clock where it is not this machine's. */
  async hookEvent(input: HookInput, hook: HookProcess, now = Date.now()): Promise<Result<HookAnswer | null>> {
    return ok(await answerHook(this, input, hook, now));
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

  /** The push rule (rules/push-guard.ts) for these updates from `worktree`: what `baton guard check` refuses. */
  async pushRefusals(input: { worktree: string | null; updates: PushUpdate[] }): Promise<Result<PushRefusal[]>> {
    return this.read(async (tx) => ok(await pushRefusals(tx, input.worktree, input.updates)));
  }
}

/** One tool call's view of the core (`forCall`). */
export interface CallScope<Core> {
  core: Core;
  /** The session's lost leases not told yet, marked told: asked once the call has run. */
  notices(): Promise<Result<{ notices: T.LeaseNotice[] }>>;
}
