import { describe, expect, it } from 'vitest';
import type { Baton } from '../../shared/baton.js';
import { isWriteOperation, WRITE_OPERATIONS } from '../../shared/forwarding/wire.js';
import type { Result } from '../../shared/result.js';
import type { Store } from '../../shared/store/store.js';
import { harness, MINUTE, value } from '../helpers/core.js';
import { sessionsOn } from '../helpers/harness-sessions.js';

/*
 * A server that does not write itself forwards exactly the operations in WRITE_OPERATIONS;
 * any other runs on its own copy. An operation missing from the list would still be
 * correct (it takes the lock itself) but would skip the writer; one listed that only
 * reads would make every read a round trip. So each operation is run here, and the list
 * must name exactly those that wrote.
 */

type Operation = { [K in keyof Baton]: Baton[K] extends (...args: never[]) => Promise<Result<unknown>> ? K : never }[keyof Baton];

interface World {
  /** The session under test, on a store that counts its writes. */
  baton: Baton;
  /** Another agent's session on the same store, for the steps an operation needs first. */
  other: Baton;
  advance(ms: number): void;
}

type Call = (w: World) => Promise<() => Promise<Result<unknown>>>;
type Lease = { key: string; claimToken: string };

/** A call on an issue the session created first. */
const onIssue =
  (call: (baton: Baton, key: string) => Promise<Result<unknown>>): Call =>
  async ({ baton }) => {
    const key = await created(baton);
    return () => call(baton, key);
  };

/** A call on an issue the session claimed first. */
const onOwnClaim =
  (call: (baton: Baton, lease: Lease) => Promise<Result<unknown>>): Call =>
  async ({ baton }) => {
    const lease = await claimed(baton);
    return () => call(baton, lease);
  };

/** A call with nothing to do first. */
const plain = (call: (baton: Baton) => Promise<Result<unknown>>): Call => async ({ baton }) => () => call(baton);

/**
 * For each operation of Baton: the steps that make it succeed, then the call itself. The
 * record type lists every public operation, so a new one does not compile until it is here.
 */
const CALLS: Record<Operation, Call> = {
  createIssue: plain((b) => b.createIssue({ title: 'write the parser' })),
  updateIssue: onIssue((b, key) => b.updateIssue({ key, priority: 1 })),
  relate: async ({ baton }) => {
    const [key, other] = [await created(baton), await created(baton)];
    return () => baton.relate({ key, type: 'blockedBy', other });
  },
  comment: onIssue((b, key) => b.comment({ key, text: 'looked at it' })),
  getIssue: onIssue((b, key) => b.getIssue({ key })),
  story: onIssue((b, key) => b.story({ key })),
  listIssues: plain((b) => b.listIssues({})),
  issueStatuses: onIssue((b, key) => b.issueStatuses([key])),
  readyQueue: plain((b) => b.readyQueue()),
  recentlyDone: plain((b) => b.recentlyDone()),
  activity: plain((b) => b.activity({})),
  nextIssue: onIssue((b) => b.nextIssue({})),
  nextBatch: onIssue((b) => b.nextBatch({ max: 2 })),
  claimIssue: onIssue((b, key) => b.claimIssue({ key })),
  checkClaim: onOwnClaim((b, { key }) => b.checkClaim({ key })),
  heartbeat: onOwnClaim((b, lease) => b.heartbeat(lease)),
  checkpoint: onOwnClaim((b, lease) => b.checkpoint({ ...lease, note: 'tests pass' })),
  release: onOwnClaim((b, lease) => b.release(lease)),
  done: onOwnClaim((b, lease) => b.done(lease)),
  submitForReview: onOwnClaim((b, lease) => b.submitForReview({ ...lease, summary: 'ready' })),
  review: async ({ baton, other }) => {
    const { key, claimToken } = await claimed(other);
    value(await other.submitForReview({ key, claimToken, summary: 'ready' }));
    const review = value(await baton.claimIssue({ key, role: 'reviewer' }));
    return () => baton.review({ key, claimToken: review.lease.claimToken!, verdict: 'approve' });
  },
  listClaims: onOwnClaim((b) => b.listClaims()),
  liveFences: onOwnClaim((b) => b.liveFences()),
  releaseAsOperator: async ({ baton, other }) => {
    const { key } = await claimed(other);
    return () => baton.releaseAsOperator({ key });
  },
  closeAsOperator: async ({ baton, other }) => {
    const { key } = await claimed(other);
    return () => baton.closeAsOperator({ key, reason: 'duplicate' });
  },
  reopen: async ({ baton }) => {
    const key = await created(baton);
    value(await baton.updateIssue({ key, status: 'cancelled' }));
    return () => baton.reopen({ key });
  },
  prune: plain((b) => b.prune()),
  renewLeases: async ({ baton, other }) => {
    await claimed(other);
    return () => baton.renewLeases({ sessions: [other.caller.session] });
  },
  registerSession: plain((b) => b.registerSession({ pid: process.pid, host: 'here' })),
  endSession: async ({ baton }) => {
    value(await baton.registerSession({ pid: process.pid, host: 'here' }));
    return () => baton.endSession();
  },
  listSessions: async ({ baton }) => {
    value(await baton.registerSession({ pid: process.pid, host: 'here' }));
    return () => baton.listSessions();
  },
  sweep: async ({ baton, other, advance }) => {
    await claimed(other);
    advance(31 * MINUTE);
    return () => baton.sweep();
  },
  unrenewedLeases: onOwnClaim((b) => b.unrenewedLeases()),
  markActive: plain((b) => b.markActive()),
  // With no loss to tell it only reads, as at nearly every tool call.
  leaseNotices: onOwnClaim((b) => b.leaseNotices()),
  endSessions: async ({ baton, other }) => {
    value(await other.registerSession({ pid: process.pid, host: 'here' }));
    return () => baton.endSessions({ sessions: [other.caller.session] });
  },
  // A session ending is the hook event that writes whatever the timing.
  hookEvent: async ({ baton, other }) => {
    value(await other.registerSession({ pid: process.pid, host: 'here' }));
    return () => baton.hookEvent({ event: 'end', cwd: null, tells: false, continuing: false, reason: 'logout' }, { ancestors: [process.pid], host: 'here', worktree: null });
  },
  recordRenewalStopped: onIssue((b, key) => b.recordRenewalStopped({ stops: [{ key, detail: 'renewal stopped: idle' }] })),
  pruneIfDue: plain((b) => b.pruneIfDue()),
  lostLeases: onOwnClaim((b) => b.lostLeases({ sessions: [b.caller.session] })),
  tellLosses: async ({ baton, other }) => {
    const lease = await claimed(baton);
    value(await other.releaseAsOperator({ key: lease.key }));
    const losses = value(await baton.lostLeases({ sessions: [baton.caller.session] }));
    return () => baton.tellLosses({ losses });
  },
  pushRefusals: onOwnClaim((b) => b.pushRefusals({ worktree: null, updates: [{ localRef: 'refs/heads/x', localSha: '1'.repeat(40), remoteRef: 'refs/heads/x', remoteSha: '0'.repeat(40) }] })),
};

async function created(baton: Baton): Promise<string> {
  return value(await baton.createIssue({ title: 'an issue' })).issue.key;
}

async function claimed(baton: Baton): Promise<Lease> {
  const key = await created(baton);
  return { key, claimToken: value(await baton.claimIssue({ key })).lease.claimToken! };
}

/** `store` with a count of the write transactions begun on it. */
function counting(store: Store): { store: Store; writes: () => number } {
  let writes = 0;
  const wrapped: Store = {
    backend: store.backend,
    location: store.location,
    read: (fn) => store.read(fn),
    write: (fn) => {
      writes++;
      return store.write(fn);
    },
    version: () => store.version(),
    info: () => store.info(),
    analyze: () => store.analyze(),
    compact: () => store.compact(),
    close: () => store.close(),
  };
  return { store: wrapped, writes: () => writes };
}

describe('the operations a server forwards', () => {
  it.each(Object.keys(CALLS) as Operation[])('%s is forwarded exactly when it writes', async (name) => {
    const h = await harness();
    const { store, writes } = counting(h.store);
    const baton = sessionsOn(store, {})('alice');
    const world: World = { baton, other: h.session('bob'), advance: (ms) => h.clock.advance(ms) };
    const call = await CALLS[name](world);
    const before = writes();
    value(await call());
    expect(writes() > before, `${name} ${writes() > before ? 'wrote' : 'only read'}`).toBe(isWriteOperation(name));
  });

  it('lists only operations of Baton', () => {
    expect(WRITE_OPERATIONS.filter((name) => !(name in CALLS))).toEqual([]);
  });
});
