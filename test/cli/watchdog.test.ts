import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { CLI, spawnServer, type SpawnedServer, waitFor } from '../helpers/spawnServer.js';

describe('baton watchdog', () => {
  let repo: ScratchRepo;
  let servers: SpawnedServer[];
  let watchdog: ChildProcessWithoutNullStreams | undefined;

  beforeEach(async () => {
    repo = makeRepo({ worktrees: ['wt-alice', 'wt-bob'] });
    servers = [];
    await runCli(['import', '-'], { cwd: repo.main, input: '{"title":"Alpha"}\n{"title":"Beta"}\n{"title":"Gamma"}\n' });
  });
  afterEach(async () => {
    watchdog?.kill('SIGKILL');
    for (const server of servers) await server.close().catch(() => {});
    repo.remove();
  });

  /** Starts a server per agent and has each claim one issue; answers the key each holds. */
  async function claimOneEach(agents: [string, string, Record<string, string>][]): Promise<Record<string, string>> {
    const held: Record<string, string> = {};
    for (const [agent, cwd, env] of agents) {
      const server = await spawnServer({ cwd, env: { ...env, BATON_AGENT: agent } });
      servers.push(server);
      held[agent] = (await callTool(server.client, 'next_issue')).issue.key;
    }
    return held;
  }

  it("keeps a live session's lease past its length and lets a killed session's lease expire", async () => {
    const LEASE = { BATON_LEASE_SECONDS: '3', BATON_SWEEP_MS: '200' };
    // Started first, so that the short leases are renewed from the moment they exist.
    watchdog = spawn(process.execPath, [CLI, 'watchdog'], { cwd: repo.main, env: { ...getDefaultEnvironment(), ...LEASE }, stdio: ['pipe', 'pipe', 'pipe'] });
    let log = '';
    watchdog.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => watchdog!.on('exit', (code) => resolve(code)));
    await waitFor(() => log.includes('watching'), 10_000, 'the watchdog to start');

    const held = await claimOneEach([
      ['alice', repo.worktrees[0], LEASE],
      ['bob', repo.worktrees[1], LEASE],
      // An editor window renews its own agents' leases: the watchdog must leave this one alone.
      ['carol', repo.main, { ...LEASE, BATON_RENEWER: 'vscode:window-1' }],
    ]);
    await waitFor(() => log.includes(`renewed ${held.bob}`) && log.includes(`renewed ${held.alice}`), 10_000, 'the watchdog to renew alice and bob');

    const bob = servers[1];
    process.kill(bob.pid, 'SIGKILL');
    await bob.exited();
    const claimsNow = async () => (await runCli(['claims', '--json'], { cwd: repo.main, env: LEASE })).json().claims as { key: string; claimedAt: string; lastRenewedAt: string }[];
    const aliceClaimedAt = Date.parse((await claimsNow()).find((c) => c.key === held.alice)!.claimedAt);

    // Two and a half lease lengths: without renewal every lease would be gone by now.
    await new Promise((resolve) => setTimeout(resolve, 7_500));
    const after = await claimsNow();
    const alice = after.find((c) => c.key === held.alice);
    expect(alice).toBeDefined();
    expect(Date.parse(alice!.lastRenewedAt) - aliceClaimedAt).toBeGreaterThan(3_000);
    expect(after.find((c) => c.key === held.bob)).toBeUndefined();
    expect(after.find((c) => c.key === held.carol)).toBeUndefined();

    expect(log).toMatch(new RegExp(`gave up on ${held.bob} \\(bob\\): its server process ${bob.pid} is gone`));
    expect(log.split('\n').filter((l) => l.includes(`gave up on ${held.bob}`))).toHaveLength(1);
    expect(log).not.toContain(`renewed ${held.carol}`);

    watchdog.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(log).toContain('stopped');
  });

  it("with --once --agent --json renews only that agent's leases and prints the pass as one JSON document on stdout", async () => {
    const held = await claimOneEach([
      ['alice', repo.worktrees[0], {}],
      ['bob', repo.worktrees[1], {}],
    ]);
    const run = await runCli(['watchdog', '--once', '--agent', 'alice', '--json'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(run.json()).toEqual({
      renewed: [{ key: held.alice, agent: 'alice', session: expect.any(String), expiresAt: expect.any(String) }],
      gaveUp: [],
      idle: [],
    });
    // People still get the log, on stderr.
    expect(run.stderr).toContain(`renewed ${held.alice} (alice)`);
    expect(run.stderr).not.toContain(held.bob);
  });

  it('with --json prints each event of a long run as a JSON line on stdout, and sentences on stderr', async () => {
    const LEASE = { BATON_LEASE_SECONDS: '3' };
    const held = await claimOneEach([['alice', repo.worktrees[0], LEASE]]);
    watchdog = spawn(process.execPath, [CLI, 'watchdog', '--json'], { cwd: repo.main, env: { ...getDefaultEnvironment(), ...LEASE }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let log = '';
    watchdog.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    watchdog.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => watchdog!.on('exit', (code) => resolve(code)));
    await waitFor(() => out.includes('"renewed"'), 10_000, 'a renewal on stdout');
    watchdog.kill('SIGINT');
    expect(await exited).toBe(0);

    const events = out.trim().split('\n').map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ event: 'started', agent: null, leaseSeconds: 3 });
    expect(events).toContainEqual({ at: expect.any(String), event: 'renewed', key: held.alice, agent: 'alice', session: expect.any(String), expiresAt: expect.any(String) });
    expect(events[events.length - 1]).toMatchObject({ event: 'stopped' });
    expect(log).toContain(`renewed ${held.alice} (alice)`);
  });
});
