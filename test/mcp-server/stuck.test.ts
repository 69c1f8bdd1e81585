import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer, waitFor } from '../helpers/spawnServer.js';
import { call, ok, refused } from '../helpers/tools.js';

// Real server processes with 1-second leases and a 100 ms sweep, stopping after two expiries.
describe('an issue that keeps expiring', () => {
  let repo: ScratchRepo;
  let server: SpawnedServer;
  const env = { BATON_AGENT: 'alice', BATON_LEASE_SECONDS: '1', BATON_SWEEP_MS: '100', BATON_MAX_RECLAIMS: '2' };
  const cli = (...args: string[]) => runCli(args, { cwd: repo.main, env: { BATON_MAX_RECLAIMS: '2' } });

  beforeAll(async () => {
    repo = makeRepo();
    server = await spawnServer({ cwd: repo.main, env });
  });
  afterAll(async () => {
    await server?.close();
    repo.remove();
  });

  const reclaims = async (key: string) => (await ok(server.client, 'activity', { key })).events.filter((e: { type: string }) => e.type === 'reclaimed').length;

  it('becomes stuck after maxReclaims expiries with no checkpoint, is not dispatched, is refused with STUCK, and reopen puts it back', async () => {
    await ok(server.client, 'create_issue', { title: 'Hangs every agent', priority: 0 });
    for (let n = 1; n <= 2; n++) {
      expect((await ok(server.client, 'next_issue')).issue.key).toBe('BAT-1');
      await waitFor(async () => (await reclaims('BAT-1')) === n, 10_000, `expiry ${n} of BAT-1 swept`);
    }
    const { issue } = await ok(server.client, 'get_issue', { key: 'BAT-1' });
    expect(issue.status).toBe('stuck');

    // Dispatch passes it over: a lower-priority issue is handed out instead.
    await ok(server.client, 'create_issue', { title: 'Fine', priority: 4 });
    expect((await ok(server.client, 'next_issue')).issue.key).toBe('BAT-2');
    const stuck = await refused(server.client, 'claim_issue', { key: 'BAT-1' }, 'STUCK');
    expect(stuck).toMatchObject({ reclaims: 2, message: expect.stringContaining('baton reopen BAT-1') });

    const listed = await ok(server.client, 'list_issues', { status: 'stuck' });
    expect(listed.issues).toEqual([expect.objectContaining({ key: 'BAT-1', attention: expect.stringContaining('expired 2 times') })]);
    const ls = await cli('ls');
    expect(ls.stdout).toMatch(/^Needs attention\n {2}stuck {2}BAT-1 {2}Hangs every agent {2}its lease expired 2 times in a row/);

    const reopened = await cli('reopen', 'BAT-1', '--json');
    expect(reopened.json().issue.status).toBe('todo');
    const again = await call(server.client, 'claim_issue', { key: 'BAT-1' });
    expect(again.isError).toBe(false);
    expect(again.structured.issue.status).toBe('doing');
  });
});
