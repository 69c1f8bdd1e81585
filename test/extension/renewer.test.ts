import { describe, expect, it } from 'vitest';
import type { Disposable } from '../../extension/model/emitter.js';
import { planRenewal } from '../../extension/model/renewPlan.js';
import { Renewer, type RenewTarget } from '../../extension/renewer.js';
import { ok, type Result } from '../../shared/result.js';
import type { ClaimView, Lease, SessionRecord } from '../../shared/types.js';
import { claim, session, WINDOW } from './fixtures.js';

const mine = claim('BAT-1', 60_000, { renewer: WINDOW, session: 's-1' });
const mineToo = claim('BAT-2', 60_000, { renewer: WINDOW, session: 's-1' });
const dead = claim('BAT-3', 60_000, { renewer: WINDOW, session: 's-dead' });
const otherWindow = claim('BAT-4', 60_000, { renewer: 'vscode:other', session: 's-other' });
const noRenewer = claim('BAT-5', 60_000, { renewer: null, session: 's-plain' });
const sessions = [
  session('s-1', { renewer: WINDOW }),
  session('s-dead', { renewer: WINDOW }),
  session('s-other', { renewer: 'vscode:other' }),
  session('s-plain'),
];
const running = new Set(['s-1', 's-other', 's-plain']);
const isAlive = (s: SessionRecord) => running.has(s.id);
const NO_LIMIT = { now: Date.parse('2026-01-01T00:00:00Z'), idleSeconds: 0 };

describe('planRenewal', () => {
  it("renews this window's leases whose holder runs, once per session", () => {
    const plan = planRenewal([mine, mineToo, dead, otherWindow, noRenewer], sessions, WINDOW, isAlive, NO_LIMIT);
    expect(plan.sessions).toEqual(['s-1']);
    expect(plan.keys).toEqual(['BAT-1', 'BAT-2']);
  });

  it('leaves a dead holder’s lease to expire', () => {
    expect(planRenewal([dead], sessions, WINDOW, isAlive, NO_LIMIT)).toEqual({ sessions: [], keys: [], lapsing: ['BAT-3'], idle: [] });
  });

  it('never renews a lease of another renewer, or of none, even when its holder runs', () => {
    expect(planRenewal([otherWindow, noRenewer], sessions, WINDOW, isAlive, NO_LIMIT)).toEqual({ sessions: [], keys: [], lapsing: [], idle: [] });
  });

  it('does not renew a lease whose session it cannot find', () => {
    expect(planRenewal([claim('BAT-6', 1, { renewer: WINDOW, session: 'unknown' })], sessions, WINDOW, isAlive, NO_LIMIT).sessions).toEqual([]);
  });

  it("stops renewing a running holder's leases once its agent is idle past the limit, and renews them while it is active", () => {
    const lastActiveAt = '2026-01-01T00:00:00.000Z';
    const idleSessions = [session('s-1', { renewer: WINDOW, lastActiveAt })];
    const limit = { now: Date.parse(lastActiveAt) + 61 * 60_000, idleSeconds: 3600 };
    expect(planRenewal([mine, mineToo], idleSessions, WINDOW, isAlive, limit)).toEqual({
      sessions: [],
      keys: [],
      lapsing: [],
      idle: [
        { key: 'BAT-1', idleMs: 61 * 60_000 },
        { key: 'BAT-2', idleMs: 61 * 60_000 },
      ],
    });
    expect(planRenewal([mine], idleSessions, WINDOW, isAlive, { ...limit, now: Date.parse(lastActiveAt) + 59 * 60_000 }).keys).toEqual(['BAT-1']);
    expect(planRenewal([mine], idleSessions, WINDOW, isAlive, { ...limit, idleSeconds: 0 }).keys).toEqual(['BAT-1']);
  });

  it('does not renew for a session recorded with another renewer', () => {
    const moved = [session('s-1', { renewer: 'vscode:other' })];
    expect(planRenewal([mine], moved, WINDOW, isAlive, NO_LIMIT).sessions).toEqual([]);
  });
});

class FakeTarget implements RenewTarget {
  leaseSeconds = 30;
  config = { idleSeconds: 0 };
  stops: { key: string; detail: string }[] = [];
  async recordRenewalStopped(input: { stops: { key: string; detail: string }[] }): Promise<Result<void>> {
    this.stops.push(...input.stops);
    return ok(undefined);
  }
  calls: Array<{ sessions: string[]; renewer?: string }> = [];
  constructor(public claims: ClaimView[]) {}
  async listClaims(): Promise<Result<{ claims: ClaimView[] }>> {
    return ok({ claims: this.claims });
  }
  async listSessions(): Promise<Result<{ sessions: SessionRecord[] }>> {
    return ok({ sessions });
  }
  async renewLeases(input: { sessions: string[]; renewer?: string }): Promise<Result<{ leases: Lease[] }>> {
    this.calls.push(input);
    const leases = this.claims.filter((c) => input.sessions.includes(c.session) && c.renewer === input.renewer);
    return ok({ leases: leases.map((c) => ({ key: c.key, agent: c.agent, branch: c.branch, worktree: c.worktree, claimedAt: c.claimedAt, expiresAt: c.expiresAt, lastRenewedAt: c.lastRenewedAt, renewer: c.renewer, fence: 1 })) });
  }
}

function timers() {
  const scheduled: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  return {
    scheduled,
    setTimer: (fn: () => void, ms: number): Disposable => {
      const t = { fn, ms, cancelled: false };
      scheduled.push(t);
      return { dispose: () => (t.cancelled = true) };
    },
    pending: () => scheduled.filter((t) => !t.cancelled),
  };
}

const quiet = { info: () => undefined, warn: () => undefined };

describe('Renewer', () => {
  it('renews with its own renewer id, and schedules the next round a third of the lease later', async () => {
    const target = new FakeTarget([mine, dead, otherWindow]);
    const t = timers();
    const renewer = new Renewer({ renewer: WINDOW, connect: async () => ok(target), isAlive, log: quiet, setTimer: t.setTimer });
    const report = await renewer.renewNow();
    expect(target.calls).toEqual([{ sessions: ['s-1'], renewer: WINDOW }]);
    expect(report?.renewed.map((l) => l.key)).toEqual(['BAT-1']);
    expect(report?.lapsing).toEqual(['BAT-3']);
    expect(t.pending().map((p) => p.ms)).toEqual([10_000]);
    renewer.dispose();
  });

  it('stops renewing a lease as soon as its holder dies', async () => {
    const target = new FakeTarget([mine]);
    const t = timers();
    const alive = new Set(['s-1']);
    const renewer = new Renewer({ renewer: WINDOW, connect: async () => ok(target), isAlive: (s) => alive.has(s.id), log: quiet, setTimer: t.setTimer });
    await renewer.renewNow();
    alive.delete('s-1');
    const report = await renewer.renewNow();
    expect(target.calls).toHaveLength(1);
    expect(report?.lapsing).toEqual(['BAT-1']);
    renewer.dispose();
  });

  it('starts a round at once, with the new period, when the lease length changes', async () => {
    const target = new FakeTarget([mine]);
    const t = timers();
    const renewer = new Renewer({ renewer: WINDOW, connect: async () => ok(target), isAlive, log: quiet, setTimer: t.setTimer });
    await renewer.renewNow();
    renewer.followLease(30);
    expect(target.calls).toHaveLength(1);
    target.leaseSeconds = 120;
    renewer.followLease(120);
    await renewer.renewNow();
    expect(target.calls).toHaveLength(2);
    expect(t.pending().map((p) => p.ms)).toEqual([40_000]);
    renewer.dispose();
  });

  it('says once that it stops renewing an idle agent\'s lease, and records it once', async () => {
    const target = new FakeTarget([mine]);
    target.config.idleSeconds = 3600;
    const lines: string[] = [];
    const log = { info: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) };
    const lastActive = Date.parse(sessions[0].lastActiveAt!);
    const renewer = new Renewer({ renewer: WINDOW, connect: async () => ok(target), isAlive, log, setTimer: timers().setTimer, now: () => lastActive + 61 * 60_000 });
    await renewer.renewNow();
    await renewer.renewNow();
    expect(target.calls).toEqual([]);
    expect(lines.filter((l) => l.includes('BAT-1'))).toEqual(['Renewer: BAT-1: its agent has been idle 61 min; its lease is left to expire.']);
    expect(target.stops).toEqual([{ key: 'BAT-1', detail: expect.stringMatching(/^renewal stopped: idle/) }]);
    renewer.dispose();
  });

  it('calls the store not at all when it has nothing of its own to renew', async () => {
    const target = new FakeTarget([otherWindow, noRenewer]);
    const renewer = new Renewer({ renewer: WINDOW, connect: async () => ok(target), isAlive, log: quiet, setTimer: timers().setTimer });
    await renewer.renewNow();
    expect(target.calls).toEqual([]);
    renewer.dispose();
  });

  it('waits for a database that does not exist yet, and tries again', async () => {
    const t = timers();
    const renewer = new Renewer({ renewer: WINDOW, connect: async () => null, isAlive, log: quiet, setTimer: t.setTimer, idleMs: 2000 });
    expect(await renewer.renewNow()).toBeNull();
    expect(t.pending().map((p) => p.ms)).toEqual([2000]);
    renewer.dispose();
  });

  it('schedules nothing more once disposed', async () => {
    const t = timers();
    const renewer = new Renewer({ renewer: WINDOW, connect: async () => ok(new FakeTarget([mine])), isAlive, log: quiet, setTimer: t.setTimer });
    renewer.start();
    expect(t.pending()).toHaveLength(1);
    renewer.dispose();
    expect(t.pending()).toHaveLength(0);
  });
});
