import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveLocation } from '../../shared/location.js';
import { parseStatus } from '../../shared/git.js';

function git(cwd: string, ...args: string[]) {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

describe('database location', () => {
  it('puts the database in the git common dir, shared by every worktree', () => {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), 'baton-loc-')));
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, '-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'init');
    git(repo, 'worktree', 'add', '-q', join(repo, '..', `${repo.split('/').pop()}-wt`), '-b', 'wt');
    const main = resolveLocation({ cwd: repo, env: {} });
    const other = resolveLocation({ cwd: join(repo, '..', `${repo.split('/').pop()}-wt`), env: {} });
    expect(main.dbPath).toBe(join(repo, '.git', 'baton', 'baton.db'));
    expect(other.dbPath).toBe(main.dbPath);
    expect(other.worktree).toBe(join(repo, '..', `${repo.split('/').pop()}-wt`));
    expect(main.worktree).toBe(repo);
  });

  it('uses .baton/baton.db under the working folder outside git', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-nogit-')));
    expect(resolveLocation({ cwd: dir, env: {} })).toMatchObject({ dbPath: join(dir, '.baton', 'baton.db'), worktree: null });
  });

  it('lets BATON_DB and an explicit path override the location', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-over-')));
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
});
