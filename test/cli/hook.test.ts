import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawnServer.js';
import { testDir } from '../helpers/test-dir.js';

/** A lease of 6 s: PostToolUse renews one last renewed over a second ago. */
const SETTINGS = { BATON_LEASE_SECONDS: '6', BATON_CHECKPOINT_NUDGE_SECONDS: '600' };
type Claim = { key: string; agent: string; lastRenewedAt: string; lastActiveAt: string | null };

describe('baton hook claude', () => {
  let repo: ScratchRepo;
  let alice: FakeAgent | undefined;
  let bob: SpawnedServer | undefined;

  beforeEach(async () => {
    repo = makeRepo({ worktrees: [] });
    await runCli(['import', '-'], { cwd: repo.main, input: '{"title":"Alpha"}\n{"title":"Beta"}\n{"title":"Gamma"}\n' });
  });
  afterEach(async () => {
    await alice?.close();
    await bob?.close().catch(() => {});
    alice = bob = undefined;
    repo.remove();
  });

  const claims = async () => (await runCli(['claims', '--json'], { cwd: repo.main, env: SETTINGS })).json().claims as Claim[];
  const event = (name: string, more: Record<string, unknown> = {}) => ({
    session_id: 'claude-session-1',
    transcript_path: '/tmp/transcript.jsonl',
    cwd: repo.main,
    permission_mode: 'default',
    hook_event_name: name,
    ...more,
  });
  const postToolUse = () => event('PostToolUse', { tool_name: 'Edit', tool_input: {}, tool_response: {}, tool_use_id: 'toolu_1' });

  /** Alice: an agent process with its server and hooks as children. Bob: another agent's server in the same worktree, not under Alice's process. */
  async function twoAgents(): Promise<{ aliceKey: string; aliceToken: string; bobKey: string }> {
    alice = await startFakeAgent(repo.main, { ...SETTINGS, BATON_AGENT: 'alice' });
    bob = await spawnServer({ cwd: repo.main, env: { ...SETTINGS, BATON_AGENT: 'bob' } });
    const claimed = await alice.call('next_issue');
    const bobKey = ((await bob.client.callTool({ name: 'next_issue', arguments: {} })).structuredContent as any).issue.key;
    return { aliceKey: claimed.issue.key, aliceToken: claimed.lease.claimToken, bobKey };
  }

  it("renews the agent's own leases on PostToolUse and never another agent's", async () => {
    const { aliceKey, bobKey } = await twoAgents();
    const before = await claims();
    await new Promise((r) => setTimeout(r, 1_200));
    const run = await alice!.hook(postToolUse());
    expect(run).toEqual({ status: 0, stdout: '' });
    const after = await claims();
    const of = (list: Claim[], key: string) => list.find((c) => c.key === key)!;
    expect(Date.parse(of(after, aliceKey).lastRenewedAt)).toBeGreaterThan(Date.parse(of(before, aliceKey).lastRenewedAt));
    expect(Date.parse(of(after, aliceKey).lastActiveAt!)).toBeGreaterThan(Date.parse(of(before, aliceKey).lastActiveAt!));
    expect(of(after, bobKey).lastRenewedAt).toBe(of(before, bobKey).lastRenewedAt);
    expect(of(after, bobKey).lastActiveAt).toBe(of(before, bobKey).lastActiveAt);
  });

  it('tells the agent once of a lease it lost, on the next PostToolUse, and not of another agent’s loss', async () => {
    const { aliceKey, bobKey } = await twoAgents();
    for (const key of [aliceKey, bobKey]) expect((await runCli(['release', key], { cwd: repo.main, env: { BATON_AGENT: 'dana' } })).status).toBe(0);

    const first = await alice!.hook(postToolUse());
    expect(first.status).toBe(0);
    const output = JSON.parse(first.stdout);
    expect(output).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: expect.stringContaining(`you no longer hold ${aliceKey}: it was released by dana`) } });
    expect(output.hookSpecificOutput.additionalContext).not.toContain(bobKey);
    expect(await alice!.hook(postToolUse())).toEqual({ status: 0, stdout: '' });
    // Told by the hook, the session's server does not tell it again.
    expect((await alice!.call('list_claims')).notices).toBeUndefined();
    // Bob's loss is still Bob's to hear.
    expect(((await bob!.client.callTool({ name: 'list_claims', arguments: {} })).structuredContent as any).notices).toEqual([
      expect.objectContaining({ key: bobKey, reason: 'released', by: 'dana' }),
    ]);
  });

  it('blocks Stop once while a lease has no recent checkpoint, never when stop_hook_active, and not after a checkpoint', async () => {
    const { aliceKey, aliceToken } = await twoAgents();
    const blocked = await alice!.hook(event('Stop', { stop_hook_active: false }));
    expect(blocked.status).toBe(0);
    expect(JSON.parse(blocked.stdout)).toEqual({ decision: 'block', reason: expect.stringContaining(`you still hold ${aliceKey}`) });
    expect(await alice!.hook(event('Stop', { stop_hook_active: true }))).toEqual({ status: 0, stdout: '' });

    await alice!.call('checkpoint', { key: aliceKey, claimToken: aliceToken, note: 'parser written, tests next' });
    expect(await alice!.hook(event('Stop', { stop_hook_active: false }))).toEqual({ status: 0, stdout: '' });
  });

  it('prints nothing and exits 0 where there is no database, and on input it cannot read', async () => {
    const empty = testDir('baton-hook-');
    expect(await runCli(['hook', 'claude'], { cwd: empty, input: JSON.stringify({ ...postToolUse(), cwd: empty }) })).toMatchObject({ status: 0, stdout: '' });
    expect(await runCli(['hook', 'claude'], { cwd: repo.main, input: '{ not json' })).toMatchObject({ status: 0, stdout: '' });
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(empty)).toEqual([]);
  });
});
