import { spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { CLI, spawnServer, type SpawnedServer, waitFor } from '../helpers/spawnServer.js';

const ESC = '\x1b[';

describe('baton add, ls, show, claims and release', () => {
  let repo: ScratchRepo;
  let alice: SpawnedServer;
  let claimToken: string;
  const cli = (...args: string[]) => runCli(args, { cwd: repo.main });

  beforeAll(async () => {
    repo = makeRepo({ worktrees: ['wt-alice'] });
    alice = await spawnServer({ cwd: repo.worktrees[0], env: { BATON_AGENT: 'alice' } });
  });
  afterAll(async () => {
    await alice?.close();
    repo.remove();
  });

  it('add creates an issue and prints { issue } with --json', async () => {
    const run = await cli('add', 'Write the parser', '--priority', '1', '--label', 'core,parser', '--body', 'From scratch.', '--json');
    expect(run.status).toBe(0);
    expect(run.json()).toEqual({
      issue: expect.objectContaining({ key: 'BAT-1', title: 'Write the parser', priority: 1, labels: ['core', 'parser'], status: 'todo', body: 'From scratch.' }),
    });
    const blocked = await cli('add', 'Ship it', '--blocked-by', 'BAT-1', '--json');
    expect(blocked.json().issue.relations.blockedBy).toEqual(['BAT-1']);
  });

  it('add prints the new key for people', async () => {
    const run = await cli('add', 'Document it', '-p', '3');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Created BAT-3 {2}Document it/);
  });

  it('ls --json lists issues with the live claim on each, and never a token', async () => {
    const claim = await callTool(alice.client, 'claim_issue', { key: 'BAT-1' });
    claimToken = claim.lease.claimToken;
    await callTool(alice.client, 'checkpoint', { key: 'BAT-1', claimToken, note: 'grammar drafted' });

    const run = await cli('ls', '--json');
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain(claimToken);
    const { issues } = run.json();
    expect(issues.map((i: { key: string }) => i.key)).toEqual(['BAT-3', 'BAT-2', 'BAT-1']);
    const held = issues.find((i: { key: string }) => i.key === 'BAT-1');
    expect(held).toMatchObject({ status: 'doing', held: true, checkpointNote: 'grammar drafted' });
    expect(held.claim).toMatchObject({ key: 'BAT-1', agent: 'alice', worktree: repo.worktrees[0], checkpoint: { note: 'grammar drafted' } });
    expect(issues.find((i: { key: string }) => i.key === 'BAT-2')).toMatchObject({ status: 'todo', claim: null, blockedBy: ['BAT-1'], blocked: true });
  });

  it('ls judges a blocker outside the list by its status', async () => {
    const { issues } = (await cli('ls', '--status', 'todo', '--json')).json();
    expect(issues.map((i: { key: string }) => i.key)).not.toContain('BAT-1');
    expect(issues.find((i: { key: string }) => i.key === 'BAT-2')).toMatchObject({ blockedBy: ['BAT-1'], blocked: true });
  });

  it('ls prints a plain table with holder, countdown and checkpoint when piped', async () => {
    const run = await cli('ls');
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain(ESC);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^STATUS\s+KEY\s+PRI\s+TITLE\s+HOLDER\s+LEFT\s+CHECKPOINT$/);
    const row = lines.find((l) => l.includes('BAT-1'))!;
    expect(row).toMatch(/^doing\s+BAT-1\s+P1\s+Write the parser\s+alice\s+\d+:\d\d\s+grammar drafted$/);
    expect(lines.find((l) => l.includes('BAT-2'))).toMatch(/^todo \(blocked\)/);
  });

  it('ls colours the table when asked with FORCE_COLOR, and NO_COLOR wins', async () => {
    const coloured = await runCli(['ls'], { cwd: repo.main, env: { FORCE_COLOR: '1' } });
    expect(coloured.stdout).toContain(ESC);
    const plain = await runCli(['ls'], { cwd: repo.main, env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.stdout).not.toContain(ESC);
  });

  it('ls --ready lists claimable issues in dispatch order', async () => {
    const { issues } = (await cli('ls', '--ready', '--json')).json();
    expect(issues.map((i: { key: string }) => i.key)).toEqual(['BAT-3']);
  });

  it('ls --ready applies --text and --status to the ready issues too', async () => {
    const keys = async (...args: string[]) => (await cli('ls', '--ready', '--json', ...args)).json().issues.map((i: { key: string }) => i.key);
    expect(await keys('--text', 'document')).toEqual(['BAT-3']);
    expect(await keys('--text', 'parser')).toEqual([]);
    expect(await keys('--status', 'todo')).toEqual(['BAT-3']);
    expect(await keys('--status', 'doing')).toEqual([]);
  });

  it('show --json answers like get_issue, without the token', async () => {
    const run = await cli('show', 'bat-1', '--json');
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain(claimToken);
    const detail = run.json();
    expect(Object.keys(detail).sort()).toEqual(['activity', 'checkpoint', 'comments', 'issue', 'lease', 'overlaps', 'relations']);
    expect(detail.lease).toMatchObject({ key: 'BAT-1', agent: 'alice' });
    expect(detail.lease.claimToken).toBeUndefined();
    expect(detail.checkpoint).toMatchObject({ note: 'grammar drafted', agent: 'alice' });
    expect(detail.relations.blocks).toEqual(['BAT-2']);
  });

  it('show prints the lease and checkpoint for people', async () => {
    const run = await cli('show', 'BAT-1');
    expect(run.stdout).toMatch(/held by\s+alice, \d+:\d\d left/);
    expect(run.stdout).toMatch(/checkpoint\s+grammar drafted/);
    expect(run.stdout).toMatch(/blocks\s+BAT-2/);
  });

  it('claims --json answers like list_claims, without the token', async () => {
    const run = await cli('claims', '--json');
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain(claimToken);
    const { claims } = run.json();
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({ key: 'BAT-1', title: 'Write the parser', agent: 'alice', branch: expect.stringMatching(/^baton\/bat-1-/), secondsLeft: expect.any(Number) });
    expect(Object.keys(claims[0]).sort()).toEqual(
      ['branch', 'checkpoint', 'claimedAt', 'expiresAt', 'key', 'lastActiveAt', 'lastRenewedAt', 'renewer', 'secondsLeft', 'session', 'title', 'agent', 'worktree', 'overlaps'].sort(),
    );
  });

  it('claims prints a table with a countdown', async () => {
    const run = await cli('claims');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KEY\s+TITLE\s+HOLDER\s+LEFT\s+RENEWED\s+ACTIVE\s+RENEWER\s+WORKTREE\s+CHECKPOINT\s+OVERLAPS$/);
    expect(lines[1]).toMatch(/^BAT-1\s+Write the parser\s+alice\s+\d+:\d\d\s+\d+s ago\s+\d+[sm] ago\s+-\s+wt-alice\s+grammar drafted$/);
  });

  it('claims --watch --json prints a line when the claims change and stops cleanly on SIGINT', async () => {
    const child = spawn(process.execPath, [CLI, 'claims', '--watch', '--json', '--interval', '200'], { cwd: repo.main, env: getDefaultEnvironment() });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => out.includes('\n'), 10_000, 'the first line');
    const first = JSON.parse(out.split('\n')[0]);
    expect(first.claims.map((c: { key: string }) => c.key)).toEqual(['BAT-1']);
    expect(out).not.toContain(claimToken);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('release ends the live lease, and the holder is refused with CLAIM_LOST afterwards', async () => {
    const run = await cli('release', 'BAT-1', '--note', 'reassigning', '--json');
    expect(run.status).toBe(0);
    expect(run.json()).toEqual({ issue: expect.objectContaining({ key: 'BAT-1', status: 'doing' }), released: true });
    expect((await cli('claims', '--json')).json().claims).toEqual([]);
    const late = await callTool(alice.client, 'heartbeat', { key: 'BAT-1', claimToken });
    expect(late.error.code).toBe('CLAIM_LOST');
  });

  it('release of an issue nobody holds changes nothing and says so', async () => {
    const run = await cli('release', 'BAT-3', '--json');
    expect(run.status).toBe(0);
    expect(run.json().released).toBe(false);
  });

  it('shows control characters of titles and notes as escapes for people, and exactly in JSON', async () => {
    const title = 'innocent\x1b]0;PWNED\x07\x1b[2J\x9b';
    const shown = 'innocent\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b';
    const { key } = (await cli('add', title, '--json')).json().issue;
    const lease = (await callTool(alice.client, 'claim_issue', { key })).lease;
    await callTool(alice.client, 'checkpoint', { key, claimToken: lease.claimToken, note: 'step\r\x1b[1Aone' });
    const raw = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

    for (const args of [['ls'], ['show', key], ['claims']]) {
      const run = await cli(...args);
      expect(run.status).toBe(0);
      expect(run.stdout).not.toMatch(raw);
      expect(run.stdout).toContain(shown);
    }
    expect((await cli('ls')).stdout).toContain('step \\u001b[1Aone');
    expect((await cli('show', key)).stdout).toContain('step\\u000d\\u001b[1Aone');
    // Painted, the table keeps its own colours and still escapes the title's codes.
    const coloured = (await runCli(['ls'], { cwd: repo.main, env: { FORCE_COLOR: '1' } })).stdout;
    expect(coloured).toContain(ESC);
    expect(coloured).toContain(shown);
    expect(coloured).not.toMatch(/\x1b\]|\x1b\[2J|\x07/);

    expect((await cli('show', key, '--json')).json().issue.title).toBe(title);
    expect((await cli('release', key)).stdout).not.toMatch(raw);
  });
});
