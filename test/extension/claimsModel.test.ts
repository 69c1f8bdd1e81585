import { describe, expect, it } from 'vitest';
import { ClaimsModel } from '../../extension/model/claimsModel.js';
import type { Disposable, Every } from '../../extension/model/emitter.js';
import type { ClaimsSource, ModelState } from '../../extension/model/snapshot.js';
import { claim, snapshot } from './fixtures.js';

class FakeSource implements ClaimsSource {
  current = 'v1';
  loads = 0;
  /** Whether each load asked for everything afresh. */
  full: boolean[] = [];
  versionChecks = 0;
  failWith: Error | null = null;
  state: ModelState = { kind: 'ready', snapshot: snapshot(), dbPath: '/repo/.git/baton/baton.db' };

  async version(): Promise<string> {
    this.versionChecks++;
    if (this.failWith) throw this.failWith;
    return this.current;
  }
  async load(options?: { full?: boolean }): Promise<ModelState> {
    this.loads++;
    this.full.push(options?.full === true);
    return this.state;
  }
}

/** An `every` that runs only when the test says so. */
function manualTimer(): { every: Every; fire(): void; disposed: () => boolean } {
  let fn: (() => void) | undefined;
  let disposed = false;
  return {
    every: (_ms, f): Disposable => {
      fn = f;
      return { dispose: () => (disposed = true) };
    },
    fire: () => fn?.(),
    disposed: () => disposed,
  };
}

describe('ClaimsModel', () => {
  it('loads once at start and tells its listeners', async () => {
    const source = new FakeSource();
    const model = new ClaimsModel(source, { pollMs: 250, every: manualTimer().every });
    const seen: string[] = [];
    model.onDidChange((s) => seen.push(s.kind));
    expect(model.state.kind).toBe('loading');
    await model.start();
    expect(model.state.kind).toBe('ready');
    expect(seen).toEqual(['ready']);
    expect(source.loads).toBe(1);
  });

  it('asks only for the version while nothing changed, and reloads when it moves', async () => {
    const source = new FakeSource();
    const timer = manualTimer();
    const model = new ClaimsModel(source, { pollMs: 250, every: timer.every });
    await model.start();
    for (let i = 0; i < 10; i++) await model.poll();
    expect(source.loads).toBe(1);
    expect(source.versionChecks).toBe(11);
    source.current = 'v2';
    source.state = { kind: 'ready', snapshot: snapshot({ claims: [claim('BAT-1', 60_000)] }), dbPath: '/db' };
    await model.poll();
    expect(source.loads).toBe(2);
    expect(model.state.kind === 'ready' && model.state.snapshot.claims.map((c) => c.key)).toEqual(['BAT-1']);
  });

  it('polls on its timer until disposed', async () => {
    const source = new FakeSource();
    const timer = manualTimer();
    const model = new ClaimsModel(source, { pollMs: 250, every: timer.every });
    await model.start();
    source.current = 'v2';
    timer.fire();
    await model.poll();
    expect(source.loads).toBe(2);
    model.dispose();
    expect(timer.disposed()).toBe(true);
  });

  it('merges polls asked for while one is waiting', async () => {
    const source = new FakeSource();
    const model = new ClaimsModel(source, { pollMs: 250, every: manualTimer().every });
    await model.start();
    source.current = 'v2';
    await Promise.all([model.poll(), model.poll(), model.poll()]);
    expect(source.loads).toBe(2);
    expect(source.versionChecks).toBeLessThanOrEqual(3);
  });

  it('reloads everything on refresh even when the version did not move, and what changed on a poll', async () => {
    const source = new FakeSource();
    const model = new ClaimsModel(source, { pollMs: 250, every: manualTimer().every });
    await model.start();
    await model.refresh();
    source.current = 'v2';
    await model.poll();
    expect(source.loads).toBe(3);
    expect(source.full).toEqual([true, true, false]);
  });

  it('reports an unusable store once, as STORE_UNAVAILABLE, and recovers', async () => {
    const source = new FakeSource();
    const model = new ClaimsModel(source, { pollMs: 250, every: manualTimer().every });
    const seen: string[] = [];
    model.onDidChange((s) => seen.push(s.kind === 'error' ? `error ${s.error.code}` : s.kind));
    await model.start();
    source.failWith = new Error('locked');
    await model.poll();
    await model.poll();
    expect(seen).toEqual(['ready', 'error STORE_UNAVAILABLE']);
    source.failWith = null;
    await model.poll();
    expect(seen).toEqual(['ready', 'error STORE_UNAVAILABLE', 'ready']);
  });

  it('does nothing after being disposed', async () => {
    const source = new FakeSource();
    const model = new ClaimsModel(source, { pollMs: 250, every: manualTimer().every });
    await model.start();
    model.dispose();
    source.current = 'v2';
    await model.refresh();
    expect(source.loads).toBe(1);
  });
});
