import { describe, expect, it } from 'vitest';
import { type AgentOps, epochNow, type Failure, runLoop } from '../../bench/agent-loop.js';

/** Operations that answer after `ms`, failing `done` for the claims listed in `failDone`. */
function fakeOps(ms: number, failDone: ReadonlySet<number> = new Set()): AgentOps & { claims: number } {
  const after = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
  const ops = {
    claims: 0,
    claim: () => after({ key: `B-${++ops.claims}`, token: 't', fence: ops.claims }),
    heartbeat: () => after(true as const),
    checkpoint: () => after(true as const),
    done: (c: { fence: number }) => after(failDone.has(c.fence) ? ({ code: 'LEASE_EXPIRED' } satisfies Failure) : (true as const)),
    reopen: () => after(true as const),
  };
  return ops;
}

describe('the benchmark work loop', () => {
  it('keeps going past the window until the minimum of cycles is done', async () => {
    const ops = fakeOps(0);
    const result = await runLoop(ops, { startAt: epochNow(), warmupMs: 0, durationMs: 0, minCycles: 40 });
    expect(result.cycles).toBe(40);
    expect(ops.claims).toBe(40);
    // Nothing inside a window of no length is measured.
    expect(result.claims).toEqual([]);
    expect(result.latencies.claim).toEqual([]);
  });

  it('stops at its time limit short of the minimum of cycles', async () => {
    const ops = fakeOps(2);
    const startAt = epochNow();
    const result = await runLoop(ops, { startAt, warmupMs: 0, durationMs: 0, minCycles: 1_000_000, until: startAt + 150 });
    const finished = epochNow();
    // A cycle is five operations of 2 ms or more: 150 ms hold 15 of them at most.
    expect(result.cycles).toBeGreaterThan(0);
    expect(result.cycles).toBeLessThanOrEqual(16);
    // It ends the cycle under way, no more (with room for a busy machine's timers).
    expect(finished - startAt).toBeLessThan(150 + 1_000);
  });

  it('counts a cycle only when all of its operations succeeded', async () => {
    const result = await runLoop(fakeOps(0, new Set([2, 5])), { startAt: epochNow(), warmupMs: 0, durationMs: 0, minCycles: 10 });
    // Ten claims: two of their cycles failed at done.
    expect(result.cycles).toBe(8);
    expect(result.failures).toEqual({ LEASE_EXPIRED: 2 });
  });
});
