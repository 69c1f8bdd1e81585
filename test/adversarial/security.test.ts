import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatonSource } from '../../extension/model/batonSource.js';
import { buildTree } from '../../extension/model/buildTree.js';
import { renderActivity, renderCheckpoint } from '../../extension/model/renderDocuments.js';
import { ok } from '../../shared/result.js';
import { openFileStore } from '../../shared/store/file/index.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { CLI, type SpawnedServer, spawnServer } from '../helpers/spawnServer.js';
import { bundleFixture, startChild } from '../shared/store/fixtures/child-process.js';
import { sleep } from '../helpers/wait.js';

/*
 * Tokens reach their holder and no one else: not another agent, not another session of
 * the same agent, not a log line, not the CLI, not the editor's tree, not the database
 * files. The database and lock files are private to their owner whatever the umask. And
 * no tool input, however path-like, makes the server write outside the repository.
 */

type Json = Record<string, any>;

/** A server that keeps every answer it gave, to be searched afterwards. */
interface Session {
  name: string;
  server: SpawnedServer;
  answers: string[];
  call(tool: string, args?: Json): Promise<Json>;
}

async function startSession(name: string, agent: string, cwd: string, env: Record<string, string> = {}): Promise<Session> {
  const server = await spawnServer({ cwd, env: { BATON_AGENT: agent, ...env } });
  const answers: string[] = [];
  return {
    name,
    server,
    answers,
    async call(tool, args = {}) {
      const answer = await server.client.callTool({ name: tool, arguments: args });
      answers.push(JSON.stringify(answer));
      return answer.structuredContent as Json;
    },
  };
}

describe('claim tokens', () => {
  let repo: ScratchRepo;
  const sessions: Session[] = [];
  /** Every token handed out, and the session it was handed to. */
  const owner = new Map<string, string>();

  beforeAll(() => {
    repo = makeRepo({ worktrees: ['wt-ann', 'wt-bob'] });
  });
  afterAll(async () => {
    for (const s of sessions) await s.server.close().catch(() => {});
    repo.remove();
  });

  function own(session: Session, answer: Json): Json {
    const leases = [answer.lease, ...(answer.items ?? []).map((i: Json) => i.lease)].filter(Boolean);
    for (const lease of leases) if (lease.claimToken && !owner.has(lease.claimToken)) owner.set(lease.claimToken, session.name);
    return answer;
  }

  it('reach only the session holding them: in every tool answer, resource, event, log line, CLI output, tree item and database file', async () => {
    const [wtAnn, wtBob] = repo.worktrees;
    const ann1 = await startSession('ann-1', 'ann', wtAnn);
    const ann2 = await startSession('ann-2', 'ann', wtAnn);
    const bob = await startSession('bob', 'bob', wtBob);
    const eve = await startSession('eve', 'eve', repo.main, { BATON_RENEWER: 'watchdog:eve' });
    sessions.push(ann1, ann2, bob, eve);

    // A day of work: claims, checkpoints, a batch, a restart, a review, a replayed request.
    for (let i = 1; i <= 5; i++) await ann1.call('create_issue', { title: `issue ${i}`, ...(i === 5 ? { blockedBy: ['BAT-4'] } : {}) });
    const a1 = own(ann1, await ann1.call('next_issue', {}));
    await ann1.call('checkpoint', { key: 'BAT-1', claimToken: a1.lease.claimToken, note: 'half way', state: { files: ['a.ts'] } });
    const batch = own(bob, await bob.call('next_batch', { max: 2 }));
    const [b2, b3] = batch.items.map((i: Json) => i.lease.claimToken as string);
    await bob.call('heartbeat', { key: 'BAT-2', claimToken: b2 });
    await bob.call('done', { key: 'BAT-3', claimToken: b3, summary: 'finished' });
    const a1b = own(ann2, await ann2.call('claim_issue', { key: 'BAT-1', claimToken: a1.lease.claimToken }));
    expect(a1b.lease.claimToken).not.toBe(a1.lease.claimToken);
    await ann1.call('heartbeat', { key: 'BAT-1', claimToken: a1.lease.claimToken });
    await eve.call('claim_issue', { key: 'BAT-2', claimToken: b2 });
    await eve.call('heartbeat', { key: 'BAT-2', claimToken: b2 });
    await eve.call('check_claim', { key: 'BAT-2', claimToken: b2 });
    await ann1.call('claim_issue', { key: 'BAT-2' });
    await bob.call('submit_for_review', { key: 'BAT-2', claimToken: b2, summary: 'please look' });
    const e2 = own(eve, await eve.call('next_issue', { role: 'reviewer' }));
    await eve.call('review', { key: 'BAT-2', claimToken: e2.lease.claimToken, verdict: 'approve' });
    own(ann2, await ann2.call('next_issue', { requestId: 'r1' }));
    own(ann1, await ann1.call('next_issue', { requestId: 'r1' }));
    await ann1.call('comment', { key: 'BAT-4', text: 'mine now' });
    expect(owner.size).toBeGreaterThanOrEqual(6);

    // Everyone reads everything, presenting every token there is to check_claim.
    const keys = ['BAT-1', 'BAT-2', 'BAT-3', 'BAT-4', 'BAT-5'];
    for (const s of sessions) {
      await s.call('list_issues', {});
      await s.call('list_claims', {});
      await s.call('activity', { limit: 1000 });
      for (const key of keys) {
        await s.call('get_issue', { key });
        await s.call('activity', { key });
        await s.call('check_claim', { key });
        for (const token of owner.keys()) await s.call('check_claim', { key, claimToken: token });
        const resource = await s.server.client.readResource({ uri: `baton://issue/${key}` });
        s.answers.push(JSON.stringify(resource));
      }
      s.answers.push(JSON.stringify(await s.server.client.listResources()));
    }

    const tokens = [...owner.keys()];
    const leaks: string[] = [];
    for (const s of sessions) {
      for (const answer of s.answers) {
        for (const token of tokens) if (answer.includes(token) && owner.get(token) !== s.name) leaks.push(`${s.name} was shown ${owner.get(token)}'s token: ${answer.slice(0, 200)}`);
      }
      const log = s.server.stderr();
      for (const token of tokens) if (log.includes(token)) leaks.push(`${s.name} logged a token`);
    }
    // The holder does see its own: the search would find a leak if there were one.
    expect(ann2.answers.some((a) => a.includes(a1b.lease.claimToken))).toBe(true);

    // The CLI, for people and scripts.
    const cli = (args: string[]) => {
      const run = spawnSync(process.execPath, [CLI, ...args], { cwd: repo.main, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: repo.dir } });
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      return run.stdout + run.stderr;
    };
    const outputs = [['ls'], ['ls', '--json'], ['ls', '--all', '--json'], ['claims'], ['claims', '--json'], ...keys.flatMap((k) => [['show', k], ['show', k, '--json']]), ['doctor']].map((args) => {
      const run = spawnSync(process.execPath, [CLI, ...args], { cwd: repo.main, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: repo.dir } });
      return { args: args.join(' '), text: run.stdout + run.stderr, status: run.status };
    });
    expect(cli(['claims', '--json'])).toContain('BAT-1');
    for (const { args, text } of outputs) for (const token of tokens) if (text.includes(token)) leaks.push(`baton ${args} printed a token`);

    // The editor's model: tree items with their tooltips, and the documents it opens.
    const source = new BatonSource({ cwd: repo.main, renewer: 'vscode:test', env: { PATH: process.env.PATH } });
    try {
      const state = await source.load();
      expect(state.kind).toBe('ready');
      if (state.kind !== 'ready') return;
      const tree = buildTree(state.snapshot, { now: Date.now(), warningSeconds: 300, renewer: 'vscode:test', isAlive: () => true });
      expect(JSON.stringify(tree)).toContain('BAT-1');
      const baton = await source.baton();
      const documents: string[] = [JSON.stringify(state.snapshot), JSON.stringify(tree)];
      if (baton.ok) {
        for (const key of keys) {
          const detail = await baton.value.getIssue({ key });
          if (detail.ok) documents.push(renderCheckpoint(detail.value));
        }
        const events = await baton.value.activity({ limit: 1000 });
        if (events.ok) documents.push(renderActivity(null, events.value.events));
      }
      for (const doc of documents) for (const token of tokens) if (doc.includes(token)) leaks.push(`the editor shows a token: ${doc.slice(0, 200)}`);
    } finally {
      source.dispose();
    }

    // The database files themselves keep hashes only.
    for (const file of readdirSync(join(repo.main, '.git', 'baton'))) {
      const path = join(repo.main, '.git', 'baton', file);
      if (!statSync(path).isFile()) continue;
      const bytes = readFileSync(path).toString('latin1');
      for (const token of tokens) if (bytes.includes(token)) leaks.push(`${file} holds a token in plain text`);
    }
    expect(leaks).toEqual([]);
  }, 120_000);
});

describe('file permissions', () => {
  it('creates the database folder, files, lock folder, lock files, socket, kept answers and temporary files readable by the owner only, whatever the umask', async () => {
    const before = process.umask(0);
    const repo = makeRepo();
    try {
      // A server started under umask 000 creates the database on first use.
      const server = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'ann' } });
      await server.client.callTool({ name: 'create_issue', arguments: { title: 'private' } });
      await server.client.callTool({ name: 'next_issue', arguments: {} });
      const dir = join(repo.main, '.git', 'baton');
      const modes = (names: string[]) => Object.fromEntries(names.map((n) => [n, (statSync(join(dir, n)).mode & 0o777).toString(8)]));
      expect(modes(['.', 'baton.db', 'baton.db-log', 'baton.db.lock'])).toEqual({ '.': '700', 'baton.db': '600', 'baton.db-log': '600', 'baton.db.lock': '700' });

      // A second server sends its writes to the first, whose socket and kept answers are private too.
      const other = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'bob' } });
      await other.client.callTool({ name: 'create_issue', arguments: { title: 'forwarded' } });
      expect(modes(['baton.db.sock', 'baton.db.answers'])).toEqual({ 'baton.db.sock': '600', 'baton.db.answers': '700' });
      const kept = readdirSync(join(dir, 'baton.db.answers'));
      expect(kept).toHaveLength(1);
      for (const name of kept) expect((statSync(join(dir, 'baton.db.answers', name)).mode & 0o777).toString(8), name).toBe('600');
      await other.close();

      // While this process holds the lock, the server queues with a ticket file; both the
      // owner file and the ticket are private.
      const store = await openFileStore({ path: join(dir, 'baton.db') });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const holding = store.write(async () => {
        await gate;
        return ok(undefined);
      });
      await sleep(100);
      const waiting = server.client.callTool({ name: 'create_issue', arguments: { title: 'queued' } });
      const lockDir = join(dir, 'baton.db.lock');
      const deadline = Date.now() + 5_000;
      while (!readdirSync(lockDir).some((n) => n.startsWith('t-')) && Date.now() < deadline) await sleep(10);
      const lockFiles = readdirSync(lockDir);
      expect(lockFiles.some((n) => n.startsWith('t-'))).toBe(true);
      for (const name of lockFiles) expect((statSync(join(lockDir, name)).mode & 0o777).toString(8), name).toBe('600');
      release();
      await holding;
      await waiting;
      await store.close();
      await server.close();

      // A writer killed between writing a new snapshot and renaming it leaves its temporary file: private too.
      const child = startChild(await bundleFixture('../../../adversarial/fixtures/fault-child.ts', repo.dir), ['writer', join(dir, 'baton.db'), 'w', 'snapshot-rename', '1'], {
        BATON_TEST_COMPACT: '1',
      });
      await child.exited;
      const temps = readdirSync(dir).filter((n) => n.includes('.tmp-'));
      expect(temps.length).toBeGreaterThan(0);
      for (const name of temps) expect((statSync(join(dir, name)).mode & 0o777).toString(8), name).toBe('600');
    } finally {
      process.umask(before);
      repo.remove();
    }
  }, 60_000);
});

describe('paths in tool input', () => {
  it('never make the server write outside the repository', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-paths-')));
    const outside = join(root, 'outside');
    const home = join(root, 'home');
    mkdirSync(outside);
    mkdirSync(home);
    const repoDir = join(root, 'repo');
    execFileSync('git', ['init', '-q', '-b', 'main', repoDir]);
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'first'], { cwd: repoDir });
    const listing = () =>
      execFileSync('find', [root, '-path', join(repoDir, '.git'), '-prune', '-o', '-print'], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map((p) => relative(root, p))
        .sort();
    const server = await spawnServer({ cwd: repoDir, env: { BATON_AGENT: 'mallory', HOME: home } });
    try {
      const before = listing();
      const paths = [
        '../outside/pwned',
        '../../outside/pwned',
        join(outside, 'pwned'),
        `file://${join(outside, 'pwned')}`,
        '~/pwned',
        '..\\..\\outside\\pwned',
        '/proc/self/cwd/../outside/pwned',
        `${join(outside, 'pwned')}\0.txt`,
        `baton.db/../../../outside/pwned`,
      ];
      const { tools } = await server.client.listTools();
      const created = await server.client.callTool({ name: 'create_issue', arguments: { title: 'target' } });
      const key = (created.structuredContent as Json).issue.key as string;
      const claimed = await server.client.callTool({ name: 'claim_issue', arguments: { key } });
      const claimToken = (claimed.structuredContent as Json).lease.claimToken as string;
      let calls = 0;
      for (const tool of tools) {
        const properties = Object.keys(tool.inputSchema.properties ?? {});
        for (const field of properties) {
          for (const path of paths) {
            const args: Json = { key, claimToken, note: 'n', summary: 's', text: 't', title: 't', type: 'relatesTo', other: key, verdict: 'changes', max: 1 };
            for (const name of Object.keys(args)) if (!properties.includes(name)) delete args[name];
            args[field] = ['labels', 'blockedBy'].includes(field) ? [path] : field === 'state' ? { file: path, dir: outside } : path;
            await server.client.callTool({ name: tool.name, arguments: args });
            calls++;
          }
        }
      }
      for (const path of paths) await server.client.readResource({ uri: `baton://issue/${encodeURIComponent(path)}` }).catch(() => undefined);
      expect(calls).toBeGreaterThan(300);
      expect(readdirSync(outside)).toEqual([]);
      expect(readdirSync(home)).toEqual([]);
      expect(listing()).toEqual(before);
      // Inside the repository, Baton wrote its own files and nothing else.
      for (const name of readdirSync(join(repoDir, '.git', 'baton'))) expect(name).toMatch(/^baton\.db(-log|\.lock|\.sock|\.answers|\.tmp-.+)?$/);
      expect(readdirSync(tmpdir()).filter((n) => n.includes('pwned'))).toEqual([]);
    } finally {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
