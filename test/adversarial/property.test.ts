import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClaimResult } from '../../shared/types.js';
import type { Role, RelationType, Status } from './model.js';
import {
  AGENTS,
  addSession,
  closeWorld,
  expectAgreement,
  expectClaims,
  expectOneHolder,
  freshFrom,
  makeWorld,
  moveClock,
  outcomeOf,
  refusals,
  type Slot,
  type World,
} from './world.js';

/*
 * Random sequences of everything an agent, a person and a server can do to leases,
 * from several agents and sessions over two stores on one file, with clock jumps both
 * ways, run against the core and against the model of docs/protocol.md. After every step the
 * two agree on every answer and on the whole observable state, and no issue ever has
 * two holders.
 */

const LEASE_SECONDS = 600;
const LEASE_MS = LEASE_SECONDS * 1000;
const RUNS = Number(process.env.BATON_PROPERTY_RUNS ?? 80);

/** Which token a call presents. */
type Pick =
  | { from: 'own' }
  | { from: 'live' }
  | { from: 'pool'; i: number }
  | { from: 'unknown' }
  | { from: 'odd'; text: string };

type Op =
  | { kind: 'create'; agent: number; priority: number; label: boolean; blockedBy: number[] }
  | { kind: 'next'; slot: number; role: Role; label: boolean; requestId?: number }
  | { kind: 'batch'; slot: number; max: number; requestId?: number }
  | { kind: 'claim'; slot: number; issue: number; role: Role; token?: Pick }
  | { kind: 'check'; slot: number; issue: number; token?: Pick }
  | { kind: 'heartbeat'; slot: number; issue: number; token: Pick }
  | { kind: 'checkpoint'; slot: number; issue: number; token: Pick; note: string; state: Record<string, unknown> | null }
  | { kind: 'release'; slot: number; issue: number; token: Pick }
  | { kind: 'done'; slot: number; issue: number; token: Pick; summary?: string }
  | { kind: 'submit'; slot: number; issue: number; token: Pick; summary: string }
  | { kind: 'review'; slot: number; issue: number; token: Pick; verdict: 'approve' | 'changes'; note?: string }
  | { kind: 'status'; slot: number; issue: number; status: Status; priority?: number }
  | { kind: 'relate'; slot: number; issue: number; type: RelationType; other: number; remove: boolean }
  | { kind: 'comment'; slot: number; issue: number; text: string }
  | { kind: 'operatorRelease'; issue: number }
  | { kind: 'sweep'; limit: number }
  | { kind: 'clock'; ms: number }
  | { kind: 'restart'; agent: number }
  /** An agent's ordinary loop, expanded into its steps: take work, renew, then end it one way or another. */
  | { kind: 'work'; slot: number; role: Role; renewals: ('heartbeat' | 'checkpoint')[]; end: 'done' | 'release' | 'submit' | 'review' | 'none' };

/** An issue by index, or (-1) the one this session was last handed, as an agent at work would. */
const issue = fc.oneof({ weight: 2, arbitrary: fc.nat(7) }, { weight: 3, arbitrary: fc.constant(-1) });
const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && !s.includes('\0'));
const pick: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 16, arbitrary: fc.constant({ from: 'own' as const }) },
  { weight: 3, arbitrary: fc.constant({ from: 'live' as const }) },
  { weight: 2, arbitrary: fc.nat(30).map((i) => ({ from: 'pool' as const, i })) },
  { weight: 1, arbitrary: fc.constant({ from: 'unknown' as const }) },
  // Opaque means opaque: any non-empty string is a token that is simply not live.
  { weight: 1, arbitrary: fc.constantFrom(' ', 'tok\0en', 'x'.repeat(600), '\u{1F511}').map((t) => ({ from: 'odd' as const, text: t })) },
);
const state = fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.nat(9), { maxLength: 3 })), { maxKeys: 3 }), { nil: null });
const role = fc.constantFrom<Role>('worker', 'worker', 'reviewer');
/** A session by index, or (-1) the one that acted last: agents mostly do several things in a row. */
const slot = fc.oneof({ weight: 2, arbitrary: fc.nat(5) }, { weight: 3, arbitrary: fc.constant(-1) });

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), agent: fc.nat(2), priority: fc.nat(4), label: fc.boolean(), blockedBy: fc.array(issue, { maxLength: 2 }) }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('next' as const), slot, role, label: fc.boolean(), requestId: fc.option(fc.nat(3), { nil: undefined }) }, { requiredKeys: ['kind', 'slot', 'role', 'label'] }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('batch' as const), slot, max: fc.integer({ min: 1, max: 4 }), requestId: fc.option(fc.nat(3), { nil: undefined }) }, { requiredKeys: ['kind', 'slot', 'max'] }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('claim' as const), slot, issue, role, token: fc.option(pick, { nil: undefined, freq: 3 }) }, { requiredKeys: ['kind', 'slot', 'issue', 'role'] }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('check' as const), slot, issue, token: fc.option(pick, { nil: undefined }) }, { requiredKeys: ['kind', 'slot', 'issue'] }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), slot, issue, token: pick }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('checkpoint' as const), slot, issue, token: pick, note: text, state }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('release' as const), slot, issue, token: pick }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('done' as const), slot, issue, token: pick, summary: fc.option(text, { nil: undefined }) }, { requiredKeys: ['kind', 'slot', 'issue', 'token'] }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('submit' as const), slot, issue, token: pick, summary: text }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('review' as const), slot, issue, token: pick, verdict: fc.constantFrom<'approve' | 'changes'>('approve', 'changes'), note: fc.option(text, { nil: undefined }) }, { requiredKeys: ['kind', 'slot', 'issue', 'token', 'verdict'] }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('status' as const), slot, issue, status: fc.constantFrom<Status>('todo', 'doing', 'review', 'done', 'cancelled'), priority: fc.option(fc.nat(4), { nil: undefined }) }, { requiredKeys: ['kind', 'slot', 'issue', 'status'] }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('relate' as const), slot, issue, type: fc.constantFrom<RelationType>('blocks', 'blockedBy', 'relatesTo', 'parent'), other: issue, remove: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('comment' as const), slot, issue, text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('operatorRelease' as const), issue }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('sweep' as const), limit: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('clock' as const),
      // Mostly small steps forward; now and then to just before, at and past expiry; now and then backwards.
      ms: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(1_000, 30_000, 120_000) },
        { weight: 4, arbitrary: fc.constantFrom(LEASE_MS - 1, LEASE_MS, LEASE_MS + 1_000, 3 * LEASE_MS) },
        { weight: 2, arbitrary: fc.constantFrom(-1_000, -30_000, -(LEASE_MS + 1_000)) },
      ),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('restart' as const), agent: fc.nat(2) }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('work' as const),
      slot,
      role: fc.constantFrom<Role>('worker', 'reviewer'),
      renewals: fc.array(fc.constantFrom<'heartbeat' | 'checkpoint'>('heartbeat', 'checkpoint'), { maxLength: 3 }),
      end: fc.constantFrom<'done' | 'release' | 'submit' | 'review' | 'none'>('done', 'done', 'release', 'submit', 'review', 'none'),
    }),
  },
);

/** The single steps of a `work` loop; every other operation is one step already. */
function expand(o: Op, n: number): Op[] {
  if (o.kind !== 'work') return [o];
  const mine = { slot: -1, issue: -1, token: { from: 'own' as const } };
  const steps: Op[] = [{ kind: 'next', slot: o.slot, role: o.role, label: false }];
  for (const [i, r] of o.renewals.entries()) {
    steps.push(r === 'heartbeat' ? { kind: 'heartbeat', ...mine } : { kind: 'checkpoint', ...mine, note: `step ${n}.${i}`, state: { step: n, i } });
  }
  // A reviewer ends with a verdict (or tries to, as a worker now and then does by mistake).
  const end = o.role === 'reviewer' ? 'review' : o.end;
  if (end === 'done') steps.push({ kind: 'done', ...mine, summary: n % 2 === 0 ? `finished ${n}` : undefined });
  if (end === 'release') steps.push({ kind: 'release', ...mine });
  if (end === 'submit') steps.push({ kind: 'submit', ...mine, summary: `please look ${n}` });
  if (end === 'review') steps.push({ kind: 'review', ...mine, verdict: n % 2 === 0 ? 'approve' : 'changes', note: n % 3 === 0 ? undefined : `verdict ${n}` });
  return steps;
}

const setup = fc.array(
  fc.record({ priority: fc.nat(4), label: fc.boolean(), blockedBy: fc.array(fc.nat(3), { maxLength: 2 }), gap: fc.constantFrom(0, 0, 1_000) }),
  { minLength: 3, maxLength: 8 },
);

/** The key an issue index names: one of the issues, the slot's latest, or now and then one that does not exist. */
function keyOf(world: World, i: number, s?: Slot): string {
  const keys = [...world.model.issues.keys()];
  if (i < 0) return (s && [...s.own.keys()].at(-1)) ?? world.pool.at(-1)?.key ?? keys[0];
  return i < keys.length ? keys[i] : i % 4 === 0 ? 'BAT-999' : keys[i % keys.length];
}

function tokenOf(world: World, s: Slot, key: string, p: Pick): string {
  switch (p.from) {
    case 'own':
      return s.own.get(key) ?? [...world.pool].reverse().find((t) => t.key === key)?.token ?? 'bt_neverIssuedToAnyone';
    case 'live': {
      // Whoever holds it now: another agent's token, or this agent's from another session.
      const lease = world.model.issues.get(key)?.lease;
      return lease ? lease.token : 'bt_neverIssuedToAnyone';
    }
    case 'pool':
      return world.pool.length === 0 ? 'bt_neverIssuedToAnyone' : world.pool[p.i % world.pool.length].token;
    case 'unknown':
      return 'bt_neverIssuedToAnyone';
    case 'odd':
      return p.text;
  }
}

/** An agent drops an issue from its working set once it finished it or was told its claim is lost. */
function forgetIfEnded(s: Slot, key: string, result: { ok: boolean; error?: { code: string } }): void {
  if (result.ok || result.error?.code === 'CLAIM_LOST') s.own.delete(key);
}

let lastSlot = 0;

function slotOf(world: World, i: number): Slot {
  if (i >= 0) lastSlot = i % world.slots.length;
  return world.slots[lastSlot];
}

async function createIssue(world: World, agent: number, priority: number, label: boolean, blockedByIdx: number[], step: string): Promise<void> {
  const keys = [...world.model.issues.keys()];
  const blockedBy = [...new Set(blockedByIdx.filter((i) => i >= 0 && i < keys.length).map((i) => keys[i]))];
  const labels = label ? ['ui'] : [];
  const s = world.slots.find((x) => x.caller.agent === AGENTS[agent % AGENTS.length]) ?? world.slots[0];
  const actual = await s.baton.createIssue({ title: `issue ${keys.length + 1}`, priority, labels, blockedBy });
  const expected = world.model.create(s.caller.agent, { title: `issue ${keys.length + 1}`, priority, labels, blockedBy });
  expect(outcomeOf(actual, (v) => ({ key: v.issue.key })), step).toEqual(expected);
}

/** Runs one operation on both sides and compares the answers; answers the key it touched. */
async function run(world: World, o: Op, step: string): Promise<string | undefined> {
  const { model } = world;
  switch (o.kind) {
    case 'create':
      await createIssue(world, o.agent, o.priority, o.label, o.blockedBy, step);
      return undefined;
    case 'next': {
      const s = slotOf(world, o.slot);
      const labels = o.label ? ['ui'] : [];
      const requestId = o.requestId === undefined ? undefined : `r${o.requestId}`;
      const actual = await s.baton.nextIssue({ role: o.role, labels, requestId });
      const list = (r: typeof actual) => (r.ok ? { ok: true as const, value: r.value ? [r.value] : [] } : r);
      const expected = model.nextIssue(s.caller, o.role, labels, requestId, freshFrom(list(actual)));
      // A replayed request answers with what is still held of the first answer; next_issue shows its first item.
      const shown = expected.ok ? { ok: true as const, value: expected.value.slice(0, 1) } : expected;
      expectClaims(world, s, list(actual), shown, step);
      return expected.ok ? expected.value[0]?.key : undefined;
    }
    case 'batch': {
      const s = slotOf(world, o.slot);
      const requestId = o.requestId === undefined ? undefined : `b${o.requestId}`;
      const actual = await s.baton.nextBatch({ max: o.max, requestId });
      const items = actual.ok ? { ok: true as const, value: actual.value.items } : actual;
      expectClaims(world, s, items, model.nextBatch(s.caller, o.max, requestId, freshFrom(items)), step);
      return undefined;
    }
    case 'claim': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const presented = o.token && tokenOf(world, s, key, o.token);
      const actual = await s.baton.claimIssue({ key, role: o.role, claimToken: presented });
      const items = actual.ok ? { ok: true as const, value: [actual.value] as ClaimResult[] } : actual;
      const expected = model.claim(s.caller, key, o.role, presented, freshFrom(items));
      expectClaims(world, s, items, expected.ok ? { ok: true, value: [expected.value] } : expected, step);
      return key;
    }
    case 'check': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const presented = o.token && tokenOf(world, s, key, o.token);
      const actual = await s.baton.checkClaim({ key, claimToken: presented });
      expect(outcomeOf(actual, (v) => ({ held: v.held, youHold: v.youHold, fence: v.fence })), step).toEqual(model.checkClaim(s.caller, key, presented));
      return key;
    }
    case 'heartbeat': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const claimToken = tokenOf(world, s, key, o.token);
      const actual = await s.baton.heartbeat({ key, claimToken });
      expect(outcomeOf(actual, (v) => ({ expiresAt: Date.parse(v.lease.expiresAt) })), step).toEqual(model.heartbeat(s.caller, key, claimToken));
      if (!actual.ok) forgetIfEnded(s, key, actual);
      return key;
    }
    case 'checkpoint': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const claimToken = tokenOf(world, s, key, o.token);
      const actual = await s.baton.checkpoint({ key, claimToken, note: o.note, state: o.state ?? undefined });
      expect(outcomeOf(actual, (v) => ({ expiresAt: Date.parse(v.lease.expiresAt) })), step).toEqual(
        model.checkpoint(s.caller, key, claimToken, o.note, o.state),
      );
      return key;
    }
    case 'release':
    case 'done':
    case 'submit':
    case 'review': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const claimToken = tokenOf(world, s, key, o.token);
      const actual =
        o.kind === 'release'
          ? await s.baton.release({ key, claimToken })
          : o.kind === 'done'
            ? await s.baton.done({ key, claimToken, summary: o.summary })
            : o.kind === 'submit'
              ? await s.baton.submitForReview({ key, claimToken, summary: o.summary })
              : await s.baton.review({ key, claimToken, verdict: o.verdict, note: o.note });
      const expected =
        o.kind === 'release'
          ? model.release(s.caller, key, claimToken)
          : o.kind === 'done'
            ? model.done(s.caller, key, claimToken, o.summary)
            : o.kind === 'submit'
              ? model.submit(s.caller, key, claimToken, o.summary)
              : model.review(s.caller, key, claimToken, o.verdict, o.note);
      expect(outcomeOf(actual, () => undefined), step).toEqual(expected);
      forgetIfEnded(s, key, actual);
      return key;
    }
    case 'status': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const actual = await s.baton.updateIssue({ key, status: o.status, priority: o.priority });
      expect(outcomeOf(actual, () => undefined), step).toEqual(model.updateStatus(s.caller, key, o.status, o.priority));
      return key;
    }
    case 'relate': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const other = keyOf(world, o.other);
      const actual = await s.baton.relate({ key, type: o.type, other, remove: o.remove });
      expect(outcomeOf(actual, () => undefined), step).toEqual(model.relate(s.caller, key, o.type, other, o.remove));
      return key;
    }
    case 'comment': {
      const s = slotOf(world, o.slot);
      const key = keyOf(world, o.issue, s);
      const actual = await s.baton.comment({ key, text: o.text });
      expect(outcomeOf(actual, () => undefined), step).toEqual(model.comment(s.caller, key, o.text));
      return key;
    }
    case 'operatorRelease': {
      const key = keyOf(world, o.issue);
      const actual = await world.observers[0].releaseAsOperator({ key });
      expect(outcomeOf(actual, (v) => v.released), step).toEqual(model.releaseAsOperator(key));
      return key;
    }
    case 'sweep': {
      const actual = await world.observers[1].sweep(o.limit);
      expect(outcomeOf(actual, (v) => [...v.reclaimed].sort()), step).toEqual({ ok: true, value: model.sweep(o.limit).sort() });
      return undefined;
    }
    case 'clock':
      moveClock(world, o.ms);
      return undefined;
    case 'restart': {
      // A new process of an agent that holds something takes its lease over with the token it kept.
      const held = world.model.liveLeases().filter((l) => l.lease.agent === AGENTS[o.agent % 2]);
      const agent = held[0]?.lease.agent ?? AGENTS[o.agent % AGENTS.length];
      const s = world.slots.length < 6 ? addSession(world, agent) : world.slots.find((x) => x.caller.agent === agent && x.caller.session !== held[0]?.lease.session);
      if (!s) return undefined;
      lastSlot = world.slots.indexOf(s);
      if (!held[0]) return undefined;
      return run(world, { kind: 'claim', slot: -1, issue: [...world.model.issues.keys()].indexOf(held[0].key), role: 'worker', token: { from: 'live' } }, step);
    }
    case 'work':
      throw new Error('expanded before running');
  }
}

/** How often each event and each refusal came up, so the test can require that the interesting ones did. */
const seen = new Map<string, number>();

function tally(name: string): void {
  seen.set(name, (seen.get(name) ?? 0) + 1);
}

function eventCounts(world: World): Map<string, number> {
  return new Map([...world.model.issues.values()].map((i) => [i.key, i.events.length]));
}

function tallyEvents(world: World, before: Map<string, number>): void {
  for (const issue of world.model.issues.values()) for (const type of issue.events.slice(before.get(issue.key) ?? 0)) tally(type);
}

async function runScenario(issues: { priority: number; label: boolean; blockedBy: number[]; gap: number }[], ops: Op[]): Promise<void> {
  const world = await makeWorld({ leaseSeconds: LEASE_SECONDS, compactAfterBytes: 16 * 1024 });
  lastSlot = 0;
  try {
    for (const [i, spec] of issues.entries()) {
      moveClock(world, spec.gap);
      await createIssue(world, i, spec.priority, spec.label, spec.blockedBy, `setup ${i}`);
    }
    for (const [n, o] of ops.flatMap(expand).entries()) {
      const step = `step ${n} ${JSON.stringify(o)}`;
      const before = eventCounts(world);
      const touched = await run(world, o, step);
      tallyEvents(world, before);
      await expectAgreement(world, world.observers[n % 2], step);
      if (touched !== undefined && world.model.issues.has(touched)) await expectOneHolder(world, touched, step);
    }
  } finally {
    await closeWorld(world);
  }
}

describe('the core against the model of the protocol', () => {
  afterAll(() => {
    console.error(`property: events ${JSON.stringify(Object.fromEntries(seen))}; answers ${JSON.stringify(Object.fromEntries(refusals))}`);
  });

  it(
    'agrees with the model after every step of random claims, renewals, checkpoints, releases, completions, takeovers, relation changes and clock jumps',
    async () => {
      await fc.assert(
        fc.asyncProperty(setup, fc.array(op, { minLength: 1, maxLength: 30, size: 'max' }), (issues, ops) => runScenario(issues, ops)),
        { numRuns: RUNS, endOnFailure: false },
      );
      // The runs reached the interesting corners, not only the happy path (counts printed above).
      for (const event of ['claimed', 'checkpoint', 'released', 'done', 'submitted', 'reclaimed', 'takeover']) {
        expect(seen.get(event) ?? 0, `no ${event} event in ${RUNS} runs`).toBeGreaterThan(0);
      }
      expect((seen.get('approved') ?? 0) + (seen.get('changes_requested') ?? 0), `no review verdict in ${RUNS} runs`).toBeGreaterThan(0);
      for (const code of ['CLAIM_LOST', 'CLAIM_MISMATCH', 'FORBIDDEN', 'ALREADY_CLAIMED', 'NOT_READY']) {
        expect(refusals.get(code) ?? 0, `no ${code} in ${RUNS} runs`).toBeGreaterThan(0);
      }
    },
    120_000,
  );
});
