import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveLocation } from '../../shared/location.js';
import { BRANCH_PATHS_MAX, parseStatus, readGitState } from '../../shared/git.js';
import { testDir } from '../helpers/test-dir.js';

function git(cwd: string, ...args: string[]) {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

/** A repository with one commit, in a temporary folder of its own. */
function makeRepo(prefix: string): string {
  const repo = join(testDir(prefix), 'src');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'init');
  return repo;
}

describe('database location', () => {
  it('puts the database in the git common dir, shared by every worktree', () => {
    const repo = makeRepo('baton-loc-');
    const wt = join(repo, '..', 'wt');
    git(repo, 'worktree', 'add', '-q', wt, '-b', 'wt');
    const main = resolveLocation({ cwd: repo, env: {} });
    const other = resolveLocation({ cwd: wt, env: {} });
    expect(main.dbPath).toBe(join(repo, '.git', 'baton', 'baton.db'));
    expect(other.dbPath).toBe(main.dbPath);
    expect(other.worktree).toBe(wt);
    expect(main.worktree).toBe(repo);
  });

  it('shares one database between a bare repository and its linked worktrees', () => {
    const src = makeRepo('baton-bare-');
    const bare = join(src, '..', 'repo.git');
    const wt = join(src, '..', 'wt1');
    git(src, 'clone', '-q', '--bare', src, bare);
    git(bare, 'worktree', 'add', '-q', wt, '-b', 'feature');
    const db = join(bare, 'baton', 'baton.db');
    expect(resolveLocation({ cwd: wt, env: {} })).toMatchObject({ dbPath: db, commonDir: bare, worktree: wt, repoRoot: wt });
    // The bare folder has no work tree: no top level, no worktree on leases, the same database.
    expect(resolveLocation({ cwd: bare, env: {} })).toEqual({ dbPath: db, commonDir: bare, worktree: null, repoRoot: null });
    expect(resolveLocation({ cwd: join(bare, 'refs'), env: {} }).dbPath).toBe(db);
    expect(resolveLocation({ cwd: join(bare, 'worktrees', 'wt1'), env: {} }).dbPath).toBe(db);
  });

  it('finds the common dir database from a folder inside .git, with no worktree', () => {
    const repo = makeRepo('baton-dotgit-');
    git(repo, 'worktree', 'add', '-q', join(repo, '..', 'wt'), '-b', 'wt');
    const dotGit = join(repo, '.git');
    const db = join(dotGit, 'baton', 'baton.db');
    expect(resolveLocation({ cwd: dotGit, env: {} })).toEqual({ dbPath: db, commonDir: dotGit, worktree: null, repoRoot: null });
    expect(resolveLocation({ cwd: join(dotGit, 'refs', 'heads'), env: {} })).toMatchObject({ dbPath: db, worktree: null });
    expect(resolveLocation({ cwd: join(dotGit, 'worktrees', 'wt'), env: {} })).toMatchObject({ dbPath: db, worktree: null });
  });

  it('takes the real top level of the worktree from a subfolder, reached through a symlink or not', () => {
    const repo = makeRepo('baton-sub-');
    const deep = join(repo, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    const link = join(repo, '..', 'link');
    symlinkSync(deep, link);
    const expected = { dbPath: join(repo, '.git', 'baton', 'baton.db'), commonDir: join(repo, '.git'), worktree: repo, repoRoot: repo };
    expect(resolveLocation({ cwd: deep, env: {} })).toEqual(expected);
    expect(resolveLocation({ cwd: link, env: {} })).toEqual(expected);
  });

  it('uses .baton/baton.db under the working folder outside git', () => {
    const dir = testDir('baton-nogit-');
    expect(resolveLocation({ cwd: dir, env: {} })).toMatchObject({ dbPath: join(dir, '.baton', 'baton.db'), worktree: null });
  });

  it('lets BATON_DB and an explicit path override the location', () => {
    const dir = testDir('baton-over-');
    expect(resolveLocation({ cwd: dir, env: { BATON_DB: '/x/y.db' } }).dbPath).toBe('/x/y.db');
    expect(resolveLocation({ cwd: dir, db: 'rel.db', env: { BATON_DB: '/x/y.db' } }).dbPath).toBe(join(dir, 'rel.db'));
  });
});

describe('git state of a checkpoint', () => {
  it('reads head, branch and every changed path, renames and untracked files included', () => {
    const out = [
      '# branch.oid 0123456789abcdef0123456789abcdef01234567',
      '# branch.head baton/bat-1-x',
      '1 .M N... 100644 100644 100644 aaa bbb src/a file.ts',
      '2 R. N... 100644 100644 100644 aaa bbb R100 new.ts',
      'old.ts',
      '? notes.md',
      '',
    ].join('\0');
    expect(parseStatus(out)).toEqual({
      head: '0123456789abcdef0123456789abcdef01234567',
      branch: 'baton/bat-1-x',
      dirty: ['src/a file.ts', 'new.ts', 'notes.md'],
    });
  });

  it('gives null branch on a detached head and null before the first commit', () => {
    expect(parseStatus('# branch.oid abc\0# branch.head (detached)\0')).toEqual({ head: 'abc', branch: null, dirty: [] });
    expect(parseStatus('# branch.oid (initial)\0# branch.head main\0')).toBeNull();
  });

  it.skipIf(process.platform === 'win32')('gives up on a git status that does not answer, and records none', async () => {
    const repo = makeRepo('slow-git-repo');
    const bin = testDir('slow-git');
    writeFileSync(join(bin, 'git'), '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const started = performance.now();
      expect(await readGitState(repo, 300)).toBeNull();
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      process.env.PATH = path;
    }
  });

  it("records the paths the branch changed since it left main, and none past the bound", async () => {
    const repo = makeRepo('branch-changes-');
    git(repo, 'switch', '-q', '-c', 'topic');
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'a.ts'), 'a\n');
    writeFileSync(join(repo, 'b.ts'), 'b\n');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'two files');
    writeFileSync(join(repo, 'dirty.ts'), 'd\n');
    expect(await readGitState(repo)).toMatchObject({ branch: 'topic', dirty: ['dirty.ts'], changed: ['b.ts', 'src/a.ts'] });

    for (let i = 0; i <= BRANCH_PATHS_MAX; i++) writeFileSync(join(repo, 'src', `gen-${i}.ts`), `${i}\n`);
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'many files');
    const huge = await readGitState(repo);
    expect(huge).toMatchObject({ branch: 'topic', dirty: [] });
    expect(huge).not.toHaveProperty('changed');
  });

  it.skipIf(process.platform === 'win32')("records the state without the branch's paths when git is slow to compare, within the wait", async () => {
    const repo = makeRepo('slow-diff-repo');
    const bin = testDir('slow-diff');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\ncase "$1" in status) exec '${real}' "$@";; esac\nexec sleep 30\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const started = performance.now();
      const state = await readGitState(repo, 1_500);
      expect(state).toMatchObject({ branch: 'main', dirty: [] });
      expect(state).not.toHaveProperty('changed');
      expect(performance.now() - started).toBeLessThan(10_000);
    } finally {
      process.env.PATH = path;
    }
  });
});
