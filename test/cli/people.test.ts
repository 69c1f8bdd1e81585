import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawnServer.js';

describe('baton edit, comment, block, unblock, relate, close and reopen', () => {
  let repo: ScratchRepo;
  let alice: SpawnedServer;
  const cli = (...args: string[]) => runCli(args, { cwd: repo.main });

  beforeAll(async () => {
    repo = makeRepo({ worktrees: ['wt-alice'] });
    alice = await spawnServer({ cwd: repo.worktrees[0], env: { BATON_AGENT: 'alice' } });
    for (const title of ['Parser', 'Printer', 'Docs']) expect((await cli('add', title)).status).toBe(0);
  });
  afterAll(async () => {
    await alice?.close();
    repo.remove();
  });

  it('edit changes title, body, priority and labels, and show reads them back', async () => {
    const run = await cli('edit', 'BAT-1', '--title', 'Parser v2', '--body', 'Rewrite.', '-p', '0', '-l', 'core', '-l', 'parser', '--json');
    expect(run.status).toBe(0);
    expect(run.json().issue).toMatchObject({ key: 'BAT-1', title: 'Parser v2', body: 'Rewrite.', priority: 0, labels: ['core', 'parser'] });
    expect((await cli('show', 'BAT-1', '--json')).json().issue).toMatchObject({ title: 'Parser v2', priority: 0 });
    const text = await cli('edit', 'bat-1', '--title', 'Parser v3');
    expect(text.stdout).toMatch(/^Edited BAT-1 {2}Parser v3/);
  });

  it('edit with nothing to change, or a bad priority, is bad usage (exit 2)', async () => {
    const nothing = await cli('edit', 'BAT-1');
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toContain('Nothing to change');
    expect((await cli('edit', 'BAT-1', '-p', '9')).status).toBe(2);
  });

  it('edit of an issue that does not exist is refused with NOT_FOUND (exit 1)', async () => {
    const run = await cli('edit', 'BAT-99', '--title', 'x', '--json');
    expect(run.status).toBe(1);
    expect(run.json().error.code).toBe('NOT_FOUND');
    expect(run.stderr).toContain('NOT_FOUND');
  });

  it('comment adds a comment that show lists', async () => {
    const run = await cli('comment', 'BAT-2', 'Looks fine to me.', '--json');
    expect(run.status).toBe(0);
    expect(run.json().comment).toMatchObject({ text: 'Looks fine to me.', agent: expect.stringMatching(/^cli/) });
    const { comments } = (await cli('show', 'BAT-2', '--json')).json();
    expect(comments.map((c: { text: string }) => c.text)).toEqual(['Looks fine to me.']);
  });

  it('block and unblock add and remove a blocker, and a cycle is refused with CYCLE', async () => {
    const blocked = await cli('block', 'BAT-2', '--by', 'BAT-1', '--json');
    expect(blocked.status).toBe(0);
    expect(blocked.json().relations.blockedBy).toEqual(['BAT-1']);
    const cycle = await cli('block', 'BAT-1', '--by', 'BAT-2', '--json');
    expect(cycle.status).toBe(1);
    expect(cycle.json().error).toMatchObject({ code: 'CYCLE' });
    expect((await cli('show', 'BAT-1', '--json')).json().relations.blockedBy).toEqual([]);
    const text = await cli('unblock', 'BAT-2', '--by', 'BAT-1');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^BAT-2 {2}no relations/);
    expect((await cli('block', 'BAT-2')).status).toBe(2);
  });

  it('relate adds and removes any relation type, as the relate tool does', async () => {
    const added = await cli('relate', 'BAT-3', '--type', 'relatesTo', 'BAT-1', '--json');
    expect(added.status).toBe(0);
    expect(added.json().relations.relatesTo).toEqual(['BAT-1']);
    const parent = await cli('relate', 'BAT-3', 'BAT-2', '--type', 'parent');
    expect(parent.stdout).toContain('parent BAT-2');
    const removed = await cli('relate', 'BAT-3', '--type', 'relatesTo', 'BAT-1', '--remove', '--json');
    expect(removed.json().relations).toMatchObject({ relatesTo: [], parent: 'BAT-2' });
    expect((await cli('relate', 'BAT-3', '--type', 'likes', 'BAT-1')).status).toBe(2);
  });

  it('close ends a live lease, marks the issue done, and the holder is refused with CLAIM_LOST afterwards', async () => {
    const { lease } = await callTool(alice.client, 'claim_issue', { key: 'BAT-2' });
    const run = await cli('close', 'BAT-2', '--reason', 'done by hand', '--json');
    expect(run.status).toBe(0);
    expect(run.json()).toEqual({ issue: expect.objectContaining({ key: 'BAT-2', status: 'done' }), released: true });
    expect(run.stdout).not.toContain(lease.claimToken);
    const late = await callTool(alice.client, 'checkpoint', { key: 'BAT-2', claimToken: lease.claimToken, note: 'still here' });
    expect(late.error).toMatchObject({ code: 'CLAIM_LOST', reason: 'released' });
    const { activity } = (await cli('show', 'BAT-2', '--json')).json();
    expect(activity.find((e: { type: string }) => e.type === 'closed').detail).toBe('doing → done: done by hand');
  });

  it('reopen puts a done issue back to todo, and refuses one that is open with NOT_READY', async () => {
    const run = await cli('reopen', 'BAT-2', '--json');
    expect(run.status).toBe(0);
    expect(run.json().issue).toMatchObject({ key: 'BAT-2', status: 'todo' });
    const again = await cli('reopen', 'BAT-2', '--json');
    expect(again.status).toBe(1);
    expect(again.json().error).toMatchObject({ code: 'NOT_READY', status: 'todo' });
    const text = await cli('close', 'BAT-2');
    expect(text.stdout).toMatch(/^Closed BAT-2 {2}Printer$/m);
    expect((await cli('reopen', 'BAT-2')).stdout).toMatch(/^Reopened BAT-2 {2}Printer; it is todo\./);
  });
});
