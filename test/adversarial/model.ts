import type { ErrorCode } from '../../shared/errors.js';

/**
 * A plain in-memory reading of docs/protocol.md: issues, relations, leases, tokens and the
 * activity log, with no SQL and no store. The property tests run the same random
 * operations against it and against the real core and require the two to agree after
 * every step. Where the contract leaves the order of checks open (which refusal wins
 * when several apply), the model follows the order the core documents.
 *
 * Tokens are opaque to the model: when it predicts that a call mints one, it takes the
 * string the core actually returned from `fresh()` and the test checks separately that
 * it was never seen before.
 */

import type {
  Caller,
  ModelClaim,
  ModelIssue,
  ModelLease,
  ModelToken,
  Outcome,
  Refusal,
  RelationType,
  Role,
  Status,
  TokenState,
} from './model-types.js';

export type * from './model-types.js';

const FINISHED: readonly Status[] = ['done', 'cancelled'];

function refuse(code: ErrorCode, reason?: string): Refusal {
  return reason === undefined ? { ok: false, code } : { ok: false, code, reason };
}

function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

export class ProtocolModel {
  readonly issues = new Map<string, ModelIssue>();
  private readonly tokens = new Map<string, ModelToken>();
  /** First answers to request ids, by `agent\0requestId`. */
  private readonly requests = new Map<string, { session: string; items: { key: string; fence: number }[] }>();
  private nextNumber = 1;

  constructor(
    readonly leaseMs: number,
    public now: number,
    /** Expiries in a row that make an issue stuck; 0 for no limit. */
    readonly maxReclaims: number,
  ) {}

  // ------------------------------------------------------------------ reading

  isLive(lease: ModelLease | null): lease is ModelLease {
    return lease !== null && lease.expiresAt > this.now;
  }

  /** The best priority among the issue and every issue it transitively blocks. */
  effectivePriority(key: string): number {
    const seen = new Set<string>();
    const stack = [key];
    let best = Number.POSITIVE_INFINITY;
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (seen.has(at)) continue;
      seen.add(at);
      const issue = this.issues.get(at)!;
      best = Math.min(best, issue.priority);
      stack.push(...issue.blocks);
    }
    return best;
  }

  blockersOf(key: string): string[] {
    return [...this.issues.values()].filter((i) => i.blocks.has(key)).map((i) => i.key);
  }

  openBlockers(key: string): string[] {
    return this.blockersOf(key).filter((k) => !FINISHED.includes(this.issues.get(k)!.status));
  }

  childrenOf(key: string): string[] {
    return [...this.issues.values()].filter((i) => i.parent === key).map((i) => i.key);
  }

  /** Ready issues for a role, in dispatch order. */
  ready(role: Role, labels: readonly string[]): ModelIssue[] {
    const candidates = [...this.issues.values()].filter((i) => {
      if (this.isLive(i.lease)) return false;
      if (!labels.every((l) => i.labels.includes(l))) return false;
      if (role === 'reviewer') return i.status === 'review';
      return (i.status === 'todo' || i.status === 'doing') && this.openBlockers(i.key).length === 0;
    });
    return candidates.sort(
      (a, b) =>
        this.effectivePriority(a.key) - this.effectivePriority(b.key) ||
        a.priority - b.priority ||
        a.createdAt - b.createdAt ||
        a.number - b.number,
    );
  }

  liveLeases(): { key: string; lease: ModelLease }[] {
    return [...this.issues.values()].filter((i) => this.isLive(i.lease)).map((i) => ({ key: i.key, lease: i.lease! }));
  }

  // ------------------------------------------------------------------ tracking

  create(agent: string, input: { title: string; priority: number; labels: string[]; blockedBy: string[] }): Outcome<{ key: string }> {
    for (const k of input.blockedBy) if (!this.issues.has(k)) return refuse('NOT_FOUND');
    const number = this.nextNumber++;
    const key = `BAT-${number}`;
    this.issues.set(key, {
      key,
      number,
      title: input.title,
      status: 'todo',
      priority: input.priority,
      labels: [...new Set(input.labels)],
      createdAt: this.now,
      fence: 0,
      reclaimCount: 0,
      expiryStreak: 0,
      checkpoint: null,
      lease: null,
      blocks: new Set(),
      parent: null,
      relates: new Set(),
      events: ['created'],
      comments: [],
    });
    for (const k of input.blockedBy) this.issues.get(k)!.blocks.add(key);
    void agent;
    return ok({ key });
  }

  updateStatus(caller: Caller, key: string, status: Status, priority?: number): Outcome<void> {
    const issue = this.issues.get(key);
    if (!issue) return refuse('NOT_FOUND');
    const priorityChanged = priority !== undefined && priority !== issue.priority;
    const statusChanged = status !== issue.status;
    if (statusChanged && this.isLive(issue.lease)) {
      if (issue.lease.session !== caller.session) return refuse('ALREADY_CLAIMED');
      // The holder's own move away from `doing` ends its lease.
      if (status !== 'doing') this.endLease(issue, status === 'todo' ? 'released' : 'finished');
    }
    if (priorityChanged) {
      issue.priority = priority;
      issue.events.push('updated');
    }
    if (statusChanged) {
      // Moving an issue off stuck by hand gives it a fresh streak, as `baton reopen` does.
      if (issue.status === 'stuck') issue.expiryStreak = 0;
      issue.status = status;
      issue.events.push('status');
    }
    return ok(undefined);
  }

  relate(caller: Caller, key: string, type: RelationType, otherKey: string, remove: boolean): Outcome<void> {
    const issue = this.issues.get(key);
    const other = this.issues.get(otherKey);
    if (!issue || !other) return refuse('NOT_FOUND');
    let changed: boolean;
    if (type === 'parent') {
      if (remove) {
        changed = issue.parent === otherKey;
        if (changed) issue.parent = null;
      } else {
        for (let at: string | null = otherKey; at !== null; at = this.issues.get(at)!.parent) {
          if (at === key) return refuse('CYCLE');
        }
        changed = issue.parent !== otherKey;
        issue.parent = otherKey;
      }
    } else if (type === 'relatesTo') {
      if (key === otherKey) return refuse('INVALID_INPUT');
      changed = remove ? issue.relates.has(otherKey) : !issue.relates.has(otherKey);
      if (remove) {
        issue.relates.delete(otherKey);
        other.relates.delete(key);
      } else {
        issue.relates.add(otherKey);
        other.relates.add(key);
      }
    } else {
      const [from, to] = type === 'blocks' ? [issue, other] : [other, issue];
      if (remove) {
        changed = from.blocks.delete(to.key);
      } else {
        if (from.key === to.key || this.reaches(to.key, from.key)) return refuse('CYCLE');
        changed = !from.blocks.has(to.key);
        from.blocks.add(to.key);
      }
    }
    if (changed) issue.events.push(remove ? 'unrelated' : 'related');
    void caller;
    return ok(undefined);
  }

  comment(caller: Caller, key: string, text: string): Outcome<void> {
    const issue = this.issues.get(key);
    if (!issue) return refuse('NOT_FOUND');
    this.addComment(issue, caller.agent, text);
    return ok(undefined);
  }

  /** Whether `from` reaches `to` through `blocks`. */
  private reaches(from: string, to: string): boolean {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === to) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...this.issues.get(at)!.blocks);
    }
    return false;
  }

  // ------------------------------------------------------------------ leases

  /** `claim_issue`; `fresh` yields the token the core returned, whenever the model predicts a new one. */
  claim(caller: Caller, key: string, role: Role, presented: string | undefined, fresh: (key: string) => string): Outcome<ModelClaim> {
    const issue = this.issues.get(key);
    if (!issue) return refuse('NOT_FOUND');
    const lease = issue.lease;
    if (presented !== undefined) {
      if (!this.isLive(lease) || lease.token !== presented) return this.lost(issue, presented);
      if (lease.agent !== caller.agent) return refuse('FORBIDDEN');
      if (lease.session === caller.session) return ok(this.view(issue, lease, false));
      return ok(this.takeOver(issue, lease, caller, fresh));
    }
    if (this.isLive(lease)) {
      if (lease.session !== caller.session) return refuse('ALREADY_CLAIMED');
      return ok(this.view(issue, lease, false));
    }
    if (issue.status === 'stuck') return refuse('STUCK');
    const allowed = role === 'reviewer' ? issue.status === 'review' : issue.status === 'todo' || issue.status === 'doing';
    if (!allowed) return refuse('NOT_READY');
    if (role === 'worker' && this.openBlockers(key).length > 0) return refuse('BLOCKED');
    // Clearing the expired lease would be the expiry that makes it stuck: refused, nothing changed.
    if (issue.lease && this.wouldStick(issue)) return refuse('STUCK');
    return ok(this.claimFresh(issue, caller, role, fresh));
  }

  nextIssue(caller: Caller, role: Role, labels: string[], requestId: string | undefined, fresh: (key: string) => string): Outcome<ModelClaim[]> {
    return this.claimReady(caller, role, labels, 1, requestId, fresh);
  }

  nextBatch(caller: Caller, max: number, requestId: string | undefined, fresh: (key: string) => string): Outcome<ModelClaim[]> {
    return this.claimReady(caller, 'worker', [], max, requestId, fresh);
  }

  private claimReady(caller: Caller, role: Role, labels: string[], max: number, requestId: string | undefined, fresh: (key: string) => string): Outcome<ModelClaim[]> {
    const id = requestId === undefined ? undefined : `${caller.agent}\0${requestId}`;
    const remembered = id === undefined ? undefined : this.requests.get(id);
    if (remembered) {
      const claims: ModelClaim[] = [];
      for (const item of remembered.items) {
        const issue = this.issues.get(item.key)!;
        const lease = issue.lease;
        if (!this.isLive(lease) || lease.fence !== item.fence || lease.agent !== caller.agent) continue;
        claims.push(lease.session === caller.session ? this.view(issue, lease, false) : this.takeOver(issue, lease, caller, fresh));
      }
      remembered.session = caller.session;
      return ok(claims);
    }
    // In dispatch order; an issue whose expired lease was its last allowed expiry becomes
    // stuck on the way (kept, as the batch commits) and the batch looks further.
    const claims: ModelClaim[] = [];
    for (const issue of this.ready(role, labels)) {
      if (claims.length >= max) break;
      if (issue.lease && this.reclaim(issue)) continue;
      claims.push(this.claimFresh(issue, caller, role, fresh));
    }
    if (id !== undefined) this.requests.set(id, { session: caller.session, items: claims.map((c) => ({ key: c.key, fence: c.fence })) });
    return ok(claims);
  }

  checkClaim(caller: Caller, key: string, presented?: string): Outcome<{ held: boolean; youHold: boolean; fence: number | null }> {
    const issue = this.issues.get(key);
    if (!issue) return refuse('NOT_FOUND');
    const lease = issue.lease;
    if (!this.isLive(lease)) return ok({ held: false, youHold: false, fence: null });
    const tokenMatches = presented === undefined || this.authorize(issue, presented, caller).ok;
    return ok({ held: true, youHold: lease.session === caller.session && tokenMatches, fence: lease.fence });
  }

  heartbeat(caller: Caller, key: string, token: string): Outcome<{ expiresAt: number }> {
    const held = this.held(caller, key, token);
    if (!held.ok) return held;
    return ok({ expiresAt: this.renew(held.value.lease!) });
  }

  checkpoint(caller: Caller, key: string, token: string, note: string, state: Record<string, unknown> | null): Outcome<{ expiresAt: number }> {
    const held = this.held(caller, key, token);
    if (!held.ok) return held;
    const issue = held.value;
    issue.checkpoint = { note, state, agent: caller.agent, at: this.now };
    issue.expiryStreak = 0;
    const expiresAt = this.renew(issue.lease!);
    issue.events.push('checkpoint');
    return ok({ expiresAt });
  }

  release(caller: Caller, key: string, token: string): Outcome<void> {
    const held = this.held(caller, key, token);
    if (!held.ok) return held;
    this.endLease(held.value, 'released');
    held.value.events.push('released');
    return ok(undefined);
  }

  done(caller: Caller, key: string, token: string, summary: string | undefined): Outcome<void> {
    const held = this.held(caller, key, token);
    if (!held.ok) return held;
    const issue = held.value;
    this.endLease(issue, 'finished');
    issue.status = 'done';
    if (summary) this.addComment(issue, caller.agent, summary);
    issue.events.push('done');
    return ok(undefined);
  }

  submit(caller: Caller, key: string, token: string, summary: string): Outcome<void> {
    const held = this.held(caller, key, token);
    if (!held.ok) return held;
    const issue = held.value;
    this.endLease(issue, 'finished');
    issue.status = 'review';
    this.addComment(issue, caller.agent, summary);
    issue.events.push('submitted');
    return ok(undefined);
  }

  review(caller: Caller, key: string, token: string, verdict: 'approve' | 'changes', note: string | undefined): Outcome<void> {
    const held = this.held(caller, key, token);
    if (!held.ok) return held;
    const issue = held.value;
    if (issue.lease!.role !== 'reviewer' || issue.status !== 'review') return refuse('NOT_READY');
    this.endLease(issue, 'finished');
    if (verdict === 'approve') {
      issue.status = 'done';
      if (note) this.addComment(issue, caller.agent, note);
      issue.events.push('approved');
    } else {
      issue.status = 'todo';
      this.addComment(issue, caller.agent, note ?? 'Changes requested.');
      issue.events.push('changes_requested');
    }
    return ok(undefined);
  }

  /** A person's release without the token; answers whether a live lease ended. */
  releaseAsOperator(key: string): Outcome<boolean> {
    const issue = this.issues.get(key);
    if (!issue) return refuse('NOT_FOUND');
    if (!issue.lease) return ok(false);
    if (!this.isLive(issue.lease)) {
      this.reclaim(issue);
      return ok(false);
    }
    this.endLease(issue, 'released');
    issue.events.push('released');
    return ok(true);
  }

  /** Clears up to `limit` expired leases, oldest expiry first; answers their keys. */
  sweep(limit: number): string[] {
    const due = [...this.issues.values()]
      .filter((i) => i.lease !== null && !this.isLive(i.lease))
      .sort((a, b) => a.lease!.expiresAt - b.lease!.expiresAt || a.number - b.number)
      .slice(0, limit);
    for (const issue of due) this.reclaim(issue);
    return due.map((i) => i.key);
  }

  // ------------------------------------------------------------------ internals

  private held(caller: Caller, key: string, token: string): Outcome<ModelIssue> {
    const issue = this.issues.get(key);
    if (!issue) return refuse('NOT_FOUND');
    const checked = this.authorize(issue, token, caller);
    // A late write of a lease the issue once had is logged after its refusal (`refused`).
    if (!checked.ok && checked.code === 'CLAIM_LOST' && checked.reason !== 'never issued') issue.events.push('refused');
    return checked.ok ? ok(issue) : checked;
  }

  private authorize(issue: ModelIssue, token: string, caller: Caller): Outcome<ModelLease> {
    const lease = issue.lease;
    if (!this.isLive(lease) || lease.token !== token) return this.lost(issue, token);
    if (lease.agent !== caller.agent) return refuse('FORBIDDEN');
    if (lease.session !== caller.session) return refuse('CLAIM_MISMATCH');
    return ok(lease);
  }

  /** `CLAIM_LOST` with why: the token's fate, `expired` for a lease past expiry not yet cleared. */
  private lost(issue: ModelIssue, token: string): Refusal {
    if (issue.lease && issue.lease.token === token) return refuse('CLAIM_LOST', 'expired');
    const known = this.tokens.get(token);
    if (!known || known.key !== issue.key) return refuse('CLAIM_LOST', 'never issued');
    return refuse('CLAIM_LOST', known.state === 'live' ? 'expired' : known.state);
  }

  private claimFresh(issue: ModelIssue, caller: Caller, role: Role, fresh: (key: string) => string): ModelClaim {
    // An expired lease still on the row is recorded as reclaimed before the new claim.
    if (issue.lease) this.reclaim(issue);
    const token = fresh(issue.key);
    issue.fence += 1;
    const lease: ModelLease = {
      token,
      agent: caller.agent,
      session: caller.session,
      role,
      fence: issue.fence,
      claimedAt: this.now,
      lastRenewedAt: this.now,
      expiresAt: this.now + this.leaseMs,
      resumed: issue.checkpoint !== null,
    };
    issue.lease = lease;
    if (role === 'worker') issue.status = 'doing';
    this.tokens.set(token, { key: issue.key, agent: caller.agent, session: caller.session, state: 'live' });
    issue.events.push('claimed');
    return this.view(issue, lease, true);
  }

  /**
   * A restart of the same agent: the lease moves to the new session with a fresh token;
   * fence, claimedAt, branch and checkpoint stay. The new session resumes whenever a
   * checkpoint is waiting, including one its earlier session wrote.
   */
  private takeOver(issue: ModelIssue, lease: ModelLease, caller: Caller, fresh: (key: string) => string): ModelClaim {
    const token = fresh(issue.key);
    this.tokens.get(lease.token)!.state = 'superseded';
    const moved: ModelLease = {
      ...lease,
      token,
      session: caller.session,
      lastRenewedAt: this.now,
      expiresAt: this.now + this.leaseMs,
      resumed: lease.resumed || issue.checkpoint !== null,
    };
    issue.lease = moved;
    this.tokens.set(token, { key: issue.key, agent: caller.agent, session: caller.session, state: 'live' });
    issue.events.push('takeover');
    return this.view(issue, moved, true);
  }

  private view(issue: ModelIssue, lease: ModelLease, fresh: boolean): ModelClaim {
    return {
      key: issue.key,
      token: lease.token,
      fresh,
      fence: lease.fence,
      resumed: lease.resumed,
      checkpoint: issue.checkpoint,
      claimedAt: lease.claimedAt,
      lastRenewedAt: lease.lastRenewedAt,
      expiresAt: lease.expiresAt,
    };
  }

  private renew(lease: ModelLease): number {
    lease.lastRenewedAt = this.now;
    lease.expiresAt = this.now + this.leaseMs;
    return lease.expiresAt;
  }

  private endLease(issue: ModelIssue, state: Exclude<TokenState, 'live'>): void {
    if (!issue.lease) return;
    this.tokens.get(issue.lease.token)!.state = state;
    issue.lease = null;
  }

  private wouldStick(issue: ModelIssue): boolean {
    return this.maxReclaims > 0 && issue.expiryStreak + 1 >= this.maxReclaims && (issue.status === 'todo' || issue.status === 'doing');
  }

  /** Clears an expired lease; true when that made the issue stuck. */
  private reclaim(issue: ModelIssue): boolean {
    const stuck = this.wouldStick(issue);
    this.endLease(issue, 'reclaimed');
    issue.reclaimCount += 1;
    issue.expiryStreak += 1;
    issue.events.push('reclaimed');
    if (stuck) {
      issue.status = 'stuck';
      issue.events.push('stuck');
    }
    return stuck;
  }

  private addComment(issue: ModelIssue, agent: string, text: string): void {
    issue.comments.push(text);
    issue.events.push('commented');
    void agent;
  }
}
