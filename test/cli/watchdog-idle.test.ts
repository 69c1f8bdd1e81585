import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { CLI, spawnServer, type SpawnedServer, waitFor } from '../helpers/spawnServer.js';
import { sleep } from '../helpers/wait.js';

/** Short lease and idle limit: an idle agent's lease is gone within idle + lease = 7 s. */
const SETTINGS = { BATON_LEASE_SECONDS: '3', BATON_IDLE_SECONDS: '4', BATON_SWEEP_MS: '200' };

describe('baton watchdog and the idle limit', () => {
  let repo: ScratchRepo;
  let servers: SpawnedServer[];
  let watchdog: ChildProcessWithoutNullStreams | undefined;
  let reading: NodeJS.Timeout | undefined;

  beforeEach(async () => {
    repo = makeRepo({ worktrees: ['wt-alice', 'wt-bob', 'wt-carol'] });
    servers = [];
    await runCli(['import', '-'], { cwd: repo.main, input: '{"title":"Alpha"}\n{"title":"Beta"}\n' });
  });
  afterEach(async () => {
    clearInterval(reading);
    watchdog?.kill('SIGKILL');
    for (const server of servers) await server.close().catch(() => {});
    repo.remove();
  });

  async function agent(name: string, cwd: string): Promise<SpawnedServer> {
    const server = await spawnServer({ cwd, env: { ...SETTINGS, BATON_AGENT: name } });
    servers.push(server);
    return server;
  }

  it("keeps an active agent's lease past its length and lets an idle one's lapse after idleSeconds plus the lease, so it can be claimed again", async () => {
    watchdog = spawn(process.execPath, [CLI, 'watchdog'], { cwd: repo.main, env: { ...getDefaultEnvironment(), ...SETTINGS }, stdio: ['pipe', 'pipe', 'pipe'] });
    let log = '';
    watchdog.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    await waitFor(() => log.includes('watching'), 10_000, 'the watchdog to start');

    const alice = await agent('alice', repo.worktrees[0]);
    const bob = await agent('bob', repo.worktrees[1]);
    const aliceKey = (await callTool(alice.client, 'next_issue')).issue.key as string;
    const bobKey = (await callTool(bob.client, 'next_issue')).issue.key as string;
    const claimedAt = Date.now();
    // Alice reads every second; Bob's server stays alive and calls nothing.
    reading = setInterval(() => void callTool(alice.client, 'list_claims').catch(() => {}), 1_000);

    const claims = async () => (await runCli(['claims', '--json'], { cwd: repo.main, env: SETTINGS })).json().claims as { key: string; lastActiveAt: string | null }[];
    await waitFor(async () => !(await claims()).some((c) => c.key === bobKey), 20_000, "bob's lease to lapse");
    const lapsedAfter = Date.now() - claimedAt;
    const now = await claims();
    // Positive control in the same window: alice's lease, as short as bob's, lives on.
    const aliceClaim = now.find((c) => c.key === aliceKey);
    expect(aliceClaim).toBeDefined();
    expect(Date.now() - Date.parse(aliceClaim!.lastActiveAt!)).toBeLessThan(4_000);
    // Not before the idle limit plus the lease length has run (less the renewal period's slack).
    expect(lapsedAfter).toBeGreaterThan(4_000 + 3_000 - 1_500);
    expect(log).toMatch(new RegExp(`stopped renewing ${bobKey}: its agent has been idle \\d+ s \\(bob\\)`));
    expect(log).not.toMatch(new RegExp(`stopped renewing ${aliceKey}`));

    const carol = await agent('carol', repo.worktrees[2]);
    expect((await callTool(carol.client, 'claim_issue', { key: bobKey })).lease.key).toBe(bobKey);
    // The stop is recorded once, for `baton why` and anyone reading the issue's activity.
    const events = (await callTool(carol.client, 'activity', { key: bobKey })).events as { type: string; detail: string }[];
    expect(events.filter((e) => e.type === 'renewal_stopped')).toEqual([expect.objectContaining({ detail: expect.stringMatching(/^renewal stopped: idle/) })]);
    // Past idle + lease since the claim (bob's may lapse up to a renewal period sooner), alice still holds hers.
    await sleep(Math.max(0, 7_000 - (Date.now() - claimedAt)));
    expect((await claims()).some((c) => c.key === aliceKey)).toBe(true);
  }, 60_000);
});
