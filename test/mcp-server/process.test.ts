import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Opened, openBaton } from '../../shared/open.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { initializeMessages, type RawServer, spawnRawServer, spawnServer, waitFor } from '../helpers/spawnServer.js';
import { ok } from '../helpers/tools.js';

let repo: ScratchRepo;

beforeAll(() => {
  repo = makeRepo({ worktrees: ['wt-proc'] });
});
afterAll(() => repo.remove());

/** Opens a raw server's session the way a client does: initialize, await the answer, then initialized. */
async function initialize(server: RawServer, clientName?: string) {
  const [init, initialized] = initializeMessages(clientName);
  server.send(init);
  await waitFor(() => server.messages.length > 0, 10_000, 'the initialize answer');
  server.send(initialized);
}

function createCalls(count: number, firstId: number, prefix: string) {
  return Array.from({ length: count }, (_, i) => ({
    jsonrpc: '2.0',
    id: firstId + i,
    method: 'tools/call',
    params: { name: 'create_issue', arguments: { title: `${prefix} ${i}`, labels: [prefix] } },
  }));
}

/** Runs `fn` on the repository's database, opened as a short command opens it, then closes it. */
async function reading<T>(fn: (opened: Opened) => Promise<T>): Promise<T> {
  const opened = await openBaton({ cwd: repo.main, env: {} });
  if (!opened.ok) throw new Error(opened.error.message);
  try {
    return await fn(opened.value);
  } finally {
    await opened.value.store.close();
  }
}

function labelled(label: string): Promise<string[]> {
  return reading(async ({ baton }) => {
    const listed = await baton.listIssues({ label, limit: 1000 });
    if (!listed.ok) throw new Error(listed.error.message);
    return listed.value.issues.map((i) => i.title);
  });
}

describe('settings', () => {
  it.each([
    ['BATON_LEASE_SECONDS', '0'],
    ['BATON_LEASE_SECONDS', '86401'],
    ['BATON_LEASE_SECONDS', 'soon'],
    ['BATON_SWEEP_MS', '5'],
    ['BATON_SWEEP_MS', '600000'],
    ['BATON_PREFIX', 'B4T'],
  ])('exits with status 2 and one stderr line naming %s=%s', async (setting, value) => {
    const server = spawnRawServer({ cwd: repo.main, env: { [setting]: value } });
    const { code } = await server.exit;
    expect(code).toBe(2);
    const lines = server.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(setting);
    expect(server.messages).toEqual([]);
  });

  it('exits with status 2 naming the file and field of a bad .baton.json', async () => {
    const bad = makeRepo({ batonJson: { leaseSeconds: 0 } });
    try {
      const server = spawnRawServer({ cwd: bad.main });
      expect((await server.exit).code).toBe(2);
      expect(server.stderr()).toContain('.baton.json');
      expect(server.stderr()).toContain('leaseSeconds');
    } finally {
      bad.remove();
    }
  });
});

describe('shutdown', () => {
  it('answers every call already sent, then exits 0, when stdin closes', async () => {
    const server = spawnRawServer({ cwd: repo.main, env: { BATON_AGENT: 'closer' } });
    await initialize(server);
    for (const message of createCalls(20, 1, 'closing')) server.send(message);
    server.child.stdin.end();
    expect(await server.exit).toEqual({ code: 0, signal: null });
    const answered = server.messages.filter((m) => (m as { id?: number }).id! >= 1);
    expect(answered).toHaveLength(20);
    expect((await labelled('closing')).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `closing ${i}`).sort());
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s with every answered call kept and the session ended', async (signal) => {
    const server = spawnRawServer({ cwd: repo.main, env: { BATON_AGENT: `signalled-${signal}` } });
    await initialize(server);
    for (const message of createCalls(10, 1, signal)) server.send(message);
    await waitFor(() => server.messages.length >= 4, 10_000, 'some answers');
    server.child.kill(signal);
    expect(await server.exit).toEqual({ code: 0, signal: null });
    const answered = server.messages.filter((m) => (m as { id?: number }).id! >= 1) as Array<{ result: { structuredContent: { issue: { title: string } } } }>;
    const stored = await labelled(signal);
    for (const answer of answered) expect(stored).toContain(answer.result.structuredContent.issue.title);

    // Ended sessions are history, which listSessions leaves out: read the table itself.
    const mine = await reading(({ store }) =>
      store.read((tx) =>
        tx.get<{ pid: number; worktree: string; ended_at: number | null }>('SELECT pid, worktree, ended_at FROM sessions WHERE agent = ?', [`signalled-${signal}`]),
      ),
    );
    expect(mine).toMatchObject({ pid: server.child.pid, worktree: repo.main });
    expect(mine?.ended_at).not.toBeNull();
  });

  it('exits at once when stdin closes right after the handshake, opening nothing afterwards', async () => {
    const server = spawnRawServer({ cwd: repo.main, env: { BATON_AGENT: 'brief' } });
    await initialize(server);
    server.child.stdin.end();
    // Exited, it can open nothing later: the store it would have opened 200 ms after the
    // handshake holds no running session of it.
    expect(await server.exit).toEqual({ code: 0, signal: null });
    const sessions = await reading(({ baton }) => baton.listSessions());
    if (!sessions.ok) throw new Error(sessions.error.message);
    expect(sessions.value.sessions.filter((s) => s.agent === 'brief' && s.endedAt === null)).toEqual([]);
  });

  it('keeps its leases alive past a clean exit', async () => {
    const first = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'keeper' } });
    await ok(first.client, 'create_issue', { title: 'kept', labels: ['kept'] });
    const claim = await ok(first.client, 'next_issue', { labels: ['kept'] });
    await first.close();
    await first.exited();
    const other = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'watcher' } });
    const claims = (await ok(other.client, 'list_claims')).claims;
    expect(claims).toContainEqual(expect.objectContaining({ key: claim.issue.key, agent: 'keeper' }));
    await other.close();
  });
});

describe('sessions', () => {
  it('clears, once the next server starts, the session of a server killed outright, unless it holds a lease', async () => {
    const sessionsOf = async (agents: string[]) => {
      const rows = await reading(({ store }) => store.read((tx) => tx.all<{ agent: string }>('SELECT agent FROM sessions ORDER BY agent')));
      return rows.map((r) => r.agent).filter((agent) => agents.includes(agent));
    };
    const killed = async (agent: string, claim: boolean) => {
      const server = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: agent } });
      if (claim) {
        await ok(server.client, 'create_issue', { title: agent, labels: [agent] });
        await ok(server.client, 'next_issue', { labels: [agent] });
      } else await ok(server.client, 'list_claims');
      process.kill(server.pid, 'SIGKILL');
      await server.exited();
    };
    await killed('killed-holding', true);
    await killed('killed-idle', false);
    const agents = ['killed-holding', 'killed-idle', 'next'];
    expect(await sessionsOf(agents)).toEqual(['killed-holding', 'killed-idle']);

    const next = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'next' } });
    await ok(next.client, 'list_claims');
    expect(await sessionsOf(agents)).toEqual(['killed-holding', 'next']);
    await next.close();
  });
});

describe('identity and stderr', () => {
  it('names the agent after the client when BATON_AGENT is unset, records BATON_RENEWER and warns of nothing', async () => {
    const server = await spawnServer({
      cwd: repo.worktrees[0],
      clientName: 'claude-code',
      env: { BATON_RENEWER: 'watchdog:ci' },
    });
    await ok(server.client, 'create_issue', { title: 'renewed', labels: ['renewed'] });
    const claim = await ok(server.client, 'next_issue', { labels: ['renewed'] });
    expect(claim.lease).toMatchObject({ agent: 'claude-code', renewer: 'watchdog:ci', worktree: repo.worktrees[0] });
    await ok(server.client, 'heartbeat', { key: claim.issue.key, claimToken: claim.lease.claimToken });
    expect(server.stderr()).toBe('');
    await server.close();
  });

  it('prefers BATON_AGENT over the client name', async () => {
    const server = await spawnServer({ cwd: repo.main, clientName: 'cursor', env: { BATON_AGENT: 'named' } });
    await ok(server.client, 'create_issue', { title: 'named', labels: ['named'] });
    expect((await ok(server.client, 'next_issue', { labels: ['named'] })).lease.agent).toBe('named');
    await server.close();
  });

  it('warns once on stderr, saying how often to heartbeat, when no renewer tracks a lease it touches', async () => {
    const server = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'lonely', BATON_LEASE_SECONDS: '900' } });
    await ok(server.client, 'create_issue', { title: 'lonely', labels: ['lonely'] });
    expect(server.stderr()).toBe('');
    const claim = await ok(server.client, 'next_issue', { labels: ['lonely'] });
    await ok(server.client, 'heartbeat', { key: claim.issue.key, claimToken: claim.lease.claimToken });
    await ok(server.client, 'checkpoint', { key: claim.issue.key, claimToken: claim.lease.claimToken, note: 'n' });
    const lines = server.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(claim.issue.key);
    expect(lines[0]).toContain('heartbeat');
    expect(lines[0]).toContain('every 5 minutes');
    await server.close();
  });
});

describe('sweep', () => {
  it('clears expired leases while any server runs, with no call made', async () => {
    const dir = join(repo.dir, 'sweep.db');
    const holder = await spawnServer({ cwd: repo.main, env: { BATON_DB: dir, BATON_AGENT: 'holder', BATON_LEASE_SECONDS: '1' } });
    await ok(holder.client, 'create_issue', { title: 'expiring' });
    await ok(holder.client, 'next_issue');
    await holder.close();
    const idle = await spawnServer({ cwd: repo.main, env: { BATON_DB: dir, BATON_AGENT: 'sweeper', BATON_SWEEP_MS: '200' } });
    await waitFor(
      async () => {
        const opened = await openBaton({ cwd: repo.main, env: { BATON_DB: dir } });
        if (!opened.ok) return false;
        const events = await opened.value.baton.activity({ key: 'BAT-1' });
        await opened.value.store.close();
        return events.ok && events.value.events.some((e) => e.type === 'reclaimed' && e.detail.includes('sweeper'));
      },
      10_000,
      'the idle server to sweep',
    );
    await idle.close();
  });
});

describe('stdout', () => {
  it('carries nothing but protocol messages', async () => {
    const server = spawnRawServer({ cwd: repo.main, env: { BATON_AGENT: 'clean' } });
    await initialize(server);
    for (const message of createCalls(3, 1, 'clean')) server.send(message);
    server.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'next_issue', arguments: { labels: ['clean'] } } });
    server.child.stdin.end();
    await server.exit;
    // spawnRawServer parses every stdout line as JSON: anything else would have thrown.
    expect(server.messages.every((m) => (m as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
    expect(server.messages).toHaveLength(5);
  });
});

describe('unreadable input', () => {
  it('logs that a line could not be read without quoting it, and keeps serving', async () => {
    const server = spawnRawServer({ cwd: repo.main, env: { BATON_AGENT: 'garbled' } });
    await initialize(server);
    server.child.stdin.write('bt_SECRETSECRETSECRETSECRET is not json\n');
    server.child.stdin.write('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"claimToken":"bt_ANOTHERSECRET"}} oops\n');
    server.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'list_claims', arguments: {} } });
    await waitFor(() => server.messages.some((m) => (m as { id?: number }).id === 8), 10_000, 'the answer after the bad lines');
    server.child.stdin.end();
    expect((await server.exit).code).toBe(0);
    expect(server.stderr()).toContain('baton: transport');
    expect(server.stderr()).not.toMatch(/SECRET/);
  });
});
