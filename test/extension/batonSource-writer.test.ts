import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatonSource } from '../../extension/model/batonSource.js';
import { openBaton, type Opened } from '../../shared/open.js';
import * as fileAccess from '../../shared/store/file/open-file-store.js';
import { value } from '../helpers/core.js';

let repo: string;
const opened: Array<{ close(): Promise<void> }> = [];
const env = { PATH: process.env.PATH } as NodeJS.ProcessEnv;

/** A `baton serve` of the repository, as it opens its core: the first one becomes the writer. */
async function server(agent: string): Promise<Opened> {
  const result = await openBaton({ cwd: repo, env, caller: { agent }, forward: true });
  if (!result.ok) throw new Error(result.error.message);
  opened.push(result.value);
  return result.value;
}

/** A window's source, with a clock the test moves. */
function source(clock = { now: Date.now() }): BatonSource {
  const s = new BatonSource({ cwd: repo, renewer: 'vscode:test', env, now: () => clock.now });
  opened.push({ close: async () => s.dispose() });
  return s;
}

async function ready(s: BatonSource) {
  const state = await s.load({ full: true });
  if (state.kind !== 'ready') throw new Error(state.kind === 'error' ? state.error.message : state.kind);
  return state.snapshot;
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-source-w-'));
  execFileSync('git', ['init', '-q', repo]);
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const o of opened.splice(0).reverse()) await o.close();
  rmSync(repo, { recursive: true, force: true });
});

describe('BatonSource while a server writes for the database', () => {
  it('reads and writes through the writer and never opens a copy of its own', async () => {
    const writer = await server('claude');
    const key = value(await writer.baton.createIssue({ title: 'Parse the config' })).issue.key;
    value(await writer.baton.claimIssue({ key }));
    const opens = vi.spyOn(fileAccess, 'openFileStore');

    const s = source();
    const snap = await ready(s);
    expect(snap.claims.map((c) => [c.key, c.agent])).toEqual([[key, 'claude']]);
    expect(snap.doing.map((i) => i.key)).toEqual([key]);

    // Its version follows the writer's commits, read from the files alone.
    const before = await s.version();
    expect(await s.version()).toBe(before);
    value(await writer.baton.createIssue({ title: 'Write the docs' }));
    expect(await s.version()).not.toBe(before);
    expect((await ready(s)).ready.map((i) => i.title).sort()).toEqual(['Write the docs']);

    // A write of the window (an operator release) runs in the writer too.
    const baton = value(await s.baton());
    value(await baton.releaseAsOperator({ key }));
    expect(value(await writer.baton.listClaims()).claims).toEqual([]);

    expect(s.holdsCopy()).toBe(false);
    expect(opens).not.toHaveBeenCalled();
  });

  it('uses its own copy while no server runs, and drops it once a writer has answered for 30 s', async () => {
    const clock = { now: Date.now() };
    const s = source(clock);
    // No database yet: the window creates it, as its commands do, and works alone on its copy.
    value(await value(await s.baton()).createIssue({ title: 'One' }));
    expect((await ready(s)).ready.map((i) => i.title).sort()).toEqual(['One']);
    expect(s.holdsCopy()).toBe(true);

    const writer = await server('claude');
    value(await writer.baton.createIssue({ title: 'Two' }));
    expect((await ready(s)).ready.map((i) => i.title).sort()).toEqual(['One', 'Two']);
    clock.now += 29_000;
    await s.version();
    expect(s.holdsCopy()).toBe(true);
    clock.now += 1_000;
    await s.version();
    expect(s.holdsCopy()).toBe(false);
    // Reads still answer, from the writer.
    value(await writer.baton.createIssue({ title: 'Three' }));
    expect((await ready(s)).ready.map((i) => i.title).sort()).toEqual(['One', 'Three', 'Two']);
    expect(s.holdsCopy()).toBe(false);
  });

  it('goes back to a copy of its own when the writer goes away, seeing what it wrote', async () => {
    const writer = await server('claude');
    value(await writer.baton.createIssue({ title: 'One' }));
    const opens = vi.spyOn(fileAccess, 'openFileStore');
    const s = source();
    expect((await ready(s)).ready).toHaveLength(1);
    expect(s.holdsCopy()).toBe(false);
    expect(opens).not.toHaveBeenCalled();

    await writer.close();
    opened.splice(opened.indexOf(writer), 1);
    expect((await ready(s)).ready.map((i) => i.title).sort()).toEqual(['One']);
    expect(s.holdsCopy()).toBe(true);
    expect(opens).toHaveBeenCalledTimes(1);
    value(await value(await s.baton()).createIssue({ title: 'Two' }));
    expect((await ready(s)).ready.map((i) => i.title).sort()).toEqual(['One', 'Two']);
  });
});
