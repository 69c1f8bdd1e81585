import { execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import type { BatonError } from '../../shared/errors.js';
import type { Result } from '../../shared/result.js';
import { openFileStore } from '../../shared/store/file/index.js';
import type { Store } from '../../shared/store/store.js';
import { refusal, value } from '../helpers/core.js';
import { makeRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer } from '../helpers/spawnServer.js';
import { bundleFixture, startChild } from '../shared/store/fixtures/child-process.js';
import { inProcessServer } from '../helpers/inProcessServer.js';
import { scratchDir } from '../shared/store/helpers.js';
import { type Faults, faultyFs } from './faulty-fs.js';
import { canMount, mountTmpfs, type Tmpfs } from './tmpfs.js';
import { sleep } from '../helpers/wait.js';
import { seededRandom } from '../helpers/random.js';

/*
 * The faults of the world outside: a read-only folder, a full disk, a hung lock holder,
 * the file replaced under a running store, a clock that jumps backwards, a process
 * killed between writing and renaming. Each must end in a clear STORE_UNAVAILABLE (or a
 * recovery), never in a crash or a half-applied write, and never lose what was
 * acknowledged.
 */

let scratch: ReturnType<typeof scratchDir>;
let faultChild: string;
const cleanups: (() => unknown)[] = [];
const JUMPING_CLOCK = fileURLToPath(new URL('./fixtures/jumping-clock.cjs', import.meta.url));

beforeAll(async () => {
  scratch = scratchDir('faults');
  faultChild = await bundleFixture('../../../adversarial/fixtures/fault-child.ts', scratch.dir);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => scratch.remove());

let sessions = 0;

function session(store: Store, agent: string): Baton {
  return new Baton({ store, caller: { agent, session: `${agent}-${++sessions}`, renewer: null, worktree: null }, config: DEFAULTS, git: async () => null });
}

async function open(path: string, options: Partial<Parameters<typeof openFileStore>[0]> = {}): Promise<Store> {
  const store = await openFileStore({ path, ...options });
  cleanups.push(() => store.close());
  return store;
}

/** A STORE_UNAVAILABLE refusal that names the database and says why. */
function expectUnavailable<T>(result: Result<T>, path: string, why: RegExp): BatonError {
  const error = refusal(result);
  expect(error, JSON.stringify(error)).toMatchObject({ code: 'STORE_UNAVAILABLE', path: expect.stringContaining(path) });
  expect(String(error.reason)).toMatch(why);
  return error;
}

/** One issue claimed and checkpointed: what the fault must not lose. */
async function workInProgress(baton: Baton) {
  const { issue } = value(await baton.createIssue({ title: 'Survive the fault' }));
  const claimed = value(await baton.claimIssue({ key: issue.key }));
  const claimToken = claimed.lease.claimToken!;
  value(await baton.checkpoint({ key: issue.key, claimToken, note: 'acknowledged before the fault' }));
  return { key: issue.key, claimToken };
}

/** Every write the tools offer, against one held issue: each must be refused as unavailable. */
function everyWrite(baton: Baton, key: string, claimToken: string): Promise<Result<unknown>>[] {
  return [
    baton.checkpoint({ key, claimToken, note: 'during the fault' }),
    baton.heartbeat({ key, claimToken }),
    baton.comment({ key, text: 'during the fault' }),
    baton.createIssue({ title: 'during the fault' }),
    baton.updateIssue({ key, priority: 0 }),
    baton.nextIssue({}),
    baton.done({ key, claimToken, summary: 'during the fault' }),
  ];
}

async function checkpointNotes(store: Store): Promise<string[]> {
  return store.read(async (tx) => (await tx.all<{ note: string }>('SELECT note FROM checkpoints ORDER BY id')).map((r) => r.note));
}

describe('a read-only database folder', () => {
  it('refuses every write with STORE_UNAVAILABLE naming the file, keeps answering reads, and writes again once writable', async () => {
    const path = join(scratch.dir, 'readonly', 'baton.db');
    const faults: Faults = { readOnly: false, full: false };
    const store = await open(path, { fs: faultyFs(faults) });
    const agent = session(store, 'ann');
    const { key, claimToken } = await workInProgress(agent);

    faults.readOnly = true;
    for (const write of everyWrite(agent, key, claimToken)) expectUnavailable(await write, path, /EROFS|read-only/);
    expect(value(await agent.getIssue({ key })).checkpoint?.note).toBe('acknowledged before the fault');
    expect(value(await agent.checkClaim({ key })).youHold).toBe(true);
    // The same refusal reaches an agent through the MCP tool, as a coded answer.
    const server = await inProcessServer(agent, 'ann');
    cleanups.push(() => server.close());
    const answer = await server.client.callTool({ name: 'heartbeat', arguments: { key, claimToken } });
    expect(answer).toMatchObject({ isError: true, structuredContent: { error: { code: 'STORE_UNAVAILABLE' } } });

    faults.readOnly = false;
    value(await agent.checkpoint({ key, claimToken, note: 'after the fault' }));
    expect(await checkpointNotes(await open(path))).toEqual(['acknowledged before the fault', 'after the fault']);
  });

  it('refuses to create a database in a read-only folder with STORE_UNAVAILABLE naming the path', async () => {
    const path = join(scratch.dir, 'readonly-new', 'baton.db');
    const faults: Faults = { readOnly: true, full: false };
    await expect(openFileStore({ path, fs: faultyFs(faults) })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', path: expect.stringContaining(path) });
    expect(existsSync(path)).toBe(false);
  });

  it.skipIf(!canMount)('on a real file system remounted read-only: reads answer, writes are refused naming the file, and nothing is lost', async () => {
    const fsys = mountTmpfs(4096)!;
    cleanups.push(() => fsys.remove());
    const path = join(fsys.dir, 'baton.db');
    const before = await openFileStore({ path });
    const { key } = await workInProgress(session(before, 'ann'));
    await before.close();

    fsys.readOnly(true);
    const store = await openFileStore({ path });
    const agent = session(store, 'bob');
    expect(value(await agent.getIssue({ key })).checkpoint?.note).toBe('acknowledged before the fault');
    expectUnavailable(await agent.comment({ key, text: 'while read-only' }), path, /EROFS|read-only/);
    expectUnavailable(await agent.createIssue({ title: 'while read-only' }), path, /EROFS|read-only/);
    await store.close();

    fsys.readOnly(false);
    const after = await open(path);
    value(await session(after, 'bob').comment({ key, text: 'writable again' }));
    expect(value(await session(after, 'eve').getIssue({ key })).comments.map((c) => c.text)).toEqual(['writable again']);
    expect(await checkpointNotes(after)).toEqual(['acknowledged before the fault']);
  });

  it.skipIf(!canMount)('a store opened while the folder was read-only writes again once it is writable, without a restart', async () => {
    const fsys = mountTmpfs(4096)!;
    cleanups.push(() => fsys.remove());
    const path = join(fsys.dir, 'baton.db');
    const before = await openFileStore({ path });
    const { key } = await workInProgress(session(before, 'ann'));
    await before.close();
    fsys.readOnly(true);
    const store = await open(path);
    const agent = session(store, 'bob');
    expectUnavailable(await agent.comment({ key, text: 'while read-only' }), path, /EROFS|read-only/);
    fsys.readOnly(false);
    value(await agent.comment({ key, text: 'writable again' }));
  });
});

describe('a full disk', () => {
  it('refuses writes with STORE_UNAVAILABLE, applies none of them, and recovers when space is freed', async () => {
    const path = join(scratch.dir, 'full', 'baton.db');
    const faults: Faults = { readOnly: false, full: false };
    const store = await open(path, { fs: faultyFs(faults) });
    const agent = session(store, 'ann');
    const { key, claimToken } = await workInProgress(agent);

    faults.full = true;
    for (const write of everyWrite(agent, key, claimToken)) expectUnavailable(await write, path, /ENOSPC/);
    faults.full = false;
    value(await agent.checkpoint({ key, claimToken, note: 'after the fault' }));
    const reader = await open(path);
    expect(await checkpointNotes(reader)).toEqual(['acknowledged before the fault', 'after the fault']);
    expect(value(await session(reader, 'eve').getIssue({ key })).comments).toEqual([]);
  });

  it.skipIf(!canMount)('on a real small file system filled up: appends and compactions fail cleanly, and everything acknowledged survives', async () => {
    const fsys: Tmpfs = mountTmpfs(1024)!;
    cleanups.push(() => fsys.remove());
    const path = join(fsys.dir, 'baton.db');
    // Compacting often makes the full disk also hit snapshot writes.
    const store = await open(path, { compactAfterBytes: 16 * 1024 });
    const agent = session(store, 'ann');
    const { key, claimToken } = await workInProgress(agent);
    const acknowledged = ['acknowledged before the fault'];
    // Fill the disk with another file until nothing more fits.
    const filler = join(fsys.dir, 'filler');
    const fd = openSync(filler, 'w');
    const block = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, block);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }
    // Then free a little, so that some writes fit and the next ones run out of space in the
    // middle: in the lock's owner file, in a log append, or in a compaction's new snapshot.
    truncateSync(filler, statSync(filler).size - 12 * 1024);
    let refused = 0;
    for (let i = 0; i < 10; i++) {
      const note = `note ${i} ${'x'.repeat(2_000)}`;
      const result = await agent.checkpoint({ key, claimToken, note });
      if (result.ok) acknowledged.push(note);
      else {
        expectUnavailable(result, path, /ENOSPC|space/);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
    // Space comes back: writes work again and every acknowledged checkpoint is there, in order.
    rmSync(filler);
    value(await agent.checkpoint({ key, claimToken, note: 'after the fault' }));
    acknowledged.push('after the fault');
    const reader = await openFileStore({ path });
    expect(await checkpointNotes(reader)).toEqual(acknowledged);
    await reader.close();
    expect(readdirSync(fsys.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  }, 60_000);
});

describe('a lock held by a hung process', () => {
  it('makes writes wait, then answer STORE_UNAVAILABLE naming the holder; reads go on; the holder keeps the lock however long it is stopped, and once it resumes everyone writes again', async () => {
    const path = join(scratch.dir, 'hung', 'baton.db');
    const store = await open(path, { lockTimeoutMs: 400, lockStaleMs: 1_000 });
    const agent = session(store, 'ann');
    const { key, claimToken } = await workInProgress(agent);
    const holder = startChild(faultChild, ['hold-then-write', path]);
    cleanups.push(() => holder.kill());
    await holder.waitFor((line) => line === 'holding');
    holder.process.kill('SIGSTOP');

    const waited = performance.now();
    const error = expectUnavailable(await agent.heartbeat({ key, claimToken }), path, new RegExp(`pid ${holder.process.pid}`));
    expect(performance.now() - waited).toBeGreaterThanOrEqual(350);
    expect(error.message).toMatch(/locked by pid/);
    expect(value(await agent.getIssue({ key })).checkpoint?.note).toBe('acknowledged before the fault');

    // Silent past the stale limit, but its process is still there (stopped, as by Ctrl-Z
    // or a debugger): taking the lock from it would let it resume and write over ours.
    await sleep(1_200);
    expectUnavailable(await agent.checkpoint({ key, claimToken, note: 'while the holder is stopped' }), path, /locked by pid/);
    holder.process.kill('SIGCONT');
    holder.process.stdin!.write('go\n');
    expect(await holder.waitFor((line) => line.startsWith('refused') || line === 'committed')).toBe('committed');
    value(await agent.checkpoint({ key, claimToken, note: 'after the holder resumed' }));
    const reader = await open(path);
    expect(await checkpointNotes(reader)).toEqual(['acknowledged before the fault', 'after the holder resumed']);
    expect(await reader.read((tx) => tx.all(`SELECT * FROM comments WHERE agent = 'hung'`))).toHaveLength(1);
  }, 30_000);
});

describe('the database file replaced by another process', () => {
  /** Another process replaces `target` with `source` by rename, as a backup restore or a sync tool does. */
  function replaceFile(source: string, target: string): void {
    execFileSync('sh', ['-c', 'cp "$1" "$2.incoming" && mv "$2.incoming" "$2"', 'replace', source, target]);
  }

  it('with a file that is not a Baton database: new openers are refused naming it, the running store loses nothing', async () => {
    const path = join(scratch.dir, 'replaced-garbage', 'baton.db');
    const store = await open(path, { compactAfterBytes: 1024 * 1024 });
    const agent = session(store, 'ann');
    const { key, claimToken } = await workInProgress(agent);
    const garbage = join(scratch.dir, 'garbage.txt');
    writeFileSync(garbage, 'these are not the bytes you are looking for\n'.repeat(100));
    replaceFile(garbage, path);

    await expect(openFileStore({ path })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', path, reason: expect.stringMatching(/not a Baton database/) });
    value(await agent.checkpoint({ key, claimToken, note: 'after the replacement' }));
    expect(value(await agent.getIssue({ key })).checkpoint?.note).toBe('after the replacement');
    expect(readFileSync(path, 'utf8')).toBe(readFileSync(garbage, 'utf8'));
  });

  it('with an older copy of itself: a new opener either continues it from the log or is refused clearly, and the running store loses nothing', async () => {
    const path = join(scratch.dir, 'replaced-old', 'baton.db');
    const store = await open(path, { compactAfterBytes: 4 * 1024 });
    const agent = session(store, 'ann');
    const { key, claimToken } = await workInProgress(agent);
    const backup = join(scratch.dir, 'backup.db');
    copyFileSync(path, backup);
    const notes = ['acknowledged before the fault'];
    for (let i = 0; i < 30; i++) {
      notes.push(`after the backup ${i} ${'x'.repeat(300)}`);
      value(await agent.checkpoint({ key, claimToken, note: notes.at(-1)! }));
    }
    replaceFile(backup, path);

    const opened = await openFileStore({ path }).then(
      async (reader) => {
        // Continued from the log: then it must hold everything.
        const held = await checkpointNotes(reader);
        await reader.close();
        return held;
      },
      (error: unknown) => {
        expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', path, reason: expect.stringMatching(/log does not continue the snapshot/) });
        return 'refused';
      },
    );
    if (opened !== 'refused') expect(opened).toEqual(notes);
    // The running store goes on with everything it acknowledged, and its next compaction heals the file.
    notes.push('after the replacement');
    value(await agent.checkpoint({ key, claimToken, note: 'after the replacement' }));
    for (let i = 0; i < 20; i++) value(await agent.comment({ key, text: `filler ${i} ${'y'.repeat(300)}` }));
    expect(await checkpointNotes(await open(path))).toEqual(notes);
  });

  it('with another Baton database: a new opener is refused rather than mixing the two', async () => {
    const path = join(scratch.dir, 'replaced-other', 'baton.db');
    const store = await open(path, { compactAfterBytes: 1024 * 1024 });
    const agent = session(store, 'ann');
    await workInProgress(agent);
    const otherPath = join(scratch.dir, 'other', 'baton.db');
    const other = await openFileStore({ path: otherPath, compactAfterBytes: 1 });
    value(await session(other, 'zed').createIssue({ title: 'an issue of another repository' }));
    await other.close();
    for (let i = 0; i < 5; i++) value(await agent.comment({ key: 'BAT-1', text: `ours ${i}` }));
    replaceFile(otherPath, path);

    await expect(openFileStore({ path })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: expect.stringMatching(/another Baton database/) });
  });

  it('by deleting it: new openers are refused while the log holds operations, and the running store loses nothing', async () => {
    const path = join(scratch.dir, 'deleted', 'baton.db');
    const store = await open(path, { compactAfterBytes: 8 * 1024 });
    const agent = session(store, 'ann');
    const { key, claimToken } = await workInProgress(agent);
    rmSync(path);
    await expect(openFileStore({ path })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', reason: expect.stringMatching(/missing/) });
    const notes = ['acknowledged before the fault'];
    for (let i = 0; i < 30; i++) {
      notes.push(`after the deletion ${i} ${'x'.repeat(300)}`);
      value(await agent.checkpoint({ key, claimToken, note: notes.at(-1)! }));
    }
    // Its compaction wrote the snapshot again: everyone can open it, with everything in it.
    expect(await checkpointNotes(await open(path))).toEqual(notes);
  });
});

describe('a clock that jumps backwards', () => {
  it('never gives one issue two holders, fences the agent whose lease ran out by it, and loses no acknowledged checkpoint', async () => {
    const repo = makeRepo();
    cleanups.push(() => repo.remove());
    const clockOf = { ann: join(repo.dir, 'clock-of-ann'), bob: join(repo.dir, 'clock-of-bob') };
    writeFileSync(clockOf.ann, '0');
    writeFileSync(clockOf.bob, '0');
    const jumping = (agent: 'ann' | 'bob') => ({
      BATON_LEASE_SECONDS: '60',
      BATON_AGENT: agent,
      NODE_OPTIONS: `--require ${JUMPING_CLOCK}`,
      BATON_TEST_CLOCK_FILE: clockOf[agent],
    });
    const call = async (server: SpawnedServer, name: string, args: Record<string, unknown>) => {
      const answer = await server.client.callTool({ name, arguments: args });
      return answer.structuredContent as Record<string, any>;
    };
    // Ann's server writes before Bob's starts, so it writes for both: every write is judged
    // by her clock. Started together, either server's first write could come first.
    const ann = await spawnServer({ cwd: repo.main, env: jumping('ann') });
    cleanups.push(() => ann.close());
    await call(ann, 'create_issue', { title: 'first' });
    await call(ann, 'create_issue', { title: 'second' });
    const bob = await spawnServer({ cwd: repo.main, env: jumping('bob') });
    cleanups.push(() => bob.close());
    const store = await open(repo.dbPath);
    const liveTokens = () => store.read((tx) => tx.all<{ issue_id: number; n: number }>(`SELECT issue_id, count(*) AS n FROM tokens WHERE state = 'live' GROUP BY issue_id`));

    const held = await call(bob, 'claim_issue', { key: 'BAT-1' });
    const bobToken = held.lease.claimToken as string;
    expect(await call(bob, 'checkpoint', { key: 'BAT-1', claimToken: bobToken, note: 'bob before the jump' })).not.toHaveProperty('error');

    // Bob's own clock jumping back does not reach his lease: Ann's server renews it.
    writeFileSync(clockOf.bob, String(-3_600_000));
    const kept = await call(bob, 'heartbeat', { key: 'BAT-1', claimToken: bobToken });
    expect(Date.parse(kept.lease.expiresAt)).toBeGreaterThan(Date.now());
    writeFileSync(clockOf.bob, '0');

    // The writer's clock jumps an hour back. Bob's renewal is a full reset to that now
    // plus the lease: once the clock is right again, that lease is long over.
    writeFileSync(clockOf.ann, String(-3_600_000));
    const renewed = await call(bob, 'heartbeat', { key: 'BAT-1', claimToken: bobToken });
    expect(Date.parse(renewed.lease.expiresAt)).toBeLessThan(Date.now());
    writeFileSync(clockOf.ann, '0');
    expect(await call(ann, 'check_claim', { key: 'BAT-1' })).toMatchObject({ held: false });
    const taken = await call(ann, 'claim_issue', { key: 'BAT-1' });
    expect(taken).toMatchObject({ resumed: true, checkpoint: { note: 'bob before the jump' }, lease: { fence: 2 } });
    // Bob's late writes are refused and change nothing (but the log's record of them).
    expect(await call(bob, 'checkpoint', { key: 'BAT-1', claimToken: bobToken, note: 'bob after the jump' })).toMatchObject({
      error: { code: 'CLAIM_LOST', reason: 'reclaimed' },
    });
    expect(await call(bob, 'done', { key: 'BAT-1', claimToken: bobToken })).toMatchObject({ error: { code: 'CLAIM_LOST' } });
    expect(await call(bob, 'claim_issue', { key: 'BAT-1' })).toMatchObject({ error: { code: 'ALREADY_CLAIMED' } });
    expect((await liveTokens()).every((r) => r.n === 1)).toBe(true);

    // Ann's server goes: Bob's next write finds no writer and he writes himself, by his
    // clock, which jumps back again. What he holds and what Ann holds stay apart.
    await ann.close();
    writeFileSync(clockOf.bob, String(-3_600_000));
    const second = await call(bob, 'next_issue', {});
    expect(second.issue.key).toBe('BAT-2');
    expect(await call(bob, 'claim_issue', { key: 'BAT-1' })).toMatchObject({ error: { code: 'ALREADY_CLAIMED' } });
    writeFileSync(clockOf.bob, '0');
    const bobAgain = await call(bob, 'heartbeat', { key: second.issue.key, claimToken: second.lease.claimToken });
    expect(bobAgain.error?.code ?? 'ok').toMatch(/^(ok|CLAIM_LOST)$/);
    expect((await liveTokens()).every((r) => r.n === 1)).toBe(true);
    expect(await checkpointNotes(store)).toEqual(['bob before the jump']);
    // The activity log keeps commit order, whatever times the clocks wrote into it.
    const events = (await call(bob, 'activity', { key: 'BAT-1' })).events.map((e: { type: string }) => e.type).reverse();
    // Bob's two late writes appear only as the log's record of their refusal.
    expect(events).toEqual(['created', 'claimed', 'checkpoint', 'reclaimed', 'claimed', 'refused', 'refused']);
  }, 30_000);
});

describe('processes killed between writing and renaming', () => {
  const points = [
    ['snapshot-rename', 'a new snapshot written and fsynced, not yet renamed over the old one', 2],
    ['log-rename', 'the snapshot renamed, the fresh log not yet renamed over the old one', 2],
    ['append-half', 'half of an operation written to the log', 6],
    ['after-append', 'an operation written and flushed, before it was acknowledged', 6],
  ] as const;

  for (const [point, what, nth] of points) {
    it(`keeps every acknowledged write when killed with ${what}`, async () => {
      const path = join(scratch.dir, `killed-${point}`, 'baton.db');
      const setup = await openFileStore({ path });
      await setup.close();
      const child = startChild(faultChild, ['writer', path, 'w', point, String(nth)], { BATON_TEST_COMPACT: '2000' });
      const code = await child.exited;
      expect(code, child.stderr).toBeNull();
      const acked = child.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
      expect(acked.length).toBeGreaterThan(0);

      const store = await open(path, { compactAfterBytes: 1 });
      const texts = (await store.read((tx) => tx.all<{ text: string }>('SELECT text FROM comments ORDER BY id'))).map((r) => r.text);
      expect(texts.slice(0, acked.length)).toEqual(acked);
      // Beyond those, at most the one write under way when it died, and only if it was already
      // durable: a torn append is dropped; a compaction runs after its write committed.
      expect(texts.length - acked.length).toBeLessThanOrEqual(point === 'append-half' ? 0 : 1);
      expect(new Set(texts).size).toBe(texts.length);
      // The next writer carries on, and its compaction removes what the killed one left behind.
      value(await session(store, 'ann').createIssue({ title: 'after the crash' }));
      expect(readdirSync(join(scratch.dir, `killed-${point}`)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    }, 30_000);
  }

  it('keeps every acknowledged checkpoint of an agent whose server process is killed again and again', async () => {
    const random = seededRandom('faults: when to kill the server');
    const repo = makeRepo();
    cleanups.push(() => repo.remove());
    const env = { BATON_AGENT: 'phoenix' };
    let server = await spawnServer({ cwd: repo.main, env });
    const created = await server.client.callTool({ name: 'create_issue', arguments: { title: 'Rise again' } });
    const key = (created.structuredContent as { issue: { key: string } }).issue.key;
    let claim = (await server.client.callTool({ name: 'claim_issue', arguments: { key } })).structuredContent as { lease: { claimToken: string } };
    const acknowledged: string[] = [];
    for (let round = 0; round < 4; round++) {
      // Checkpoint as fast as possible and kill the server in the middle of it.
      const pid = server.pid;
      let stop = false;
      const writing = (async () => {
        for (let i = 0; !stop; i++) {
          const note = `round ${round} note ${i}`;
          const answer = await server.client.callTool({ name: 'checkpoint', arguments: { key, claimToken: claim.lease.claimToken, note } }).catch(() => null);
          if (answer === null) return;
          if (!answer.isError) acknowledged.push(note);
        }
      })();
      await sleep(150 + random() * 150);
      process.kill(pid, 'SIGKILL');
      stop = true;
      await writing;
      await server.close().catch(() => {});
      // The agent restarts: a new session of it takes the lease over with the token it kept.
      server = await spawnServer({ cwd: repo.main, env });
      const taken = await server.client.callTool({ name: 'claim_issue', arguments: { key, claimToken: claim.lease.claimToken } });
      expect(taken.isError, JSON.stringify(taken.structuredContent)).toBeFalsy();
      claim = taken.structuredContent as typeof claim;
      // It resumes from the last acknowledged checkpoint, or from one written just before the kill.
      const resumed = taken.structuredContent as { resumed: boolean; checkpoint: { note: string } };
      expect(resumed.resumed).toBe(true);
      const [, lastRound, lastNote] = /round (\d+) note (\d+)/.exec(acknowledged.at(-1)!)!;
      const [, round2, note2] = /round (\d+) note (\d+)/.exec(resumed.checkpoint.note)!;
      expect(Number(round2) * 1e6 + Number(note2)).toBeGreaterThanOrEqual(Number(lastRound) * 1e6 + Number(lastNote));
    }
    await server.close();
    const store = await open(repo.dbPath);
    const notes = await checkpointNotes(store);
    // Every acknowledged checkpoint, in order; besides them at most one per kill, written
    // durably just before the kill took its answer away.
    const acked = new Set(acknowledged);
    expect(notes.filter((n) => acked.has(n))).toEqual(acknowledged);
    expect(notes.length - acknowledged.length).toBeLessThanOrEqual(4);
    expect(acknowledged.length).toBeGreaterThan(4);
  }, 60_000);

  it('runs every checkpoint once, and answers it, while the server writing for the others is killed again and again', async () => {
    const random = seededRandom('faults: when to kill the writer');
    const repo = makeRepo();
    cleanups.push(() => repo.remove());
    const keys = ['BAT-1', 'BAT-2', 'BAT-3'];
    const tokens = new Map<string, string>();
    const acknowledged: string[] = [];
    const refused: string[] = [];
    for (let round = 0; round < 4; round++) {
      // The first server of the round finds no writer and writes for the agents after it.
      const writer = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: `writer-${round}` } });
      const agents = [];
      for (const key of keys) {
        if (round === 0) await writer.client.callTool({ name: 'create_issue', arguments: { title: key } });
        else await writer.client.callTool({ name: 'check_claim', arguments: { key } });
        agents.push(await spawnServer({ cwd: repo.main, env: { BATON_AGENT: `agent-${key}` } }));
      }
      if (round === 0) await writer.client.callTool({ name: 'comment', arguments: { key: 'BAT-1', text: 'the writer wrote first' } });
      // A restarted agent takes its lease back with the token it kept.
      for (const [n, agent] of agents.entries()) {
        const key = keys[n];
        const claimed = await agent.client.callTool({ name: 'claim_issue', arguments: { key, claimToken: tokens.get(key) } });
        expect(claimed.isError, JSON.stringify(claimed.structuredContent)).toBeFalsy();
        tokens.set(key, (claimed.structuredContent as { lease: { claimToken: string } }).lease.claimToken);
      }
      let stop = false;
      const loops = agents.map(async (agent, n) => {
        const key = keys[n];
        for (let i = 0; !stop; i++) {
          const note = `${key} round ${round} note ${i}`;
          const answer = await agent.client.callTool({ name: 'checkpoint', arguments: { key, claimToken: tokens.get(key), note } });
          (answer.isError ? refused : acknowledged).push(note);
        }
      });
      await sleep(200 + random() * 200);
      process.kill(writer.pid, 'SIGKILL');
      // The agents go on: calls under way when it died run in their own servers, later
      // ones find a new writer among them.
      await sleep(400);
      stop = true;
      await Promise.all(loops);
      await writer.close().catch(() => {});
      for (const agent of agents) await agent.close();
    }
    const store = await open(repo.dbPath);
    const notes = await checkpointNotes(store);
    expect(refused).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(40);
    // Each acknowledged checkpoint exactly once, and nothing else.
    expect([...notes].sort()).toEqual([...acknowledged].sort());
  }, 90_000);
});
