import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A scratch git repository with a first commit and extra worktrees, all under one temporary folder. */
export interface ScratchRepo {
  /** The temporary folder holding everything. */
  dir: string;
  /** The main worktree (branch `main`). */
  main: string;
  /** The extra worktrees, in the order their names were given. */
  worktrees: string[];
  /** Where Baton keeps this repository's database by default. */
  dbPath: string;
  /** Runs git in a worktree (the main one by default) and returns its trimmed output. */
  git(args: string[], cwd?: string): string;
  /** Writes a file (relative to a worktree, the main one by default). */
  write(path: string, text: string, cwd?: string): void;
  remove(): void;
}

export const QUIET_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

/**
 * Makes a repository with one commit on `main` and a worktree per name (each on its own
 * branch of the same name), so that several Baton servers can share one database the way
 * agents in separate checkouts do. `.baton.json` is written and committed when given.
 */
export function makeRepo(options: { worktrees?: string[]; batonJson?: object } = {}): ScratchRepo {
  // realpath: macOS and some CI tmp dirs are symlinks, and git reports resolved paths.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-repo-')));
  const main = join(dir, 'main');
  const git = (args: string[], cwd = main) =>
    execFileSync('git', args, { cwd, env: QUIET_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const write = (path: string, text: string, cwd = main) => writeFileSync(join(cwd, path), text);

  execFileSync('git', ['init', '-q', '-b', 'main', main], { env: QUIET_ENV, stdio: 'ignore' });
  write('README.md', '# scratch\n');
  if (options.batonJson) write('.baton.json', `${JSON.stringify(options.batonJson)}\n`);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'first']);
  const worktrees = (options.worktrees ?? []).map((name) => {
    const path = join(dir, name);
    git(['worktree', 'add', '-q', '-b', name, path]);
    return path;
  });
  return {
    dir,
    main,
    worktrees,
    dbPath: join(main, '.git', 'baton', 'baton.db'),
    git,
    write,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
