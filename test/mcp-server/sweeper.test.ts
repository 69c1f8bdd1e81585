import { describe, expect, it } from 'vitest';
import { DEFAULT_SWEEP_MS, SWEEP_BATCH, startSweeper, sweepInterval } from '../../mcp-server/sweeper.js';
import { waitFor } from '../helpers/spawnServer.js';
import {  } from '../helpers/tools.js';
import { sleep } from '../helpers/wait.js';

describe('startSweeper', () => {
  it('sweeps on every interval, never two ticks at once', async () => {
    let running = 0;
    let most = 0;
    let ticks = 0;
    const sweeper = startSweeper({
      intervalMs: 10,
      sweep: async () => {
        running++;
        most = Math.max(most, running);
        await sleep(25);
        running--;
        ticks++;
        return 0;
      },
      onError: () => {},
    });
    await waitFor(() => ticks >= 3, 5_000, 'three ticks');
    await sweeper.stop();
    expect(most).toBe(1);
  });

  it('follows a tick that hit the limit with another at once', async () => {
    const limits: number[] = [];
    const at: number[] = [];
    let left = 2 * SWEEP_BATCH + 5;
    const sweeper = startSweeper({
      intervalMs: 500,
      sweep: async (limit) => {
        limits.push(limit);
        at.push(Date.now());
        const cleared = Math.min(limit, left);
        left -= cleared;
        return cleared;
      },
      onError: () => {},
    });
    // One interval for the first tick; the two that follow a full tick come at once.
    await waitFor(() => limits.length >= 3, 5_000, 'three ticks');
    await sweeper.stop();
    expect(left).toBe(0);
    expect(limits.slice(0, 3)).toEqual([SWEEP_BATCH, SWEEP_BATCH, SWEEP_BATCH]);
    expect(at[2] - at[0]).toBeLessThan(250);
  });

  it('waits for a tick under way when stopped, and sweeps no more', async () => {
    let finished = false;
    let calls = 0;
    const sweeper = startSweeper({
      intervalMs: 5,
      sweep: async () => {
        calls++;
        await sleep(50);
        finished = true;
        return 0;
      },
      onError: () => {},
    });
    await waitFor(() => calls === 1, 5_000, 'a tick to start');
    await sweeper.stop();
    expect(finished).toBe(true);
    const after = calls;
    await sleep(30);
    expect(calls).toBe(after);
  });

  it('reports a failed tick and keeps sweeping', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const sweeper = startSweeper({
      intervalMs: 5,
      sweep: async () => {
        calls++;
        if (calls === 1) throw new Error('locked');
        return 0;
      },
      onError: (error) => errors.push(error),
    });
    await waitFor(() => calls > 1, 5_000, 'a tick after the failure');
    await sweeper.stop();
    expect(errors).toHaveLength(1);
    expect(calls).toBeGreaterThan(1);
  });
});

describe('sweepInterval', () => {
  it.each([
    [undefined, DEFAULT_SWEEP_MS],
    ['', DEFAULT_SWEEP_MS],
    ['250', 250],
    ['60000', 60_000],
  ])('reads BATON_SWEEP_MS=%s as %d ms', (raw, expected) => {
    expect(sweepInterval({ BATON_SWEEP_MS: raw })).toEqual({ ok: true, value: expected });
  });

  it.each(['9', '60001', '1.5', 'fast'])('refuses BATON_SWEEP_MS=%s, naming the setting', (raw) => {
    const read = sweepInterval({ BATON_SWEEP_MS: raw });
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.message).toContain('BATON_SWEEP_MS');
  });
});
