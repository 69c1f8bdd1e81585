import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { ManualClock } from '../../shared/clock.js';
import { DEFAULTS } from '../../shared/config.js';
import type { Result } from '../../shared/result.js';
import { openFileStore } from '../../shared/store/file/index.js';
import type { Store } from '../../shared/store/store.js';
import type { ClaimResult } from '../../shared/types.js';
import { type Caller, type ModelClaim, ProtocolModel, type Outcome } from './model.js';

/** One simulated agent session: its core over one of the stores, and the tokens it was handed. */
export interface Slot {
  caller: Caller;
  baton: Baton;
  /** The last token this session was given for each key. */
  own: Map<string, string>;
}

/**
 * The real core and the model side by side: sessions of several agents spread over two
 * stores opened on one database file (as two processes would), one hand-moved clock, and
 * an observer session on each store that only reads.
 */
export interface World {
  dir: string;
  clock: ManualClock;
  model: ProtocolModel;
  stores: Store[];
  slots: Slot[];
  observers: Baton[];
  /** Every token the core ever handed out, in order, with the key it was for. */
  pool: { token: string; key: string; slot: Slot }[];
  seen: Set<string>;
  leaseMs: number;
}

export const AGENTS = ['ann', 'bob', 'cid'];

let worlds = 0;

export async function makeWorld(options: { leaseSeconds: number; compactAfterBytes?: number }): Promise<World> {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'baton-prop-'));
  const path = join(dir, 'baton.db');
  const clock = new ManualClock();
  const stores = [
    await openFileStore({ path, clock, compactAfterBytes: options.compactAfterBytes }),
    await openFileStore({ path, clock, compactAfterBytes: options.compactAfterBytes }),
  ];
  const world: World = {
    dir,
    clock,
    model: new ProtocolModel(options.leaseSeconds * 1000, clock.now(), MAX_RECLAIMS),
    stores,
    slots: [],
    observers: [],
    pool: [],
    seen: new Set(),
    leaseMs: options.leaseSeconds * 1000,
  };
  const n = ++worlds;
  world.observers = stores.map((store, i) => core(world, store, { agent: 'observer', session: `w${n}-observer-${i}` }));
  // Two agents, one of them with two sessions (two processes, or a restart), from the start.
  for (const agent of ['ann', 'bob', 'ann']) addSession(world, agent);
  return world;
}

/** Lower than the default, so that random runs meet stuck issues and the model must agree on them. */
const MAX_RECLAIMS = 2;

function core(world: World, store: Store, caller: Caller): Baton {
  return new Baton({
    store,
    caller: { ...caller, renewer: null, worktree: null },
    config: { ...DEFAULTS, leaseSeconds: world.leaseMs / 1000, maxReclaims: MAX_RECLAIMS },
    git: async () => null,
  });
}

/** A new session of `agent` (another process of it, or its restart), on the next store in turn. */
export function addSession(world: World, agent: string): Slot {
  const caller = { agent, session: `${agent}-s${world.slots.length}` };
  const slot: Slot = { caller, baton: core(world, world.stores[world.slots.length % world.stores.length], caller), own: new Map() };
  world.slots.push(slot);
  return slot;
}

export async function closeWorld(world: World): Promise<void> {
  for (const store of world.stores) await store.close();
  rmSync(world.dir, { recursive: true, force: true });
}

/** Moves the clock of both sides. */
export function moveClock(world: World, ms: number): void {
  world.clock.advance(ms);
  world.model.now = world.clock.now();
}

/** Remembers the tokens a claim answer handed to `slot`. */
export function remember(world: World, slot: Slot, claims: readonly ClaimResult[]): void {
  for (const c of claims) {
    const token = c.lease.claimToken!;
    slot.own.delete(c.issue.key);
    slot.own.set(c.issue.key, token);
    if (!world.seen.has(token)) {
      world.seen.add(token);
      world.pool.push({ token, key: c.issue.key, slot });
    }
  }
}

/** How often the core answered each refusal code (and `ok`) across all runs. */
export const refusals = new Map<string, number>();

/** A core result in the model's terms: the refusal code (and reason for CLAIM_LOST), or the value. */
export function outcomeOf<T, V>(result: Result<T>, map: (value: T) => V): Outcome<V> {
  refusals.set(result.ok ? 'ok' : result.error.code, (refusals.get(result.ok ? 'ok' : result.error.code) ?? 0) + 1);
  if (result.ok) return { ok: true, value: map(result.value) };
  const { code, reason } = result.error;
  return code === 'CLAIM_LOST' ? { ok: false, code, reason: reason as string } : { ok: false, code };
}

/** The claim fields both sides can state. */
export function claimShape(c: { key: string; token: string; fence: number; resumed: boolean; checkpointNote: string | null; claimedAt: number; lastRenewedAt: number; expiresAt: number }) {
  return c;
}

export function coreClaim(c: ClaimResult) {
  return claimShape({
    key: c.issue.key,
    token: c.lease.claimToken ?? '(none)',
    fence: c.lease.fence,
    resumed: c.resumed,
    checkpointNote: c.checkpoint?.note ?? null,
    claimedAt: Date.parse(c.lease.claimedAt),
    lastRenewedAt: Date.parse(c.lease.lastRenewedAt),
    expiresAt: Date.parse(c.lease.expiresAt),
  });
}

export function modelClaim(c: ModelClaim) {
  return claimShape({
    key: c.key,
    token: c.token,
    fence: c.fence,
    resumed: c.resumed,
    checkpointNote: c.checkpoint?.note ?? null,
    claimedAt: c.claimedAt,
    lastRenewedAt: c.lastRenewedAt,
    expiresAt: c.expiresAt,
  });
}

/**
 * Checks a claim answer against the model's prediction, including that every token the
 * model calls fresh was never handed out before and looks unguessable.
 */
export function expectClaims(world: World, slot: Slot, actual: Result<ClaimResult[]>, expected: Outcome<ModelClaim[]>, step: string): void {
  expect(outcomeOf(actual, (list) => list.map(coreClaim)), step).toEqual(
    expected.ok ? { ok: true, value: expected.value.map(modelClaim) } : expected,
  );
  if (!actual.ok || !expected.ok) return;
  for (const [i, c] of expected.value.entries()) {
    const token = actual.value[i].lease.claimToken!;
    if (c.fresh) {
      expect(world.seen.has(token), `${step}: a fresh token was handed out before`).toBe(false);
      // At least 128 random bits: 32 bytes base64url after the prefix.
      expect(token).toMatch(/^bt_[A-Za-z0-9_-]{43}$/);
    }
  }
  remember(world, slot, actual.value);
}

/** Tokens from the answer, by key: what the model binds when it predicts a new token. */
export function freshFrom(actual: Result<ClaimResult[]>): (key: string) => string {
  const byKey = new Map(actual.ok ? actual.value.map((c) => [c.issue.key, c.lease.claimToken ?? '(none)'] as const) : []);
  return (key) => byKey.get(key) ?? `(no token for ${key})`;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The whole observable state, read through an observer session, against the model:
 * every issue with its lease, checkpoint, relations, comments and activity, the list of
 * claims, and the store's own invariant that an issue has at most one live token.
 */
export async function expectAgreement(world: World, observer: Baton, step: string): Promise<void> {
  const { model } = world;
  const listed = await observer.listIssues({ limit: 1000 });
  expect(listed.ok && listed.value.issues.map((i) => i.key).sort(), step).toEqual([...model.issues.keys()].sort());
  for (const issue of model.issues.values()) {
    const got = await observer.getIssue({ key: issue.key });
    if (!got.ok) throw new Error(`${step}: get_issue ${issue.key} refused: ${got.error.code}`);
    const d = got.value;
    const live = model.isLive(issue.lease) ? issue.lease : null;
    const number = (key: string) => model.issues.get(key)!.number;
    const byNumber = (keys: Iterable<string>) => [...keys].sort((a, b) => number(a) - number(b));
    expect(
      {
        status: d.issue.status,
        priority: d.issue.priority,
        effectivePriority: d.issue.effectivePriority,
        reclaimCount: d.issue.reclaimCount,
        checkpoint: d.checkpoint && { note: d.checkpoint.note, state: d.checkpoint.state, agent: d.checkpoint.agent, at: d.checkpoint.at },
        relations: d.relations,
        lease: d.lease && {
          agent: d.lease.agent,
          fence: d.lease.fence,
          claimedAt: d.lease.claimedAt,
          lastRenewedAt: d.lease.lastRenewedAt,
          expiresAt: d.lease.expiresAt,
          token: d.lease.claimToken,
        },
        comments: d.comments.map((c) => c.text),
      },
      `${step}: ${issue.key}`,
    ).toEqual({
      status: issue.status,
      priority: issue.priority,
      effectivePriority: model.effectivePriority(issue.key),
      reclaimCount: issue.reclaimCount,
      checkpoint: issue.checkpoint && { ...issue.checkpoint, at: iso(issue.checkpoint.at) },
      relations: {
        blocks: byNumber(issue.blocks),
        blockedBy: byNumber(model.blockersOf(issue.key)),
        relatesTo: byNumber(issue.relates),
        parent: issue.parent,
        children: byNumber(model.childrenOf(issue.key)),
      },
      lease: live && {
        agent: live.agent,
        fence: live.fence,
        claimedAt: iso(live.claimedAt),
        lastRenewedAt: iso(live.lastRenewedAt),
        expiresAt: iso(live.expiresAt),
        token: undefined,
      },
      comments: issue.comments,
    });
    const events = await observer.activity({ key: issue.key, limit: 1000 });
    expect(events.ok && events.value.events.map((e) => e.type).reverse(), `${step}: activity of ${issue.key}`).toEqual(issue.events);
  }
  const claims = await observer.listClaims();
  expect(claims.ok && claims.value.claims.map((c) => `${c.key}:${c.agent}`).sort(), `${step}: list_claims`).toEqual(
    model
      .liveLeases()
      .map((l) => `${l.key}:${l.lease.agent}`)
      .sort(),
  );
  const store = world.stores[world.observers.indexOf(observer)];
  const doubled = await store.read((tx) =>
    tx.all(`SELECT issue_id, count(*) AS n FROM tokens WHERE state = 'live' GROUP BY issue_id HAVING count(*) > 1`),
  );
  expect(doubled, `${step}: an issue with two live tokens`).toEqual([]);
  const orphans = await store.read((tx) =>
    tx.all(`SELECT l.issue_id FROM leases l LEFT JOIN tokens t ON t.hash = l.token_hash AND t.state = 'live' WHERE t.hash IS NULL`),
  );
  expect(orphans, `${step}: a lease whose token is not live`).toEqual([]);
}

/**
 * From the agents' side: of every token handed out for `key`, asked by the session that
 * got it, at most one is accepted as the live lease (`check_claim` answers youHold), and
 * exactly the one the model says.
 */
export async function expectOneHolder(world: World, key: string, step: string): Promise<void> {
  const holders: string[] = [];
  // Only the session a token was handed to can hold with it; any other is refused by rule.
  for (const { token, slot } of world.pool.filter((p) => p.key === key)) {
    const checked = await slot.baton.checkClaim({ key, claimToken: token });
    if (checked.ok && checked.value.youHold) holders.push(`${slot.caller.session}:${token.slice(0, 10)}`);
  }
  expect(holders.length, `${step}: holders of ${key}: ${holders.join(', ')}`).toBeLessThanOrEqual(1);
  const lease = world.model.issues.get(key)?.lease;
  const expected = lease && world.model.isLive(lease) && world.seen.has(lease.token) ? [`${lease.session}:${lease.token.slice(0, 10)}`] : [];
  expect(holders, `${step}: holder of ${key}`).toEqual(expected);
}
