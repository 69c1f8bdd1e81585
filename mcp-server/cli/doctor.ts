import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { loadConfig } from '../../shared/config.js';
import { resolveLocation } from '../../shared/location.js';
import { isSessionAlive } from '../../shared/sessions.js';
import { clockOffsetIn } from '../../shared/store/clock-offset.js';
import type { StoreInfo } from '../../shared/store/store.js';
import type { ClaimView, SessionRecord } from '../../shared/types.js';
import type { CliDeps, CommandContext, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { CliExit, EXIT } from './exit.js';
import type { Check, Worktree } from './doctor-checks.js';
import { checkClientConfigs, checkLockFiles, checkWritable, checkWriter, listWorktrees } from './doctor-checks.js';
import { countdown, secondsUntil } from './render.js';
import { ago } from './tables.js';

/** A clock further off the database's than this is worth a warning: NTP keeps machines within milliseconds. */
const CLOCK_OFFSET_WARN_MS = 5_000;

interface DoctorOptions extends CommonOptions {
  probe: boolean;
}

/** What `baton doctor --json` prints. */
export interface DoctorReport {
  ok: boolean;
  backend: 'file' | 'postgres';
  database: string;
  schemaVersion: number | null;
  worktrees: Worktree[];
  sessions: (SessionRecord & { alive: boolean })[];
  claims: ClaimView[];
  checks: Check[];
}

/** `baton doctor`: where the data is, who uses it, and what is wrong, each problem with its fix. */
export function registerDoctorCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('doctor')
      .summary('check the setup and say how to fix what is wrong')
      .description(
        'check the setup: database and backend, connection, schema, worktrees sharing it, live sessions and leases, ' +
          'stale lock files, whether a server writes for the others, and whether the MCP configuration starts a working server',
      )
      .option('--no-probe', 'do not start the configured servers to call tools/list'),
  ).action(
    action<DoctorOptions, []>(deps, async (ctx, opts) => {
      const report = await diagnose(ctx, opts);
      if (ctx.json) ctx.printJson(report);
      else ctx.print(renderReport(ctx, report));
      if (!report.ok) throw new CliExit(EXIT.refused);
    }),
  );
}

async function diagnose(ctx: CommandContext, opts: DoctorOptions): Promise<DoctorReport> {
  const { env, cwd } = ctx.deps;
  const location = resolveLocation({ cwd, db: opts.db, env });
  const backend = env.BATON_DATABASE_URL ? 'postgres' : 'file';
  const checks: Check[] = [];
  const report: DoctorReport = { ok: true, backend, database: location.dbPath, schemaVersion: null, worktrees: [], sessions: [], claims: [], checks };

  const config = loadConfig({ repoRoot: location.repoRoot, env });
  if (!config.ok) {
    // Every server and command refuses to start on a bad setting: nothing else can work until it is fixed.
    checks.push({ name: 'settings', status: 'fail', detail: config.error.message, fix: 'correct that value (in .baton.json or the environment)' });
  } else {
    const { prefix, leaseSeconds, requireReview } = config.value;
    checks.push({ name: 'settings', status: 'ok', detail: `keys ${prefix}-<n>, leases of ${countdown(leaseSeconds)}${requireReview ? ', review required' : ''}` });
  }

  // The store opens and reads from files this user cannot write: only a write would tell.
  const writable = backend === 'file' ? checkWritable(location.dbPath) : null;
  if (!config.ok) {
    // Opening would fail on the same setting; the store is not looked at.
  } else if (backend === 'file' && !existsSync(location.dbPath)) {
    checks.push({
      name: 'database',
      status: 'warn',
      detail: `none yet at ${location.dbPath}`,
      fix: writable?.status === 'fail' ? 'see permissions' : 'run `baton init`, or start any agent: it is created on first use',
    });
  } else {
    await inspectStore(ctx, report);
  }
  if (writable) checks.push(writable);

  if (location.commonDir) {
    report.worktrees = listWorktrees(cwd);
    const shared = opts.db || env.BATON_DB ? ' (BATON_DB is set: only worktrees that set the same path share it)' : '';
    checks.push({ name: 'worktrees', status: 'ok', detail: `${report.worktrees.length} share this database${shared}` });
    const gone = report.worktrees.filter((w) => w.prunable);
    if (gone.length) {
      checks.push({ name: 'worktrees', status: 'warn', detail: `${gone.map((w) => w.path).join(', ')}: folder gone`, fix: 'git worktree prune' });
    }
  } else {
    checks.push({ name: 'worktrees', status: 'warn', detail: `${cwd} is not in a git repository: the database is per folder`, fix: 'run Baton inside the repository' });
  }

  if (backend === 'file') checks.push(checkLockFiles(location.dbPath), await checkWriter(location.dbPath));
  // Client configurations live in a worktree; a bare repository or .git has none to check.
  if (opts.probe && (location.repoRoot || !location.commonDir)) checks.push(...(await checkClientConfigs(location.repoRoot ?? resolve(cwd), env)));
  report.ok = checks.every((c) => c.status !== 'fail');
  return report;
}

/** Backend, connection, schema, sessions and leases: everything that needs the store open. */
async function inspectStore(ctx: CommandContext, report: DoctorReport): Promise<void> {
  const { checks } = report;
  const started = Date.now();
  let opened;
  try {
    opened = await ctx.open({ agent: 'baton-doctor' });
  } catch (error) {
    const reason = error instanceof CliExit && error.error ? `${error.error.code}: ${error.error.message}` : String(error);
    checks.push({
      name: 'connection',
      status: 'fail',
      detail: reason,
      fix: report.backend === 'postgres' ? 'check BATON_DATABASE_URL and that the server accepts connections' : 'see the reason; a corrupt file is kept as it is: move it aside to start afresh',
    });
    return;
  }
  const { baton, store } = opened;
  let info: StoreInfo;
  try {
    info = await store.info();
  } catch (error) {
    checks.push({ name: 'connection', status: 'fail', detail: (error as Error).message, fix: 'see the reason' });
    return;
  }
  report.database = info.location;
  report.schemaVersion = info.schemaVersion;
  const sizes = info.sizes ? `, ${kb(info.sizes.snapshot)} snapshot + ${kb(info.sizes.log)} log` : '';
  checks.push({ name: 'database', status: 'ok', detail: `${info.location} (${info.backend === 'file' ? 'file store' : 'PostgreSQL'}${sizes})` });
  checks.push({ name: 'connection', status: 'ok', detail: `opened and answered in ${Date.now() - started} ms` });
  checks.push({ name: 'schema', status: 'ok', detail: `version ${info.schemaVersion}` });
  const offset = clockOffsetIn(info);
  if (Math.abs(offset) > CLOCK_OFFSET_WARN_MS) {
    checks.push({
      name: 'clock',
      status: 'warn',
      detail: `this machine's clock is ${ago(Math.abs(offset))} ${offset > 0 ? 'ahead of' : 'behind'} the database's; leases follow the database clock, and baton's countdowns are corrected for it`,
      fix: "sync this machine's clock (NTP): logs and anything else that shows times use it",
    });
  }

  const sessions = await baton.listSessions();
  const claims = await baton.listClaims();
  if (!sessions.ok || !claims.ok) {
    const error = !sessions.ok ? sessions.error : !claims.ok ? claims.error : null;
    checks.push({ name: 'connection', status: 'fail', detail: `${error?.code}: ${error?.message}`, fix: 'see the reason' });
    return;
  }
  report.claims = claims.value.claims;
  // Sessions that ended cleanly are history; those without an end are running, or died.
  report.sessions = sessions.value.sessions.filter((s) => !s.endedAt).map((s) => ({ ...s, alive: isSessionAlive(s) }));
  const live = report.sessions.filter((s) => s.alive && s.agent !== 'baton-doctor');
  const died = report.sessions.filter((s) => !s.alive);
  checks.push({
    name: 'sessions',
    status: 'ok',
    detail: live.length
      ? `${live.length} live: ${live.map((s) => `${s.agent} (pid ${s.pid}${s.host !== hostname() ? ` on ${s.host}` : ''})`).join(', ')}`
      : 'none live',
  });
  const orphaned = report.claims.filter((c) => died.some((s) => s.id === c.session));
  if (orphaned.length) {
    checks.push({
      name: 'sessions',
      status: 'warn',
      detail: `${orphaned.map((c) => c.key).join(', ')} held by servers that died; they expire on their own`,
      fix: 'wait for the expiry, or `baton release KEY` to free one now',
    });
  }
  const now = Date.now() - offset;
  checks.push({
    name: 'leases',
    status: 'ok',
    detail: report.claims.length
      ? `${report.claims.length} live: ${report.claims.map((c) => `${c.key} ${c.agent} ${countdown(secondsUntil(c.expiresAt, now))}`).join(', ')}`
      : 'none live',
  });
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${Math.round(bytes / 1024)} KB`;
}

function renderReport(ctx: CommandContext, report: DoctorReport): string {
  const c = ctx.out;
  const mark = { ok: c.green('ok  '), warn: c.yellow('warn'), fail: c.red('FAIL') };
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = report.checks.flatMap((check) => [
    `${mark[check.status]}  ${check.name.padEnd(width)}  ${check.detail}`,
    ...(check.fix ? [`      ${' '.repeat(width)}  ${c.dim('fix:')} ${check.fix}`] : []),
  ]);
  const verdict = report.ok ? c.green('No problems that stop Baton.') : c.red('Problems found; see the fixes above.');
  return `${lines.join('\n')}\n${verdict}\n`;
}
