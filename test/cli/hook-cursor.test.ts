import { readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawnServer.js';
import { testDir } from '../helpers/test-dir.js';
import { sleep } from '../helpers/wait.js';

/** A lease of 6 s: a tool event renews one last renewed over a second ago. */
const SETTINGS = { BATON_LEASE_SECONDS: '6', BATON_CHECKPOINT_NUDGE_SECONDS: '600' };
type Claim = { key: string; agent: string; lastRenewedAt: string; lastActiveAt: string | null };

describe('baton hook cursor', () => {
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
  const of = (list: Claim[], key: string) => list.find((c) => c.key === key)!;
  /** An event as Cursor sends it: the common fields (no `cwd`), then the event's own. */
  const event = (name: string, more: Record<string, unknown> = {}, roots = [repo.main]) => ({
    conversation_id: 'c0ffee-1',
    generation_id: 'gen-1',
    model: 'claude-4-sonnet',
    hook_event_name: name,
    cursor_version: '1.7.0',
    workspace_roots: roots,
    user_email: null,
    ...more,
  });
  const toolEvent = (name: string) =>
    ({
      afterMCPExecution: () => event(name, { tool_name: 'get_issue', tool_input: '{"key":"BAT-1"}', result_json: '{}', duration: 12 }),
      afterShellExecution: () => event(name, { command: 'npm test', output: 'ok', duration: 800 }),
      afterFileEdit: () => event(name, { file_path: `${repo.main}/src/a.ts`, edits: [{ old_string: 'a', new_string: 'b' }] }),
    })[name]!();
  const prompt = () => event('beforeSubmitPrompt', { prompt: 'go on', attachments: [] });
  const stop = (loopCount: number) => event('stop', { status: 'completed', loop_count: loopCount });
  const cursorHook = (input: Record<string, unknown>, cwd?: string) => alice!.hook(input, { client: 'cursor', cwd });

  /** Alice: a Cursor process with its server and hooks as children. Bob: another agent's server in the same worktree, not under Alice's process. */
  async function twoAgents(): Promise<{ aliceKey: string; aliceToken: string; bobKey: string }> {
    alice = await startFakeAgent(repo.main, { ...SETTINGS, BATON_AGENT: 'alice' });
    bob = await spawnServer({ cwd: repo.main, env: { ...SETTINGS, BATON_AGENT: 'bob' } });
    const claimed = await alice.call('next_issue');
    const bobKey = ((await bob.client.callTool({ name: 'next_issue', arguments: {} })).structuredContent as any).issue.key;
    return { aliceKey: claimed.issue.key, aliceToken: claimed.lease.claimToken, bobKey };
  }

  it.each(['afterMCPExecution', 'afterShellExecution', 'afterFileEdit'])("renews the agent's own leases on %s, answers {}, and never touches another agent's", async (name) => {
    const { aliceKey, bobKey } = await twoAgents();
    const before = await claims();
    // Past a sixth of the lease, so that the renewal is due.
    await sleep(1_200);
    expect(await cursorHook(toolEvent(name))).toEqual({ status: 0, stdout: '{}\n' });
    const after = await claims();
    expect(Date.parse(of(after, aliceKey).lastRenewedAt)).toBeGreaterThan(Date.parse(of(before, aliceKey).lastRenewedAt));
    expect(Date.parse(of(after, aliceKey).lastActiveAt!)).toBeGreaterThan(Date.parse(of(before, aliceKey).lastActiveAt!));
    expect(of(after, bobKey).lastRenewedAt).toBe(of(before, bobKey).lastRenewedAt);
    expect(of(after, bobKey).lastActiveAt).toBe(of(before, bobKey).lastActiveAt);
  });

  it('finds the agent by its workspace root when the hook runs from another directory (a user-level hook)', async () => {
    const { aliceKey } = await twoAgents();
    const before = await claims();
    await sleep(1_200);
    expect(await cursorHook(toolEvent('afterMCPExecution'), testDir('baton-cursor-home-'))).toEqual({ status: 0, stdout: '{}\n' });
    expect(Date.parse(of(await claims(), aliceKey).lastRenewedAt)).toBeGreaterThan(Date.parse(of(before, aliceKey).lastRenewedAt));
  });

  it('lets every prompt through, and tells a lost lease once, at the next stop, and not of another agent’s loss', async () => {
    const { aliceKey, bobKey } = await twoAgents();
    for (const key of [aliceKey, bobKey]) expect((await runCli(['release', key], { cwd: repo.main, env: { BATON_AGENT: 'dana' } })).status).toBe(0);

    // Neither a prompt's answer nor a tool event's reaches the agent: the loss waits for the stop.
    expect(await cursorHook(prompt())).toEqual({ status: 0, stdout: '{"continue":true}\n' });
    expect(await cursorHook(toolEvent('afterShellExecution'))).toEqual({ status: 0, stdout: '{}\n' });
    const told = await cursorHook(stop(0));
    expect(told.status).toBe(0);
    const output = JSON.parse(told.stdout);
    expect(output).toEqual({ followup_message: expect.stringContaining(`you no longer hold ${aliceKey}: it was released by dana`) });
    expect(output.followup_message).not.toContain(bobKey);
    expect(await cursorHook(stop(1))).toEqual({ status: 0, stdout: '{}\n' });
    expect(await cursorHook(stop(0))).toEqual({ status: 0, stdout: '{}\n' });
    // Told by the hook, the session's server does not tell it again.
    expect((await alice!.call('list_claims')).notices).toBeUndefined();
    // Bob's loss is still Bob's to hear.
    expect(((await bob!.client.callTool({ name: 'list_claims', arguments: {} })).structuredContent as any).notices).toEqual([
      expect.objectContaining({ key: bobKey, reason: 'released', by: 'dana' }),
    ]);
  });

  it('asks once at a stop for a checkpoint while a lease has none recent, never when loop_count > 0, and not after a checkpoint', async () => {
    const { aliceKey, aliceToken, bobKey } = await twoAgents();
    const asked = await cursorHook(stop(0));
    expect(asked.status).toBe(0);
    const output = JSON.parse(asked.stdout);
    expect(output).toEqual({ followup_message: expect.stringContaining(`you still hold ${aliceKey}`) });
    expect(output.followup_message).toContain('call checkpoint');
    expect(output.followup_message).not.toContain(bobKey);
    expect(await cursorHook(stop(1))).toEqual({ status: 0, stdout: '{}\n' });

    await alice!.call('checkpoint', { key: aliceKey, claimToken: aliceToken, note: 'parser written, tests next' });
    expect(await cursorHook(stop(0))).toEqual({ status: 0, stdout: '{}\n' });
  });

  it('answers with empty JSON and exits 0 where there is no database, and on input it cannot read, creating nothing', async () => {
    const empty = testDir('baton-hook-');
    const run = (input: string, cwd = empty) => runCli(['hook', 'cursor'], { cwd, input });
    expect(await run(JSON.stringify(event('afterMCPExecution', {}, [empty])))).toMatchObject({ status: 0, stdout: '{}\n' });
    expect(await run(JSON.stringify(event('stop', { status: 'completed', loop_count: 0 }, [empty])))).toMatchObject({ status: 0, stdout: '{}\n' });
    expect(await run(JSON.stringify(event('beforeSubmitPrompt', { prompt: 'hi' }, [empty])))).toMatchObject({ status: 0, stdout: '{"continue":true}\n' });
    expect(await run('{ not json', repo.main)).toMatchObject({ status: 0, stdout: '{}\n' });
    expect(readdirSync(empty)).toEqual([]);
  });
});
