import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ActivityWriter } from '../../mcp-server/activity-writer.js';

describe('ActivityWriter', () => {
  let writes: number[];
  let writer: ActivityWriter;

  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    writes = [];
    writer = new ActivityWriter({ writeMs: 5_000, write: async () => void writes.push(Date.now()), log: () => {} });
  });
  afterEach(() => vi.useRealTimers());

  it('writes the first call at once, then at most once per interval, the last call of a burst when the interval ends', async () => {
    writer.noted(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toEqual([0]);
    for (let t = 1; t < 5; t++) {
      await vi.advanceTimersByTimeAsync(1_000);
      writer.noted(false);
    }
    expect(writes).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(writes).toEqual([0, 5_000]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(writes).toEqual([0, 5_000]);
  });

  it('counts a call whose own transaction recorded the activity (heartbeat, checkpoint) as a write', async () => {
    writer.noted(true);
    writer.noted(false);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toEqual([5_000]);
  });

  it('writes what is pending when it closes, and nothing after', async () => {
    writer.noted(false);
    writer.noted(false);
    await writer.close();
    expect(writes).toEqual([0, 0]);
    writer.noted(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(writes).toEqual([0, 0]);
  });
});
