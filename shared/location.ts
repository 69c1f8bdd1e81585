import { execFileSync } from 'node:child_process';
import { isAbsolute, join, resolve } from 'node:path';

/** Where a session's database is, and which checkout it works in. */
export interface Location {
  dbPath: string;
  /** Top level of the current worktree (where `.baton.json` is read), or null outside git. */
  repoRoot: string | null;
  /** Same as repoRoot: the worktree recorded on leases. */
  worktree: string | null;
  /** The git common dir shared by every worktree, or null outside git. */
  commonDir: string | null;
}

/** `git rev-parse` in `cwd`: the common dir and the worktree's top level, or null outside a work tree. */
export function gitPaths(cwd: string): { commonDir: string; topLevel: string } | null {
  try {
    const out = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [commonDir, topLevel] = out.trim().split('\n');
    if (!commonDir || !topLevel) return null;
    return { commonDir: resolve(cwd, commonDir), topLevel };
  } catch {
    return null;
  }
}

/**
 * The database of PROTOCOL.md section 1: `<git common dir>/baton/baton.db`, shared by every
 * worktree; `<cwd>/.baton/baton.db` outside git; `db` (or `BATON_DB`) wins.
 */
export function resolveLocation(options: { cwd: string; db?: string; env?: NodeJS.ProcessEnv }): Location {
  const env = options.env ?? process.env;
  const git = gitPaths(options.cwd);
  const override = options.db ?? env.BATON_DB;
  const dbPath = override
    ? isAbsolute(override)
      ? override
      : resolve(options.cwd, override)
    : git
      ? join(git.commonDir, 'baton', 'baton.db')
      : join(resolve(options.cwd), '.baton', 'baton.db');
  return { dbPath, repoRoot: git?.topLevel ?? null, worktree: git?.topLevel ?? null, commonDir: git?.commonDir ?? null };
}
