import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawnServer.js';

interface Kept {
  path: string;
  branch: string | null;
  reasons: { code: string; message: string }[];
}

describe('baton worktree new', () => {
  let repo: ScratchRepo;
  const servers: SpawnedServer[] = [];
  beforeAll(() => {
    repo = makeRepo();
  });
  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => {});
    repo.remove();
  });

  it("makes a worktree on the issue's branch whose server shares the main worktree's database", async () => {
    expect((await runCli(['add', 'Fix the login bug'], { cwd: repo.main })).status).toBe(0);
    // What `baton init` writes, untracked in the main worktree: git alone would not carry it.
    expect((await runCli(['init'], { cwd: repo.main })).status).toBe(0);
    const made = await runCli(['worktree', 'new', '--issue', 'BAT-1', '--json'], { cwd: repo.main });
    expect(made.status, made.stderr).toBe(0);
    const { path, branch } = made.json<{ path: string; branch: string }>();
    expect(path).toBe(join(repo.dir, 'main-worktrees', 'bat-1'));
    expect(branch).toBe('baton/bat-1-fix-the-login-bug');
    expect(repo.git(['rev-parse', '--abbrev-ref', 'HEAD'], path)).toBe(branch);
    for (const file of ['.mcp.json', '.vscode/mcp.json']) expect(readFileSync(join(path, file), 'utf8')).toBe(readFileSync(join(repo.main, file), 'utf8'));

    const server = await spawnServer({ cwd: path, env: { BATON_AGENT: 'alice' } });
    servers.push(server);
    const claim = await callTool(server.client, 'next_issue');
    expect(claim.issue.key).toBe('BAT-1');
    expect(claim.lease).toMatchObject({ branch, worktree: path });
    expect((await callTool(server.client, 'create_issue', { title: 'Made in the worktree' })).issue.key).toBe('BAT-2');

    const claims = (await runCli(['claims', '--json'], { cwd: repo.main })).json().claims;
    expect(claims).toEqual([expect.objectContaining({ key: 'BAT-1', agent: 'alice', worktree: path, branch })]);
    const titles = (await runCli(['ls', '--json'], { cwd: repo.main })).json().issues.map((i: { title: string }) => i.title);
    expect(titles).toContain('Made in the worktree');

    const listed = (await runCli(['worktree', 'ls', '--json'], { cwd: repo.main })).json().worktrees;
    const row = listed.find((w: { path: string }) => w.path === path);
    expect(row).toMatchObject({ branch, issue: { key: 'BAT-1', status: 'doing' }, leases: [{ key: 'BAT-1', agent: 'alice' }], sessions: [{ agent: 'alice', pid: server.pid }] });
    expect(JSON.stringify(listed)).not.toMatch(/claimToken|bat_[A-Za-z0-9]{20}/);
  });

  it('makes agent-<n> from the default branch without a name, and refuses a name taken or a base that is no commit', async () => {
    const first = await runCli(['worktree', 'new'], { cwd: repo.main });
    expect(first.stdout.trim()).toBe(join(repo.dir, 'main-worktrees', 'agent-1'));
    expect(repo.git(['rev-parse', 'HEAD'], first.stdout.trim())).toBe(repo.git(['rev-parse', 'main']));
    const taken = await runCli(['worktree', 'new', 'agent-1'], { cwd: repo.main });
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain('already exists');
    const noBase = await runCli(['worktree', 'new', 'other', '--base', 'no-such-ref'], { cwd: repo.main });
    expect(noBase.status).toBe(1);
    expect(noBase.stderr).toContain('no-such-ref is not a commit');
    expect(existsSync(join(repo.dir, 'main-worktrees', 'other'))).toBe(false);
    expect((await runCli(['worktree', 'new', '../escape'], { cwd: repo.main })).status).toBe(1);
  });

  it.each(['new', 'ls', 'tidy'])('answers --help on worktree %s with exit 0, and takes --json and --db', async (sub) => {
    const run = await runCli(['worktree', sub, '--help'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Usage: baton worktree ${sub}`);
    expect(run.stdout).toContain('--json');
    expect(run.stdout).toContain('--db <path>');
  });

  it('exits 2 without a subcommand, and 1 with NOT_FOUND for an issue that does not exist', async () => {
    expect((await runCli(['worktree'], { cwd: repo.main })).status).toBe(2);
    const missing = await runCli(['worktree', 'new', '--issue', 'BAT-99', '--json'], { cwd: repo.main });
    expect(missing.status).toBe(1);
    expect(missing.json().error.code).toBe('NOT_FOUND');
    expect(existsSync(join(repo.dir, 'main-worktrees', 'bat-99'))).toBe(false);
  });

  it('puts worktrees where .baton.json says, relative to the main worktree', async () => {
    const other = makeRepo({ batonJson: { worktreeRoot: '../agents' } });
    try {
      const made = await runCli(['worktree', 'new', 'one'], { cwd: other.main });
      expect(made.stdout.trim()).toBe(join(other.dir, 'agents', 'one'));
    } finally {
      other.remove();
    }
  });
});

describe('baton worktree tidy', () => {
  let repo: ScratchRepo;
  const servers: SpawnedServer[] = [];
  const path: Record<string, string> = {};
  let root: string;

  async function newWorktree(name: string, extra: string[] = []): Promise<string> {
    const made = await runCli(['worktree', 'new', name, ...extra, '--json'], { cwd: repo.main });
    if (made.status !== 0) throw new Error(made.stderr);
    path[name] = made.json().path;
    return path[name];
  }
  const commit = (cwd: string, file: string) => {
    repo.write(file, `${file}\n`, cwd);
    repo.git(['add', file], cwd);
    repo.git(['commit', '-q', '-m', `add ${file}`], cwd);
  };
  const snapshot = () => ({
    list: repo.git(['worktree', 'list', '--porcelain']),
    branches: repo.git(['branch', '--list']),
    folders: readdirSync(root).sort(),
    files: Object.fromEntries(Object.values(path).filter(existsSync).map((p) => [p, readdirSync(p).sort()])),
  });

  beforeAll(async () => {
    repo = makeRepo();
    root = join(repo.dir, 'main-worktrees');
    repo.write('.gitignore', '*.log\n');
    repo.git(['add', '.gitignore']);
    repo.git(['commit', '-q', '-m', 'ignore logs']);
    // A bare remote, so that a done issue's branch can be pushed.
    execFileSync('git', ['init', '-q', '--bare', join(repo.dir, 'remote.git')]);
    repo.git(['remote', 'add', 'origin', join(repo.dir, 'remote.git')]);
    repo.git(['push', '-q', 'origin', 'main']);
    await runCli(['import', '-'], { cwd: repo.main, input: '{"title":"Alpha"}\n{"title":"Beta"}\n' });

    commit(await newWorktree('merged'), 'merged.txt');
    repo.git(['merge', '-q', '--ff-only', 'merged']);
    await newWorktree('ignored');
    repo.write('build.log', 'noise\n', path.ignored);

    // A live lease, its server gone (an agent between sessions): only the lease keeps it.
    const leased = await spawnServer({ cwd: await newWorktree('leased', ['--issue', 'BAT-1']), env: { BATON_AGENT: 'alice' } });
    expect((await callTool(leased.client, 'claim_issue', { key: 'BAT-1' })).issue.key).toBe('BAT-1');
    await leased.close();
    await leased.exited();

    // A live idle session: a server running there that holds nothing.
    const idle = await spawnServer({ cwd: await newWorktree('idle'), env: { BATON_AGENT: 'bob' } });
    servers.push(idle);
    expect((await callTool(idle.client, 'list_claims')).claims).toHaveLength(1);

    repo.write('README.md', '# changed\n', await newWorktree('dirty'));
    repo.write('notes.txt', 'half a thought\n', await newWorktree('untracked'));
    commit(await newWorktree('unmerged'), 'unmerged.txt');
    repo.git(['worktree', 'lock', '--reason', 'on a USB disk', await newWorktree('locked')]);

    // A done issue's branch, pushed to its upstream but not merged (a squash merge, say).
    const finisher = await spawnServer({ cwd: await newWorktree('done', ['--issue', 'BAT-2']), env: { BATON_AGENT: 'carol' } });
    const claim = await callTool(finisher.client, 'claim_issue', { key: 'BAT-2' });
    commit(path.done, 'done.txt');
    repo.git(['push', '-q', '-u', 'origin', 'HEAD'], path.done);
    expect((await callTool(finisher.client, 'done', { key: 'BAT-2', claimToken: claim.lease.claimToken })).issue.status).toBe('done');
    await finisher.close();
    await finisher.exited();

    rmSync(await newWorktree('gone'), { recursive: true, force: true });
  });
  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => {});
    repo.remove();
  });

  it('--dry-run says what it would do and changes nothing', async () => {
    const before = snapshot();
    const run = await runCli(['worktree', 'tidy', '--dry-run', '--json'], { cwd: repo.main });
    expect(run.status, run.stderr).toBe(0);
    const plan = run.json();
    expect(plan.dryRun).toBe(true);
    expect(plan.removed.map((r: { path: string }) => r.path).sort()).toEqual([path.done, path.ignored, path.merged].sort());
    expect(plan.pruned).toEqual([path.gone]);
    expect(snapshot()).toEqual(before);
    const text = await runCli(['worktree', 'tidy', '--dry-run'], { cwd: repo.main });
    expect(text.stdout).toContain(`would remove${path.merged}`);
    // Each kept worktree on a line, each of its reasons on a line under it.
    const lines = text.stdout.split('\n');
    const at = lines.findIndex((line) => line.startsWith('kept') && line.includes(path.locked));
    expect(lines[at + 1]).toMatch(/^\s+locked: it is locked \(on a USB disk\)/);
    expect(snapshot()).toEqual(before);
  });

  it('removes the merged, clean, unheld worktrees and keeps each other one with its reason', async () => {
    const run = await runCli(['worktree', 'tidy', '--json'], { cwd: repo.main });
    expect(run.status, run.stderr).toBe(0);
    const outcome = run.json();
    const kept = new Map<string, string[]>(outcome.kept.map((k: Kept) => [k.path, k.reasons.map((r) => r.code)]));
    expect(kept.get(path.leased)).toEqual(['lease']);
    expect(kept.get(path.idle)).toEqual(['session']);
    expect(kept.get(path.dirty)).toEqual(['uncommitted']);
    expect(kept.get(path.untracked)).toEqual(['untracked']);
    expect(kept.get(path.unmerged)).toEqual(['unmerged']);
    expect(kept.get(path.locked)).toEqual(['locked']);
    expect(kept.get(repo.main)).toContain('main');
    const reasons = new Map<string, string>(outcome.kept.map((k: Kept) => [k.path, k.reasons.map((r) => r.message).join('; ')]));
    expect(reasons.get(path.leased)).toContain('BAT-1 held by alice');
    expect(reasons.get(path.untracked)).toContain('notes.txt');
    expect(reasons.get(path.locked)).toContain('on a USB disk');

    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect([...outcome.removed].sort(byPath)).toEqual([
      { path: path.merged, branch: 'merged', branchDeleted: true, branchKept: null },
      { path: path.ignored, branch: 'ignored', branchDeleted: true, branchKept: null },
      { path: path.done, branch: 'baton/bat-2-beta', branchDeleted: false, branchKept: expect.stringContaining('not merged') },
    ].sort(byPath));
    expect(outcome.pruned).toEqual([path.gone]);
    for (const name of ['merged', 'ignored', 'done', 'gone']) expect(existsSync(path[name]), name).toBe(false);
    const listed = repo.git(['worktree', 'list', '--porcelain']);
    for (const name of ['merged', 'ignored', 'done', 'gone']) expect(listed).not.toContain(`worktree ${path[name]}\n`);
    for (const name of ['leased', 'idle', 'dirty', 'untracked', 'unmerged', 'locked']) expect(listed).toContain(`worktree ${path[name]}\n`);
    // The unmerged branch of the done issue stays; only merged branches go.
    expect(repo.git(['branch', '--list', 'baton/bat-2-beta'])).toContain('baton/bat-2-beta');
    expect(repo.git(['branch', '--list', 'merged'])).toBe('');
    // Nothing of anyone's work was touched.
    expect(readFileSync(join(path.dirty, 'README.md'), 'utf8')).toBe('# changed\n');
    expect(readFileSync(join(path.untracked, 'notes.txt'), 'utf8')).toBe('half a thought\n');
  });
});
