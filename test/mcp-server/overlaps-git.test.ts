import { describe, expect, it } from 'vitest';
import { callTool, runCli } from '../helpers/cli.js';
import { repoWithServers } from '../helpers/repoServers.js';

describe('overlap warnings with real git and real servers', () => {
  const fixture = repoWithServers(['wt-a', 'wt-b']);

  it("warns the second of two live claims in two worktrees that touched one file, and list_claims shows both", async () => {
    const { repo } = fixture;
    const [wtA, wtB] = repo.worktrees;
    expect((await runCli(['add', 'Parser'], { cwd: repo.main })).status).toBe(0);
    expect((await runCli(['add', 'Lexer'], { cwd: repo.main })).status).toBe(0);
    const alice = await fixture.serve('alice', {}, wtA);
    const bob = await fixture.serve('bob', {}, wtB);

    // alice commits the file on her branch: a change of the branch against main, not a dirty path.
    const a = await callTool(alice, 'claim_issue', { key: 'BAT-1' });
    repo.git(['switch', '-q', '-c', a.lease.branch], wtA);
    repo.write('shared.ts', 'export const parser = 1;\n', wtA);
    repo.git(['add', 'shared.ts'], wtA);
    repo.git(['commit', '-q', '-m', 'parser'], wtA);
    const first = await callTool(alice, 'checkpoint', { key: 'BAT-1', claimToken: a.lease.claimToken, note: 'parser committed' });
    expect(first.checkpoint.git).toMatchObject({ branch: a.lease.branch, dirty: [], changed: ['shared.ts'] });
    expect(first.overlaps).toEqual([]);

    // bob edits the same file, uncommitted, in his worktree.
    const b = await callTool(bob, 'claim_issue', { key: 'BAT-2' });
    repo.write('shared.ts', 'export const lexer = 1;\n', wtB);
    repo.write('lexer.ts', 'export {};\n', wtB);
    const second = await bob.callTool({ name: 'checkpoint', arguments: { key: 'BAT-2', claimToken: b.lease.claimToken, note: 'lexer started' } });
    const answer = second.structuredContent as any;
    expect(answer.overlaps).toEqual([{ key: 'BAT-1', agent: 'alice', worktree: wtA, files: ['shared.ts'] }]);
    expect((second.content as { text: string }[])[0].text).toContain(`Overlap: BAT-1 (alice in ${wtA}) touches shared.ts too.`);

    const { claims } = await callTool(alice, 'list_claims');
    expect(Object.fromEntries(claims.map((c: any) => [c.key, c.overlaps]))).toEqual({
      'BAT-1': [{ key: 'BAT-2', agent: 'bob', worktree: wtB, files: ['shared.ts'] }],
      'BAT-2': [{ key: 'BAT-1', agent: 'alice', worktree: wtA, files: ['shared.ts'] }],
    });
    const table = await runCli(['claims'], { cwd: repo.main, env: { COLUMNS: '300' } });
    expect(table.stdout).toContain('OVERLAPS');
    expect(table.stdout).toContain('BAT-2 shared.ts');
  });
});
