import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { hostname, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { WriteRoute } from '../../shared/forwarding/write-route.js';
import { CLIENT_CONFIG_FILES, type ClientConfigFile, parseJsonc, SERVER_ENV, SERVER_NAME, SERVERS_KEY } from '../../shared/client-config.js';
import { isProcessAlive } from '../../shared/sessions.js';
import { lockOwner, storePaths } from '../../shared/store/file-access.js';
import type { ServerEntry } from './mcp-probe.js';
import { probeServer } from './mcp-probe.js';

/** One finding of `baton doctor`; a problem carries the fix. */
export interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

export interface Worktree {
  path: string;
  branch: string | null;
  /** Its folder is gone; `git worktree prune` forgets it. */
  prunable: boolean;
}

/** `git worktree list --porcelain`: every checkout sharing this repository (and so its database). */
export function listWorktrees(cwd: string): Worktree[] {
  let out: string;
  try {
    out = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return [];
  }
  const worktrees: Worktree[] = [];
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (!path) continue;
    const branch = lines.find((l) => l.startsWith('branch '))?.slice('branch refs/heads/'.length) ?? null;
    worktrees.push({ path, branch, prunable: lines.some((l) => l.startsWith('prunable')) });
  }
  return worktrees;
}

/**
 * The file store's lock and temporary files: a lock owner whose process is gone, or
 * temporary files a killed writer left. Both are recovered by the next write; the check
 * says so, and which file to delete to be rid of them now.
 */
export function checkLockFiles(dbPath: string, now = Date.now()): Check {
  const paths = storePaths(dbPath);
  const problems: string[] = [];
  const fixes: string[] = [];
  let owner: ReturnType<typeof lockOwner>;
  try {
    owner = existsSync(paths.lockDir) ? lockOwner(dbPath) : undefined;
  } catch (error) {
    return { name: 'lock files', status: 'warn', detail: `cannot read ${paths.lockDir}: ${(error as Error).message}` };
  }
  const ownerFile = join(paths.lockDir, 'owner');
  if (owner && owner !== 'blank' && owner.host === hostname() && !isProcessAlive(owner.pid)) {
    problems.push(`the lock is held by process ${owner.pid}, which is gone`);
    fixes.push(`nothing is needed: the next write recovers it; or delete ${ownerFile}`);
  } else if (owner && owner !== 'blank' && now - owner.at > 30_000) {
    problems.push(`process ${owner.pid} on ${owner.host} has held the lock for ${Math.round((now - owner.at) / 1000)} s`);
    fixes.push(`check that process; if it is hung, stop it (the lock is then recovered)`);
  } else if (owner === 'blank') {
    const age = now - (statOrNull(ownerFile)?.mtimeMs ?? now);
    if (age > 5_000) {
      problems.push('an empty lock owner file was left by a process killed while taking the lock');
      fixes.push(`nothing is needed: the next write recovers it; or delete ${ownerFile}`);
    }
  }
  const leftovers = existsSync(paths.dir) ? readdirSync(paths.dir).filter((name) => name.startsWith(paths.tmpPrefix)) : [];
  const stale = leftovers.filter((name) => !isProcessAlive(Number(/^(\d+)-/.exec(name.slice(paths.tmpPrefix.length))?.[1] ?? 0)));
  if (stale.length) {
    problems.push(`${stale.length} temporary file${stale.length === 1 ? '' : 's'} left by killed writers`);
    fixes.push(`removed by the next write; or delete ${join(paths.dir, `${paths.tmpPrefix}*`)}`);
  }
  if (problems.length === 0) return { name: 'lock files', status: 'ok', detail: owner ? `held by process ${(owner as { pid: number }).pid ?? '?'} now` : 'none stale' };
  return { name: 'lock files', status: 'warn', detail: problems.join('; '), fix: fixes.join('; ') };
}

/**
 * Whether a `baton serve` writes for the others. Nothing here needs fixing: without one,
 * every process writes under the lock itself, and a socket left by a server that died is
 * replaced by the next server to start.
 */
export async function checkWriter(dbPath: string): Promise<Check> {
  const socket = WriteRoute.socketFor(dbPath);
  if (socket === undefined) return { name: 'writer', status: 'ok', detail: 'the database path is too long for a socket: every server writes under the lock itself' };
  const reached = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const connection = connect(socket);
    connection.setTimeout(2_000, () => connection.destroy(Object.assign(new Error('no answer within 2 s'), { code: 'ETIMEDOUT' })));
    connection.once('connect', () => {
      connection.destroy();
      resolve(undefined);
    });
    connection.once('error', resolve);
  });
  if (!reached) return { name: 'writer', status: 'ok', detail: `a server writes for the others (${socket})` };
  if (reached.code === 'ENOENT') return { name: 'writer', status: 'ok', detail: 'none running: the first `baton serve` to start writes for the others' };
  if (reached.code === 'ECONNREFUSED') return { name: 'writer', status: 'ok', detail: 'none running: the next `baton serve` to start replaces the socket a stopped one left' };
  return {
    name: 'writer',
    status: 'warn',
    detail: `cannot reach ${socket} (${reached.code ?? reached.message}): servers write under the lock themselves`,
    fix: 'nothing is needed; if it persists, stop every `baton serve` of this database and delete that file',
  };
}

/**
 * Whether this user can write the database. Reads work from read-only files, so the
 * store opens and answers, yet every claim, checkpoint and `baton add` fails with
 * STORE_UNAVAILABLE. A write appends to the log, takes the lock (a folder beside the
 * database) and renames new files into the folder; before the database exists, the
 * nearest existing folder on its path is where it will be created.
 */
export function checkWritable(dbPath: string): Check {
  const paths = storePaths(dbPath);
  const exists = existsSync(paths.snapshot);
  const targets = exists ? [paths.dir, paths.log, paths.lockDir].filter((p) => existsSync(p)) : [nearestExisting(paths.dir)];
  const user = currentUser();
  const denied = targets.flatMap((path) => {
    const problem = cannotWrite(path, !exists);
    return problem ? [`${path} ${problem}`] : [];
  });
  if (denied.length === 0) {
    return { name: 'permissions', status: 'ok', detail: exists ? `writable by ${user}` : `${user} can create it in ${targets[0]}` };
  }
  return {
    name: 'permissions',
    status: 'fail',
    detail: `${denied.join('; ')}: ${exists ? 'every write' : 'creating the database'} fails with STORE_UNAVAILABLE`,
    fix: `give the user ${user} write access to ${exists ? 'the database folder and its files' : 'that folder'} (chown or chmod u+w), or set BATON_DB to a path that user can write`,
  };
}

/** Why this process cannot write `path`, or null; `mustBeFolder` when files are to be created in it. */
function cannotWrite(path: string, mustBeFolder: boolean): string | null {
  if (mustBeFolder && !statSync(path).isDirectory()) return 'is not a folder';
  try {
    accessSync(path, constants.W_OK);
    return null;
  } catch (error) {
    return `is not writable (${(error as NodeJS.ErrnoException).code})`;
  }
}

function nearestExisting(path: string): string {
  while (!existsSync(path) && dirname(path) !== path) path = dirname(path);
  return path;
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

function statOrNull(path: string): { mtimeMs: number } | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

const CLIENT: Record<ClientConfigFile, string> = { '.mcp.json': 'Claude Code', '.vscode/mcp.json': 'VS Code' };

/**
 * Each client configuration file: present, holding a Baton entry, and that entry
 * starting a server that answers `tools/list`.
 */
export async function checkClientConfigs(root: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [];
  for (const file of CLIENT_CONFIG_FILES) {
    const path = join(root, file);
    const name = file;
    const key = SERVERS_KEY[file];
    const client = CLIENT[file];
    if (!existsSync(path)) {
      checks.push({ name, status: 'warn', detail: `missing: ${client} will not start Baton here`, fix: 'run `baton init`' });
      continue;
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = parseJsonc(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      checks.push({ name, status: 'fail', detail: `${path} is not valid JSON: ${(error as Error).message}`, fix: `correct ${path}, then run \`baton init\`` });
      continue;
    }
    const servers = (parsed?.[key] ?? {}) as Record<string, ServerEntry>;
    const found = findBatonEntry(servers);
    if (!found) {
      checks.push({ name, status: 'warn', detail: `no Baton server in "${key}"`, fix: 'run `baton init` (it keeps your other entries)' });
      continue;
    }
    const entry = substituteVariables(found.entry, root);
    const probe = await probeServer(entry, { cwd: root, env });
    if (!probe.ok) {
      checks.push({
        name,
        status: 'fail',
        detail: `"${found.name}" (${[entry.command, ...(entry.args ?? [])].join(' ')}) does not work: ${probe.reason}`,
        fix: 'build Baton (npm run build) if the script is missing, then run `baton init` again',
      });
      continue;
    }
    const works = `"${found.name}" starts a server answering ${probe.tools.length} tools (${probe.ms} ms)`;
    // An entry written before SERVER_ENV existed, or by hand, works but costs memory.
    const missing = Object.entries(SERVER_ENV).filter(([key, value]) => entry.env?.[key] !== value);
    if (missing.length === 0) {
      checks.push({ name, status: 'ok', detail: works });
      continue;
    }
    const settings = missing.map(([key, value]) => `${key}=${value}`).join(' ');
    checks.push({
      name,
      status: 'warn',
      detail: `${works}, but without ${settings} in its env, so every server needs 5–10 MB more`,
      fix:
        found.name === SERVER_NAME
          ? 'run `baton init` (it updates the entry and keeps your settings)'
          : `add ${missing.map(([key, value]) => `"${key}": "${value}"`).join(', ')} to the "env" of "${found.name}"`,
    });
  }
  return checks;
}

/** The entry `baton init` writes, else one whose command line runs `baton serve` or a `cli.js serve`. */
function findBatonEntry(servers: Record<string, ServerEntry>): { name: string; entry: ServerEntry } | null {
  if (servers[SERVER_NAME]?.command) return { name: SERVER_NAME, entry: servers[SERVER_NAME] };
  for (const [name, entry] of Object.entries(servers)) {
    const line = [entry?.command, ...(entry?.args ?? [])].join(' ');
    if (/\bbaton\b.*\bserve\b|cli\.js serve/.test(line)) return { name, entry };
  }
  return null;
}

/** VS Code's `${workspaceFolder}` is the repository here; other variables are left as they are. */
function substituteVariables(entry: ServerEntry, root: string): ServerEntry {
  const sub = (s: string) => s.replaceAll('${workspaceFolder}', root);
  return {
    command: sub(entry.command),
    args: entry.args?.map(sub),
    env: entry.env && Object.fromEntries(Object.entries(entry.env).map(([k, v]) => [k, sub(String(v))])),
    cwd: entry.cwd && sub(entry.cwd),
  };
}
