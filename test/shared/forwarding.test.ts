import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Baton, type BatonDeps } from '../../shared/baton.js';
import { ManualClock } from '../../shared/clock.js';
import { DEFAULTS } from '../../shared/config.js';
import { AnswerJournal } from '../../shared/forwarding/answer-journal.js';
import { forwardCalls } from '../../shared/forwarding/forward-calls.js';
import { runTagged } from '../../shared/forwarding/tagged-write.js';
import { FORWARDED_KEPT_MS, parseRequest, type WriteRequest } from '../../shared/forwarding/wire.js';
import { type RouteOptions, WriteRoute } from '../../shared/forwarding/write-route.js';
import { SessionTokens } from '../../shared/rules/leases.js';
import type { Store } from '../../shared/store/store.js';
import { value } from '../helpers/core.js';
import { waitFor } from '../helpers/spawnServer.js';
import { storeScratch } from './store/store-scratch.js';

const scratch = storeScratch('forward', 'baton.db');
const routes: WriteRoute[] = [];
afterEach(async () => {
  for (const route of routes.splice(0)) await route.close();
});

/** One server of the database, as `openBaton({ forward: true })` makes it, on a store of its own. */
async function server(agent: string, options: { store?: (real: Store) => Store; worktree?: string; git?: BatonDeps['git'] } & RouteOptions = {}) {
  const real = await scratch.open();
  const store = options.store ? options.store(real) : real;
  const route = new WriteRoute(WriteRoute.socketFor(scratch.path), store, options);
  routes.push(route);
  const tokens = new SessionTokens();
  const caller = { agent, session: `${agent}-session`, renewer: null, worktree: options.worktree ?? null };
  const local = new Baton({ store, caller, config: DEFAULTS, tokens, git: options.git });
  return { baton: forwardCalls(local, { tokens, store, route }), route, store: real };
}

/**
 * A store whose writes, once `arm`ed, wait for `open` before they start (`before`) or
 * before they answer (`after`): a writer stalled, or killed, mid-write.
 */
function gated(when: 'before' | 'after') {
  let armed = false;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wrap = (real: Store): Store => ({
    backend: real.backend,
    location: real.location,
    read: (fn) => real.read(fn),
    version: () => real.version(),
    info: () => real.info(),
    analyze: () => real.analyze(),
    compact: () => real.compact(),
    close: () => real.close(),
    async write(fn) {
      if (!armed) return real.write(fn);
      if (when === 'before') await gate;
      const result = await real.write(fn);
      if (when === 'after') await gate;
      return result;
    },
  });
  return { wrap, arm: () => (armed = true), open: () => release() };
}

const countRows = (store: Store, table: string) => store.read(async (tx) => Number((await tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n));

describe('forwarded writes', () => {
  it('run in the first server, for the session of the one that sent them', async () => {
    const writer = await server('alice');
    const other = await server('bob');
    value(await writer.baton.createIssue({ title: 'first' }));
    expect(writer.route.writing).toBe(true);

    value(await other.baton.createIssue({ title: 'second' }));
    expect(other.route.writing).toBe(false);
    const claimed = value(await other.baton.claimIssue({ key: 'BAT-2' }));
    const token = claimed.lease.claimToken!;
    expect(claimed.lease.agent).toBe('bob');
    // The token came back into bob's session: its reads show it, its leases are its own.
    expect(value(await other.baton.getIssue({ key: 'BAT-2' })).lease?.claimToken).toBe(token);
    expect(value(await other.baton.checkClaim({ key: 'BAT-2', claimToken: token })).youHold).toBe(true);
    expect(value(await writer.baton.checkClaim({ key: 'BAT-2' })).youHold).toBe(false);
    value(await other.baton.heartbeat({ key: 'BAT-2', claimToken: token }));
    value(await other.baton.done({ key: 'BAT-2', claimToken: token }));
    expect(value(await other.baton.getIssue({ key: 'BAT-2' })).issue.status).toBe('done');
  });

  it('tell the writer whether other servers are connected to it, so it shares its flushes', async () => {
    const heard: boolean[] = [];
    const writer = await server('alice', { serving: (others) => heard.push(others) });
    value(await writer.baton.createIssue({ title: 'first' }));
    expect(heard).toEqual([]);
    const other = await server('bob');
    value(await other.baton.createIssue({ title: 'second' }));
    expect(heard).toEqual([true]);
    await other.route.close();
    await waitFor(() => heard.length === 2, 5_000, 'the writer to hear the other server go');
    expect(heard).toEqual([true, false]);
  });

  it('keep a record per write until the next one confirms its answer arrived, and no token readable in the files', async () => {
    await server('alice').then((s) => s.baton.createIssue({ title: 'first' }));
    const other = await server('bob');
    const claimed = value(await other.baton.claimIssue({ key: 'BAT-1' }));
    const answers = `${scratch.path}.answers`;
    expect(await countRows(other.store, 'forwarded')).toBe(1);
    expect(AnswerJournal.of(answers).size).toBe(1);
    value(await other.baton.heartbeat({ key: 'BAT-1', claimToken: claimed.lease.claimToken! }));
    expect(await countRows(other.store, 'forwarded')).toBe(1);
    expect(AnswerJournal.of(answers).size).toBe(1);
    const files = [scratch.path, `${scratch.path}-log`, ...readdirSync(answers).map((name) => join(answers, name))];
    for (const file of files) expect(readFileSync(file).toString('latin1')).not.toContain(claimed.lease.claimToken!);
    expect(statSync(answers).mode & 0o777).toBe(0o700);
  });

  it('leave no record when they change nothing, and hand on the confirmations they carried', async () => {
    const writer = await server('alice');
    value(await writer.baton.createIssue({ title: 'first' }));
    const other = await server('bob');
    value(await other.baton.createIssue({ title: 'second' }));
    const answers = `${scratch.path}.answers`;
    expect(AnswerJournal.of(answers).size).toBe(1);
    for (const key of ['BAT-1', 'BAT-2']) value(await writer.baton.claimIssue({ key }));
    const logBefore = (await other.store.info()).sizes?.log;
    // Nothing left to claim: the claim changes nothing, so nothing is recorded or logged.
    expect(value(await other.baton.nextIssue({}))).toBeNull();
    expect((await other.store.info()).sizes?.log).toBe(logBefore);
    expect(AnswerJournal.of(answers).size).toBe(0);
    expect(readdirSync(answers).map((name) => statSync(join(answers, name)).size)).toEqual([0]);
    // The record of the confirmed write goes with the next write that records.
    expect(await countRows(other.store, 'forwarded')).toBe(1);
    value(await other.baton.createIssue({ title: 'third' }));
    expect(await countRows(other.store, 'forwarded')).toBe(1);
    expect(AnswerJournal.of(answers).size).toBe(1);
  });

  it("record the worktree as the caller's own server read it: the writer runs no git for others", async () => {
    const writer = await server('alice');
    value(await writer.baton.createIssue({ title: 'first' }));
    const read: string[] = [];
    const state = { head: 'c0ffee', branch: 'bat-1-first', dirty: ['src/a.ts'] };
    // A path the writer could not read: had it run git itself, the checkpoint would record none.
    const other = await server('bob', { worktree: join(scratch.path, 'no-such-worktree'), git: async (worktree) => (read.push(worktree), state) });
    const claimed = value(await other.baton.claimIssue({ key: 'BAT-1' }));
    expect(other.route.writing).toBe(false);
    const saved = value(await other.baton.checkpoint({ key: 'BAT-1', claimToken: claimed.lease.claimToken!, note: 'half way' }));
    expect(saved.checkpoint.git).toEqual(state);
    expect(read).toEqual([join(scratch.path, 'no-such-worktree')]);
    // Only the operations that record it pay for reading it.
    value(await other.baton.heartbeat({ key: 'BAT-1', claimToken: claimed.lease.claimToken! }));
    expect(read).toHaveLength(1);
  });

  it('refusals travel back as they are', async () => {
    await server('alice');
    const other = await server('bob');
    const refused = await other.baton.heartbeat({ key: 'BAT-9', claimToken: 'bt_nope' });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.code).toBe('NOT_FOUND');
  });

  it('run once when the writer committed one but never answered: the caller answers from its record', async () => {
    const stall = gated('after');
    const writer = await server('alice', { store: stall.wrap });
    value(await writer.baton.createIssue({ title: 'first' }));
    const other = await server('bob', { answerTimeoutMs: 300 });
    value(await other.baton.createIssue({ title: 'second' }));
    stall.arm();
    const claimed = value(await other.baton.claimIssue({ key: 'BAT-1' }));
    expect(claimed.lease.agent).toBe('bob');
    expect(await countRows(other.store, 'leases')).toBe(1);
    expect(await countRows(other.store, 'tokens')).toBe(1);
    // The answer bob gave is the one alice committed: its token is the lease's.
    expect(value(await other.baton.checkClaim({ key: 'BAT-1', claimToken: claimed.lease.claimToken! })).youHold).toBe(true);
    stall.open();
  });

  it('run once when the writer had not begun one: the caller runs it, and the late copy changes nothing', async () => {
    const stall = gated('before');
    const writer = await server('alice', { store: stall.wrap });
    value(await writer.baton.createIssue({ title: 'first' }));
    const other = await server('bob', { answerTimeoutMs: 300 });
    value(await other.baton.createIssue({ title: 'second' }));
    stall.arm();
    const checkpointed = value(await other.baton.claimIssue({ key: 'BAT-1' }));
    expect(await countRows(other.store, 'leases')).toBe(1);
    // alice's copy now runs, finds bob's record and answers it to nobody.
    stall.open();
    await writer.route.close();
    expect(await countRows(other.store, 'leases')).toBe(1);
    expect(await countRows(other.store, 'tokens')).toBe(1);
    expect(value(await other.baton.checkClaim({ key: 'BAT-1', claimToken: checkpointed.lease.claimToken! })).youHold).toBe(true);
  });

  it('find a new writer when the last one went away', async () => {
    const first = await server('alice');
    value(await first.baton.createIssue({ title: 'first' }));
    const other = await server('bob');
    value(await other.baton.createIssue({ title: 'second' }));
    await first.route.close();
    expect(existsSync(`${scratch.path}.sock`)).toBe(false);
    // The first write after may still meet the closing connection and run here itself.
    value(await other.baton.createIssue({ title: 'third' }));
    value(await other.baton.createIssue({ title: 'fourth' }));
    expect(other.route.writing).toBe(true);
    expect(await countRows(other.store, 'issues')).toBe(4);
    expect(existsSync(`${scratch.path}.sock`)).toBe(true);
  });

  it('clear the socket a killed writer left behind', async () => {
    const socket = `${scratch.path}.sock`;
    const killed = spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(socket)).toBe(true);
    const first = await server('alice');
    value(await first.baton.createIssue({ title: 'first' }));
    expect(first.route.writing).toBe(true);
  });
});

describe('a tagged write', () => {
  const caller = { agent: 'bob', session: 'bob-session', renewer: null, worktree: null };

  it('runs once however often it is run, and answers the same each time', async () => {
    const store = await scratch.open();
    value(await new Baton({ store, caller, config: DEFAULTS }).createIssue({ title: 'first' }));
    const request: WriteRequest = {
      seq: 1,
      op: 'claimIssue',
      args: [{ key: 'BAT-1' }],
      caller,
      config: DEFAULTS,
      tokens: [],
      tag: { id: 'a'.repeat(32), key: Buffer.alloc(32, 7).toString('base64'), confirmed: [] },
    };
    const first = await runTagged(store, request);
    const again = await runTagged(await scratch.open(), request);
    expect(again).toEqual(first);
    expect('result' in first && first.result.ok).toBe(true);
    expect(await countRows(store, 'leases')).toBe(1);
    expect(await countRows(store, 'tokens')).toBe(1);
  });

  /** A comment on BAT-1 as request `n`, as a server forwards it. */
  const comment = (n: number): WriteRequest => ({
    seq: 1,
    op: 'comment',
    args: [{ key: 'BAT-1', text: `comment ${n}` }],
    caller,
    config: DEFAULTS,
    tokens: [],
    tag: { id: String(n).repeat(32), key: Buffer.alloc(32, 7).toString('base64'), confirmed: [] },
  });

  it('keeps records nobody confirmed for as long as they may be asked for, then lets the next writes take them', async () => {
    const clock = new ManualClock();
    const store = await scratch.open({ clock });
    value(await new Baton({ store, caller, config: DEFAULTS }).createIssue({ title: 'first' }));
    for (const n of [1, 2]) expect(await runTagged(store, comment(n))).toMatchObject({ recorded: true });
    expect(await countRows(store, 'forwarded')).toBe(2);
    clock.advance(FORWARDED_KEPT_MS - 1);
    await runTagged(store, comment(3));
    expect(await countRows(store, 'forwarded')).toBe(3);
    // Past their time, and past the while between two looks: the next write that records takes both.
    clock.advance(2 * 60_000);
    await runTagged(store, comment(4));
    const left = await store.read((tx) => tx.all<{ id: string }>('SELECT id FROM forwarded ORDER BY id'));
    expect(left.map((row) => row.id[0])).toEqual(['3', '4']);
  });
});

describe('a request line', () => {
  const line = (extra: object) =>
    JSON.stringify({
      seq: 1,
      op: 'checkpoint',
      args: [{ key: 'BAT-1', claimToken: 'bt_x', note: 'n' }],
      caller: { agent: 'bob', session: 'bob-session', renewer: null, worktree: '/w' },
      config: DEFAULTS,
      tokens: [],
      tag: { id: 'b'.repeat(32), key: Buffer.alloc(32, 7).toString('base64'), confirmed: [] },
      ...extra,
    });

  it("takes the caller's worktree when it is one git could have told, or none", () => {
    const git = { head: 'c0ffee', branch: null, dirty: [] };
    expect((parseRequest(line({ git })) as WriteRequest | undefined)?.git).toEqual(git);
    expect((parseRequest(line({ git: null })) as WriteRequest | undefined)?.git).toBeNull();
    expect((parseRequest(line({})) as WriteRequest | undefined)?.git).toBeUndefined();
  });

  it('refuses a worktree of any other shape', () => {
    const shapes = [
      'c0ffee',
      { head: 1, branch: null, dirty: [] },
      { head: 'c0ffee', branch: 2, dirty: [] },
      { head: 'c0ffee', branch: null, dirty: [3] },
      { head: 'c0ffee', branch: null },
    ];
    for (const git of shapes) expect(parseRequest(line({ git }))).toBeUndefined();
  });
});
