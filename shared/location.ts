import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** Where a session's database is, and which checkout it works in. */
export interface Location {
  dbPath: string;
  /**
   * Top level of the current worktree (where `.baton.json` is read), or null where there is
   * no work tree: outside git, in a bare repository, inside `.git`.
   */
  repoRoot: string | null;
  /** Same as repoRoot: the worktree recorded on leases. */
  worktree: string | null;
  /** The git common dir shared by every worktree, or null outside git. */
  commonDir: string | null;
}

/**
 * `git rev-parse` in `cwd`, one call: the common dir, and the top level of the work tree, or
 * null for it where there is none (a bare repository, inside `.git`). Null outside git.
 */
export function gitPaths(cwd: string): { commonDir: string; topLevel: string | null } | null {
  let out: string;
  try {
    // Not `--show-toplevel`: it fails where there is no work tree, and the repository (so its
    // database) would be lost with it. `--show-cdup` prints the way up from a folder inside the
    // work tree, the work tree itself from outside it, and nothing when there is none.
    out = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir', '--is-inside-work-tree', '--show-cdup'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
  // Not trimmed: at the top level the way up is an empty line.
  const [commonDir, inside, up = ''] = out.replace(/\r?\n$/, '').split(/\r?\n/);
  if (!commonDir) return null;
  // git resolves `cwd` through symlinks before counting the way up, so the real path is the start.
  const topLevel = inside === 'true' ? resolve(realpathSync.native(cwd), up) : up ? resolve(cwd, up) : null;
  return { commonDir: resolve(cwd, commonDir), topLevel };
}

/**
 * The database of docs/protocol.md section 1: `<git common dir>/baton/baton.db`, shared by every
 * worktree and found from anywhere in the repository, a bare one or `.git` included;
 * `<cwd>/.baton/baton.db` outside git; `db` (or `BATON_DB`) wins.
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
  const topLevel = git?.topLevel ?? null;
  return { dbPath, repoRoot: topLevel, worktree: topLevel, commonDir: git?.commonDir ?? null };
}
