import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, runCli } from '../helpers/cli.js';
import { makeRepo, QUIET_ENV, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer, waitFor } from '../helpers/spawnServer.js';

/** Every file of a folder with its mode and a hash of its bytes: what `uninstall` must leave as it found. */
function listing(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const path = join(dir, name);
      const mode = (lstatSync(path).mode & 0o7777).toString(8);
      return `${name} ${mode} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    });
}

/** A git command that may fail: its status and what it printed. */
function gitRun(cwd: string, args: string[]): { status: number | null; stderr: string; stdout: string } {
  const run = spawnSync('git', args, { cwd, env: QUIET_ENV, encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

describe('the push guard with real git and real agents', () => {
  let repo: ScratchRepo;
  let remote: string;
  let hooksDir: string;
  let before: string[];
  let hookLog: string;
  const servers: SpawnedServer[] = [];

  beforeAll(() => {
    repo = makeRepo({ worktrees: ['wt-a', 'wt-b'] });
    remote = join(repo.dir, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote], { env: QUIET_ENV });
    repo.git(['remote', 'add', 'origin', remote]);
    repo.git(['push', '-q', 'origin', 'main']);
    // A hook of the team's own, there before Baton: it logs every push and refuses one branch.
    hooksDir = repo.git(['rev-parse', '--path-format=absolute', '--git-path', 'hooks']);
    hookLog = join(repo.dir, 'team-hook.log');
    writeFileSync(
      join(hooksDir, 'pre-push'),
      `#!/bin/sh\nlines=$(cat)\necho "$1 $lines" >> '${hookLog}'\ncase "$lines" in *refs/heads/frozen*) echo "team hook: frozen is frozen" >&2; exit 1;; esac\nexit 0\n`,
    );
    chmodSync(join(hooksDir, 'pre-push'), 0o750);
    before = listing(hooksDir);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    repo.remove();
  });

  async function serve(agent: string, cwd: string, leaseSeconds: number) {
    const server = await spawnServer({ cwd, env: { BATON_AGENT: agent, BATON_LEASE_SECONDS: String(leaseSeconds), BATON_SWEEP_MS: '200' } });
    servers.push(server);
    return server.client;
  }

  it('fences a superseded worktree off the branch it lost, lets the new holder push, and leaves the hooks folder as it was', async () => {
    const [wtA, wtB] = repo.worktrees;
    const installed = await runCli(['guard', 'install', '--json'], { cwd: repo.main });
    expect(installed.status).toBe(0);
    expect(installed.json()).toMatchObject({ changed: true, installed: 'baton', hook: join(hooksDir, 'pre-push'), chained: join(hooksDir, 'pre-push.baton-chained') });
    // Installing again changes nothing, and every worktree sees the same hook.
    expect((await runCli(['guard', 'install', '--json'], { cwd: wtA })).json()).toMatchObject({ changed: false, installed: 'baton' });
    expect((await runCli(['guard', 'status', '--json'], { cwd: wtB })).json()).toMatchObject({ installed: 'baton', hooksDir });
    expect((await runCli(['add', 'Fix the parser'], { cwd: repo.main })).status).toBe(0);

    // A claims, commits on its branch, checkpoints, and goes silent with a short lease.
    const alice = await serve('alice', wtA, 3);
    const claimedA = await callTool(alice, 'next_issue');
    const branch: string = claimedA.lease.branch;
    repo.git(['switch', '-q', '-c', branch], wtA);
    repo.write('parser.txt', 'first half\n', wtA);
    repo.git(['add', 'parser.txt'], wtA);
    repo.git(['commit', '-q', '-m', 'parser: first half'], wtA);
    const headA = repo.git(['rev-parse', 'HEAD'], wtA);
    expect(await callTool(alice, 'checkpoint', { key: 'BAT-1', claimToken: claimedA.lease.claimToken, note: 'first half committed' })).toHaveProperty('checkpoint');
    repo.write('scratch.txt', 'uncommitted, A only\n', wtA);

    // B, in the other worktree, waits for A's lease to lapse and takes the issue over.
    const bob = await serve('bob', wtB, 600);
    await waitFor(async () => (await callTool(bob, 'check_claim', { key: 'BAT-1' })).held === false, 20_000, "alice's lease to expire");
    const claimedB = await callTool(bob, 'claim_issue', { key: 'BAT-1' });
    expect(claimedB.resumed).toBe(true);
    expect(claimedB.continueFrom).toMatchObject({ branch, head: headA, checkedOutIn: wtA, session: { agent: 'alice' } });
    for (const command of claimedB.continueFrom.commands as string[]) execFileSync('sh', ['-c', command], { cwd: wtB, env: QUIET_ENV, stdio: 'pipe' });
    expect(repo.git(['branch', '--show-current'], wtB)).toBe(branch);
    expect(repo.git(['rev-parse', 'HEAD'], wtB)).toBe(headA);
    // A's files are as A left them: its commit, its uncommitted file, nothing of B's.
    expect(repo.git(['rev-parse', 'HEAD'], wtA)).toBe(headA);
    expect(readFileSync(join(wtA, 'scratch.txt'), 'utf8')).toBe('uncommitted, A only\n');

    repo.write('parser.txt', 'first half\nsecond half\n', wtB);
    repo.git(['commit', '-q', '-am', 'parser: second half'], wtB);
    const pushedB = gitRun(wtB, ['push', '-q', 'origin', branch]);
    expect(pushedB.stderr).not.toContain('baton:');
    expect(pushedB.status).toBe(0);
    const headB = repo.git(['rev-parse', 'HEAD'], wtB);
    expect(repo.git(['rev-parse', branch], remote)).toBe(headB);

    // A wakes up, commits its own take and force-pushes it over the branch: refused, naming B.
    repo.write('parser.txt', 'my own second half\n', wtA);
    repo.git(['commit', '-q', '-am', 'parser: my take'], wtA);
    const pushedA = gitRun(wtA, ['push', '--force', 'origin', `HEAD:refs/heads/${branch}`]);
    expect(pushedA.status).not.toBe(0);
    expect(pushedA.stderr).toContain(`${branch} is the branch of BAT-1, held by bob in ${wtB}`);
    expect(pushedA.stderr).toContain('git push --no-verify');
    expect(repo.git(['rev-parse', branch], remote)).toBe(headB);

    // Other branches push from anywhere; the team's hook still runs first, and still refuses.
    expect(gitRun(wtA, ['push', '-q', 'origin', 'HEAD:refs/heads/alice-notes']).status).toBe(0);
    const frozen = gitRun(wtA, ['push', 'origin', 'HEAD:refs/heads/frozen']);
    expect(frozen.status).not.toBe(0);
    expect(frozen.stderr).toContain('team hook: frozen is frozen');
    expect(readFileSync(hookLog, 'utf8')).toContain(`origin refs/heads/${branch} ${headB} refs/heads/${branch}`);

    // A person who means it overrides the guard.
    expect(gitRun(wtA, ['push', '-q', '--force', '--no-verify', 'origin', `HEAD:refs/heads/${branch}`]).status).toBe(0);
    expect(repo.git(['rev-parse', branch], remote)).toBe(repo.git(['rev-parse', 'HEAD'], wtA));

    const removed = await runCli(['guard', 'uninstall', '--json'], { cwd: wtB });
    expect(removed.json()).toMatchObject({ changed: true, installed: 'other', chained: null });
    expect(listing(hooksDir)).toEqual(before);
  });
});
