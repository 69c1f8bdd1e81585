import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawnServer.js';

type Answer = { structuredContent?: Record<string, any>; content: { type: string; text: string }[]; isError?: boolean };

describe('lost-lease notices', () => {
  let repo: ScratchRepo;
  let servers: SpawnedServer[];

  beforeEach(async () => {
    repo = makeRepo({ worktrees: ['wt-alice'] });
    servers = [];
    await runCli(['import', '-'], { cwd: repo.main, input: '{"title":"Alpha"}\n{"title":"Beta"}\n' });
  });
  afterEach(async () => {
    for (const server of servers) await server.close().catch(() => {});
    repo.remove();
  });

  async function agent(name: string, cwd: string): Promise<SpawnedServer> {
    const server = await spawnServer({ cwd, env: { BATON_AGENT: name } });
    // The client then checks every answer's structuredContent against the published outputSchema.
    await server.client.listTools();
    servers.push(server);
    return server;
  }
  const call = async (server: SpawnedServer, name: string, args: Record<string, unknown> = {}) => (await server.client.callTool({ name, arguments: args })) as Answer;

  it('tells the session on its next call, whatever the tool, that a person released its lease, and only once', async () => {
    const alice = await agent('alice', repo.worktrees[0]);
    const key = (await call(alice, 'next_issue')).structuredContent!.issue.key as string;
    const released = await runCli(['release', key], { cwd: repo.main, env: { BATON_AGENT: 'dana' } });
    expect(released.status, released.stderr).toBe(0);

    const first = await call(alice, 'list_issues');
    expect(first.structuredContent!.notices).toEqual([{ key, kind: 'lease_lost', reason: 'released', by: 'dana', at: expect.any(String) }]);
    expect(first.content[0].text).toMatch(new RegExp(`^Baton: you no longer hold ${key}: it was released by dana at .*Stop work on ${key} and take new work with next_issue\\.`));
    // The answer itself is whole below the notice.
    expect(first.structuredContent!.issues).toHaveLength(2);

    const second = await call(alice, 'list_claims');
    expect(second.structuredContent!.notices).toBeUndefined();
    expect(second.content[0].text).not.toContain('no longer hold');
  });

  it("tells a session taken over by another session of its agent, on a refusal too, and never tells of a lease it ended itself", async () => {
    const alice = await agent('alice', repo.worktrees[0]);
    const first = (await call(alice, 'next_issue')).structuredContent!;
    const second = (await call(alice, 'next_issue')).structuredContent!;
    expect((await call(alice, 'done', { key: second.issue.key, claimToken: second.lease.claimToken })).isError).toBeFalsy();

    const restarted = await agent('alice', repo.worktrees[0]);
    expect((await call(restarted, 'claim_issue', { key: first.issue.key, claimToken: first.lease.claimToken })).isError).toBeFalsy();

    const refused = await call(alice, 'heartbeat', { key: first.issue.key, claimToken: first.lease.claimToken });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent!.error.code).toBe('CLAIM_LOST');
    expect(refused.structuredContent!.notices).toEqual([{ key: first.issue.key, kind: 'lease_lost', reason: 'superseded', by: 'alice', at: expect.any(String) }]);
    expect((await call(alice, 'list_claims')).structuredContent!.notices).toBeUndefined();
    expect((await call(restarted, 'list_claims')).structuredContent!.notices).toBeUndefined();
  });
});
