import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawnServer.js';
import { ok } from '../helpers/tools.js';

describe('baton prune', () => {
  let repo: ScratchRepo;
  let alice: SpawnedServer;
  const cli = (...args: string[]) => runCli(args, { cwd: repo.main });

  beforeAll(async () => {
    repo = makeRepo();
    alice = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'alice' } });
    for (let i = 1; i <= 20; i++) {
      await ok(alice.client, 'create_issue', { title: `Issue ${i}` });
      const { lease } = await ok(alice.client, 'claim_issue', { key: `BAT-${i}` });
      for (let n = 0; n < 3; n++) await ok(alice.client, 'checkpoint', { key: `BAT-${i}`, claimToken: lease.claimToken, note: `step ${n} `.repeat(200) });
      if (i <= 15) await ok(alice.client, 'done', { key: `BAT-${i}`, claimToken: lease.claimToken });
    }
  });
  afterAll(async () => {
    await alice?.close();
    repo.remove();
  });

  it('folds the history of finished issues now, keeps open issues whole, and shrinks the database', async () => {
    const run = await cli('prune', '--older-than', '0', '--json');
    expect(run.status).toBe(0);
    const { folded, bytes } = run.json();
    // 15 finished issues: created, claimed, 3 checkpoints and done each; two older checkpoints; one token.
    expect(folded).toMatchObject({ events: 15 * 6, checkpoints: 15 * 2, tokens: 15 });
    expect(bytes.after).toBeLessThan(bytes.before);

    const why = (await cli('why', 'BAT-1', '--json')).json();
    expect(why.lines.map((l: { kind: string }) => l.kind)).toEqual(['folded']);
    expect(why.lines[0].text).toMatch(/^older history, folded by retention: 3 checkpoint, 3 renewed, 1 claimed, 1 created, 1 done between/);
    const open = (await cli('why', 'BAT-20', '--json')).json();
    expect(open.lines.filter((l: { kind: string }) => l.kind === 'checkpoint')).toHaveLength(3);
    // The database still serves the server that was running throughout.
    expect((await ok(alice.client, 'get_issue', { key: 'BAT-1' })).checkpoint.note).toMatch(/^step 2 /);
    expect((await ok(alice.client, 'create_issue', { title: 'After the prune' })).issue.key).toBe('BAT-21');

    const again = await cli('prune', '--older-than', '0');
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^Folded 0 events, 0 older checkpoints and 0 ended leases' tokens/);
  });

  it('refuses a bad --older-than as bad usage', async () => {
    expect((await cli('prune', '--older-than', 'soon')).status).toBe(2);
  });
});
