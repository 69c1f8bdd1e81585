import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatonSource } from '../../extension/model/batonSource.js';
import { buildTree } from '../../extension/model/buildTree.js';
import { LIST_LIMIT } from '../../extension/model/readSnapshot.js';
import { openBaton, type Opened } from '../../shared/open.js';
import { openAgent } from '../helpers/core.js';
import { ADMIN_URL, createTestDatabase } from '../postgres/test-database.js';
import { sleep } from '../helpers/wait.js';

let repo: string;
const opened: Array<{ close(): Promise<void> }> = [];
const env = { PATH: process.env.PATH } as NodeJS.ProcessEnv;

const agent = (name: string): Promise<Opened> => openAgent(repo, name, env, opened);

function source(): BatonSource {
  const s = new BatonSource({ cwd: repo, renewer: 'vscode:test', env });
  opened.push({ close: async () => s.dispose() });
  return s;
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-source-'));
  execFileSync('git', ['init', '-q', repo]);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  rmSync(repo, { recursive: true, force: true });
});

describe('BatonSource on the real store', () => {
  it('finds the database in the git common dir, and creates none by reading', async () => {
    const s = source();
    expect(s.dbPath).toBe(join(execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: repo, encoding: 'utf8' }).trim(), 'baton', 'baton.db'));
    expect(await s.version()).toBe('absent');
    expect(await s.load()).toEqual({ kind: 'noDatabase', dbPath: s.dbPath });
    expect(existsSync(s.dbPath!)).toBe(false);
  });

  it("reads a claim made through another connection, with its fence, and a checkpointed unheld issue as resumable", async () => {
    const other = await agent('claude');
    const a = await other.baton.createIssue({ title: 'Parse the config' });
    const b = await other.baton.createIssue({ title: 'Write the docs' });
    await other.baton.createIssue({ title: 'Ship it', blockedBy: ['BAT-1'] });
    expect(a.ok && b.ok).toBe(true);
    const claimed = await other.baton.claimIssue({ key: 'BAT-2' });
    if (!claimed.ok) throw new Error(claimed.error.message);
    await other.baton.checkpoint({ key: 'BAT-2', claimToken: claimed.value.lease.claimToken!, note: 'half done' });
    await other.baton.release({ key: 'BAT-2', claimToken: claimed.value.lease.claimToken! });
    const held = await other.baton.claimIssue({ key: 'BAT-1' });
    expect(held.ok).toBe(true);

    const state = await source().load();
    if (state.kind !== 'ready') throw new Error(state.kind);
    const snap = state.snapshot;
    expect(snap.claims.map((c) => [c.key, c.agent])).toEqual([['BAT-1', 'claude']]);
    expect(snap.fences).toEqual({ 'BAT-1': 1 });
    expect(snap.doing.filter((i) => !i.held).map((i) => i.key)).toEqual(['BAT-2']);
    expect(snap.checkpointed).toEqual(['BAT-2']);
    expect(snap.blocked.map((i) => [i.key, i.blockedBy])).toEqual([['BAT-3', ['BAT-1']]]);
    expect(snap.sessions).toEqual([]);
    expect(snap.leaseSeconds).toBe(1800);
  });

  it("moves its version when another connection commits, and not otherwise", async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    const s = source();
    const v1 = await s.version();
    expect(await s.version()).toBe(v1);
    await other.baton.createIssue({ title: 'Two' });
    expect(await s.version()).not.toBe(v1);
  });

  it('writes as the editor: an operator release frees the lease', async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    expect((await other.baton.claimIssue({ key: 'BAT-1' })).ok).toBe(true);
    const s = source();
    const baton = await s.baton();
    if (!baton.ok) throw new Error(baton.error.message);
    const released = await baton.value.releaseAsOperator({ key: 'BAT-1', note: 'Released from VS Code' });
    expect(released.ok && released.value.released).toBe(true);
    const state = await s.load();
    expect(state.kind === 'ready' && state.snapshot.claims).toEqual([]);
  });
});

/** A source on the repository whose clock the test moves; `keys` loads it and tells the keys in Todo and among the claims. */
function clocked() {
  let now = 1_000_000;
  const s = new BatonSource({ cwd: repo, renewer: 'vscode:test', env, now: () => now });
  opened.push({ close: async () => s.dispose() });
  const keys = async (options?: { full?: boolean }) => {
    const state = await s.load(options);
    if (state.kind !== 'ready') throw new Error(state.kind);
    return { ready: state.snapshot.ready.map((i) => i.key), claims: state.snapshot.claims.map((c) => c.key) };
  };
  return { s, advance: (ms: number) => (now += ms), keys };
}

describe('BatonSource while the store keeps changing', () => {
  it('reads claims at every load and the issue lists at most every 750 ms, and marks its version when they are due', async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    const { s, advance, keys } = clocked();
    expect(await keys()).toEqual({ ready: ['BAT-1'], claims: [] });

    await other.baton.createIssue({ title: 'Two' });
    expect((await other.baton.claimIssue({ key: 'BAT-1' })).ok).toBe(true);
    advance(400);
    // The claim shows at once; the list waits until it is due.
    expect(await keys()).toEqual({ ready: ['BAT-1'], claims: ['BAT-1'] });
    const settled = await s.version();
    expect(settled).not.toMatch(/:lists$/);

    advance(350);
    const due = await s.version();
    expect(due).toBe(`${settled}:lists`);
    expect(await keys()).toEqual({ ready: ['BAT-2'], claims: ['BAT-1'] });
    expect(await s.version()).toBe(settled);
  });

  it('keeps the issue lists as they were while nobody shows them, reading the claims at every load', async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    const { s, advance, keys } = clocked();
    expect(await keys()).toEqual({ ready: ['BAT-1'], claims: [] });

    s.showLists(false);
    await other.baton.createIssue({ title: 'Two' });
    expect((await other.baton.claimIssue({ key: 'BAT-1' })).ok).toBe(true);
    advance(10_000);
    expect(await s.version()).not.toMatch(/:lists$/);
    expect(await keys()).toEqual({ ready: ['BAT-1'], claims: ['BAT-1'] });
    expect(await keys({ full: true })).toEqual({ ready: ['BAT-2'], claims: ['BAT-1'] });

    s.showLists(true);
    await other.baton.createIssue({ title: 'Three' });
    advance(10_000);
    expect(await s.version()).toMatch(/:lists$/);
    expect(await keys()).toEqual({ ready: ['BAT-2', 'BAT-3'], claims: ['BAT-1'] });
  });

  it('hands back the arrays of the lists a read found unchanged, so that the view keeps their rows', async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    const s = source();
    const first = await s.load({ full: true });
    await other.baton.createIssue({ title: 'Two' });
    const second = await s.load({ full: true });
    if (first.kind !== 'ready' || second.kind !== 'ready') throw new Error('not ready');
    expect(second.snapshot.ready).not.toBe(first.snapshot.ready);
    expect(second.snapshot.ready.map((i) => i.title).sort()).toEqual(['One', 'Two']);
    expect(second.snapshot.done).toBe(first.snapshot.done);
    expect(second.snapshot.review).toBe(first.snapshot.review);
  });

  it('reads everything afresh when asked for a full load', async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    const s = new BatonSource({ cwd: repo, renewer: 'vscode:test', env, now: () => 0 });
    opened.push({ close: async () => s.dispose() });
    await s.load();
    await other.baton.createIssue({ title: 'Two' });
    const state = await s.load({ full: true });
    expect(state.kind === 'ready' && state.snapshot.ready.map((i) => i.key).sort()).toEqual(['BAT-1', 'BAT-2']);
  });
});

describe('BatonSource when the repository settings are broken', () => {
  it('reports the error, naming the file, does not open again at every poll, and opens again once the file is fixed', async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    writeFileSync(join(repo, '.baton.json'), '{ "leaseSeconds": 0 }');
    const s = source();
    const state = await s.load();
    expect(state.kind).toBe('error');
    expect(state.kind === 'error' && state.error.message).toMatch(/\.baton\.json: field "leaseSeconds"/);
    const first = await s.baton();
    const second = await s.baton();
    expect(!first.ok && !second.ok && second.error).toBe(!first.ok && first.error);
    writeFileSync(join(repo, '.baton.json'), '{}');
    expect((await s.baton()).ok).toBe(true);
  });

  it('follows a change of the lease length in .baton.json: the view, and the renewer to the new length', async () => {
    const other = await agent('claude');
    await other.baton.createIssue({ title: 'One' });
    const s = new BatonSource({ cwd: repo, renewer: 'vscode:test', env });
    opened.push({ close: async () => s.dispose() });
    const before = await s.load();
    expect(before.kind === 'ready' && before.snapshot.leaseSeconds).toBe(1800);
    const version = await s.version();

    writeFileSync(join(repo, '.baton.json'), JSON.stringify({ leaseSeconds: 120 }));
    // Nothing was written to the store, yet the view has something new to show.
    expect(await s.version()).not.toBe(version);
    const worker = await openBaton({ cwd: repo, env, caller: { agent: 'copilot', renewer: 'vscode:test' } });
    if (!worker.ok) throw new Error(worker.error.message);
    opened.push(worker.value.store);
    const claimed = await worker.value.baton.claimIssue({ key: 'BAT-1' });
    if (!claimed.ok) throw new Error(claimed.error.message);

    const after = await s.load();
    expect(after.kind === 'ready' && after.snapshot.leaseSeconds).toBe(120);
    const renewing = await s.existing();
    if (!renewing?.ok) throw new Error('no store');
    expect(renewing.value.leaseSeconds).toBe(120);
    const session = after.kind === 'ready' ? after.snapshot.claims[0].session : '';
    const renewed = await renewing.value.renewLeases({ sessions: [session], renewer: 'vscode:test' });
    if (!renewed.ok) throw new Error(renewed.error.message);
    const lease = renewed.value.leases[0];
    expect(Date.parse(lease.expiresAt) - Date.parse(lease.lastRenewedAt)).toBe(120_000);
  });
});

describe('BatonSource when the database fails under it', () => {
  const readyTitles = (state: Awaited<ReturnType<BatonSource['load']>>) =>
    state.kind === 'ready' ? state.snapshot.ready.map((i) => i.title) : state.kind;

  it('closes a store that keeps failing and opens the database made anew in its place, for the view and the renewer', async () => {
    await (await agent('claude')).baton.createIssue({ title: 'Old issue' });
    const { s, advance } = clocked();
    expect(readyTitles(await s.load())).toEqual(['Old issue']);
    rmSync(dirname(s.dbPath!), { recursive: true, force: true });
    await (await agent('claude')).baton.createIssue({ title: 'Brand new issue' });

    // The store still open on the deleted files refuses the new ones: an error, not old data.
    expect(await s.load()).toMatchObject({ kind: 'error', error: { code: 'STORE_UNAVAILABLE' } });
    expect((await s.existing())?.ok).toBe(false);
    advance(1000);
    expect((await s.load()).kind).toBe('error');

    advance(4500);
    expect(readyTitles(await s.load())).toEqual(['Brand new issue']);
    const renewing = await s.existing();
    if (!renewing?.ok) throw new Error('the renewer still finds no store');
    expect((await renewing.value.listClaims()).ok).toBe(true);
  });

  it('lets the renewer alone reopen a failing store, without the view polling', async () => {
    await (await agent('claude')).baton.createIssue({ title: 'Old issue' });
    const { s, advance } = clocked();
    expect((await s.existing())?.ok).toBe(true);
    rmSync(dirname(s.dbPath!), { recursive: true, force: true });
    await (await agent('claude')).baton.createIssue({ title: 'Brand new issue' });
    expect((await s.existing())?.ok).toBe(false);
    advance(5500);
    const baton = await s.existing();
    if (!baton?.ok) throw new Error('not reopened');
    const todo = await baton.value.listIssues({ status: 'todo' });
    expect(todo.ok && todo.value.issues.map((i) => i.title)).toEqual(['Brand new issue']);
  });

  it('creates no database when trying again after a broken one was deleted', async () => {
    const { s, advance } = clocked();
    mkdirSync(dirname(s.dbPath!), { recursive: true });
    writeFileSync(s.dbPath!, 'garbage, not a database');
    expect((await s.load()).kind).toBe('error');
    rmSync(dirname(s.dbPath!), { recursive: true, force: true });
    advance(5500);
    expect(await s.version()).toBe('absent');
    expect(await s.load()).toEqual({ kind: 'noDatabase', dbPath: s.dbPath });
    expect(await s.existing()).toBeNull();
    expect(existsSync(s.dbPath!)).toBe(false);
  });
});

describe('BatonSource past the length of a list', () => {
  it('leaves out of Blocked an issue whose blockers all finished, and names only the unfinished ones', async () => {
    const other = await agent('claude');
    for (const title of ['One', 'Two', 'Three', 'Four']) await other.baton.createIssue({ title });
    await other.baton.relate({ key: 'BAT-3', type: 'blockedBy', other: 'BAT-1' });
    await other.baton.relate({ key: 'BAT-4', type: 'blockedBy', other: 'BAT-1' });
    await other.baton.relate({ key: 'BAT-4', type: 'blockedBy', other: 'BAT-2' });
    expect((await other.baton.updateIssue({ key: 'BAT-1', status: 'done' })).ok).toBe(true);
    const state = await source().load();
    expect(state.kind === 'ready' && state.snapshot.blocked.map((i) => [i.key, i.blockedBy])).toEqual([['BAT-4', ['BAT-2']]]);
  });

  it('shows in Done the issue finished last, however many newer issues finished before it', async () => {
    const other = await agent('claude');
    const create = async (title: string) => {
      const created = await other.baton.createIssue({ title });
      if (!created.ok) throw new Error(created.error.message);
      return created.value.issue.key;
    };
    const finish = async (key: string) => expect((await other.baton.updateIssue({ key, status: 'done' })).ok).toBe(true);
    const oldest = await create('The oldest issue');
    for (let n = 2; n <= 1002; n++) await finish(await create(`Issue ${n}`));
    // A moment later, so that it is not finished in the same millisecond as another.
    await sleep(5);
    await finish(oldest);

    const state = await source().load();
    if (state.kind !== 'ready') throw new Error(state.kind);
    expect(state.snapshot.done).toHaveLength(10);
    expect(state.snapshot.done[0].key).toBe(oldest);
  }, 60_000);

  it('names the unfinished blockers of blocked issues when the blockers are in none of the lists read, and marks the groups it cut', async () => {
    const other = await agent('claude');
    const create = async (title: string, priority?: number) => {
      const created = await other.baton.createIssue({ title, priority });
      if (!created.ok) throw new Error(created.error.message);
    };
    for (let n = 1; n <= 5; n++) await create(`Old issue ${n}`);
    const relate = async (key: string, blocker: string) => expect((await other.baton.relate({ key, type: 'blockedBy', other: blocker })).ok).toBe(true);
    await relate('BAT-2', 'BAT-1');
    await relate('BAT-3', 'BAT-1');
    await relate('BAT-3', 'BAT-4');
    // BAT-5 is blocked only by an issue that finished: ready, not blocked.
    await relate('BAT-5', 'BAT-4');
    expect((await other.baton.updateIssue({ key: 'BAT-4', status: 'done' })).ok).toBe(true);
    // Issues of a higher priority fill Ready, so that BAT-1 is in no list read.
    for (let n = 6; n <= LIST_LIMIT + 6; n++) await create(`Issue ${n}`, 0);

    const state = await source().load();
    if (state.kind !== 'ready') throw new Error(state.kind);
    expect(state.snapshot.ready).toHaveLength(LIST_LIMIT);
    expect(state.snapshot.ready.map((i) => i.key)).not.toContain('BAT-1');
    expect(state.snapshot.cut).toEqual(['ready']);
    expect(state.snapshot.blocked.map((i) => [i.key, i.blockedBy])).toEqual([
      ['BAT-3', ['BAT-1']],
      ['BAT-2', ['BAT-1']],
    ]);
    const tree = buildTree(state.snapshot, { now: Date.now(), warningSeconds: 300, renewer: 'vscode:test', isAlive: () => true });
    expect(tree.find((g) => g.id === 'blocked')?.children.map((c) => c.key).sort()).toEqual(['BAT-2', 'BAT-3']);
    expect(tree.map((g) => [g.id, g.more])).toEqual([
      ['ready', true],
      ['blocked', false],
      ['done', false],
    ]);
  }, 60_000);

  it('shows the newest blocked issues, as many as any list, and says the store holds more', async () => {
    const other = await agent('claude');
    expect((await other.baton.createIssue({ title: 'The blocker' })).ok).toBe(true);
    for (let n = 2; n <= LIST_LIMIT + 2; n++) expect((await other.baton.createIssue({ title: `Blocked ${n}`, blockedBy: ['BAT-1'] })).ok).toBe(true);

    const state = await source().load();
    if (state.kind !== 'ready') throw new Error(state.kind);
    expect(state.snapshot.cut).toEqual(['blocked']);
    expect(state.snapshot.blocked).toHaveLength(LIST_LIMIT);
    expect(state.snapshot.blocked.map((i) => i.key)).not.toContain('BAT-2');
    expect(state.snapshot.blocked.every((i) => i.blockedBy.length === 1 && i.blockedBy[0] === 'BAT-1')).toBe(true);
    const tree = buildTree(state.snapshot, { now: Date.now(), warningSeconds: 300, renewer: 'vscode:test', isAlive: () => true });
    expect(tree.map((g) => [g.id, g.children.length, g.more])).toEqual([
      ['ready', 1, false],
      ['blocked', LIST_LIMIT, true],
    ]);
  }, 60_000);
});

describe.skipIf(!ADMIN_URL)('BatonSource on PostgreSQL', () => {
  it("counts down by the database clock on a machine whose clock is ten minutes fast", async () => {
    const db = await createTestDatabase();
    const realNow = Date.now.bind(Date);
    const fast = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 10 * 60_000);
    try {
      const s = new BatonSource({ cwd: repo, renewer: 'vscode:test', env: { ...env, BATON_DATABASE_URL: db.url } });
      opened.push({ close: async () => s.dispose() });
      expect((await s.load()).kind).toBe('ready');
      expect(Math.abs(s.storeNow() - realNow())).toBeLessThan(1_000);
    } finally {
      fast.mockRestore();
      await Promise.all(opened.splice(0).map((o) => o.close()));
      await db.drop();
    }
  });
});
