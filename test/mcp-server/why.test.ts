import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer, waitFor } from '../helpers/spawnServer.js';
import { ok, refused } from '../helpers/tools.js';

// Real server processes of two agents in two worktrees, with 2-second leases and no sweep
// in the window, so that the second claim is what clears the first, expired lease.
describe('baton why', () => {
  let repo: ScratchRepo;
  let alice: SpawnedServer;
  let bob: SpawnedServer;
  const env = (agent: string) => ({ BATON_AGENT: agent, BATON_LEASE_SECONDS: '2', BATON_SWEEP_MS: '60000' });

  beforeAll(async () => {
    repo = makeRepo({ worktrees: ['wt-bob'] });
    alice = await spawnServer({ cwd: repo.main, env: env('alice') });
    bob = await spawnServer({ cwd: repo.worktrees[0], env: env('bob') });
  });
  afterAll(async () => {
    await Promise.all([alice?.close(), bob?.close()]);
    repo.remove();
  });

  it('tells the story of an issue claimed, checkpointed, left to expire, taken over, written late by the superseded agent and finished, in order', async () => {
    await ok(alice.client, 'create_issue', { title: 'Write the parser' });
    const first = await ok(alice.client, 'claim_issue', { key: 'BAT-1' });
    const token = first.lease.claimToken;
    await ok(alice.client, 'heartbeat', { key: 'BAT-1', claimToken: token });
    await ok(alice.client, 'heartbeat', { key: 'BAT-1', claimToken: token });
    await ok(alice.client, 'checkpoint', { key: 'BAT-1', claimToken: token, note: 'grammar drafted' });
    await waitFor(async () => !(await ok(bob.client, 'check_claim', { key: 'BAT-1' })).held, 10_000, "alice's lease to expire");

    const second = await ok(bob.client, 'claim_issue', { key: 'BAT-1' });
    expect(second.lease.fence).toBe(2);
    const late = await refused(alice.client, 'checkpoint', { key: 'BAT-1', claimToken: token, note: 'still going' }, 'CLAIM_LOST');
    expect(late.reason).toBe('reclaimed');
    await ok(bob.client, 'done', { key: 'BAT-1', claimToken: second.lease.claimToken, summary: 'parser merged' });

    const run = await runCli(['why', 'BAT-1', '--json'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain(token);
    const story = run.json();
    expect(story).toMatchObject({ key: 'BAT-1', title: 'Write the parser', status: 'done' });
    const lines = story.lines as { at: string; kind: string; agent: string; worktree: string | null; text: string }[];
    expect(lines.map((l) => `${l.kind} ${l.agent}`)).toEqual([
      'created alice',
      'claimed alice',
      'renewed alice',
      'checkpoint alice',
      'reclaimed alice',
      'claimed bob',
      'refused alice',
      'commented bob',
      'done bob',
    ]);
    const line = (kind: string, agent: string) => lines.find((l) => l.kind === kind && l.agent === agent)!;
    expect(line('claimed', 'alice').worktree).toBe(repo.main);
    expect(line('claimed', 'bob').worktree).toBe(repo.worktrees[0]);
    expect(line('renewed', 'alice').text).toMatch(/^renewed 3× by alice \(heartbeats and checkpoints\) between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d$/);
    expect(line('checkpoint', 'alice').text).toBe('checkpoint: grammar drafted');
    const expiry = line('reclaimed', 'alice').text;
    expect(expiry).toContain('(fence 1) expired at');
    expect(expiry).toContain('cleared by bob');
    expect(expiry).toMatch(/no renewal since \S+ \(renewed 3× before\)/);
    expect(expiry).toContain('it had no renewer');
    expect(line('refused', 'alice').text).toMatch(/^late checkpoint with fence 1 refused \(reclaimed\) from .*; fence 2 is held by bob$/);
    expect(line('done', 'bob').text).toBe('done: parser merged');
    expect(lines.map((l) => l.at)).toEqual([...lines.map((l) => l.at)].sort());

    const text = await runCli(['why', 'BAT-1'], { cwd: repo.main });
    expect(text.stdout.split('\n')[0]).toBe('BAT-1  Write the parser  done');
    expect(text.stdout).toMatch(/refused\s+alice {2}late checkpoint with fence 1/);
    expect(text.stdout).toMatch(/claimed\s+bob \(wt-bob\) {2}worker claim, fence 2/);
  });

  it('refuses an issue that does not exist with NOT_FOUND', async () => {
    const run = await runCli(['why', 'BAT-404', '--json'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.json().error.code).toBe('NOT_FOUND');
  });
});
