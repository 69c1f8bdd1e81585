import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Baton } from '../shared/baton.js';
import { DEFAULTS } from '../shared/config.js';
import { writerSocketFor } from '../shared/forwarding/socket-path.js';
import { installHook } from '../shared/git-hooks.js';
import { openFileStore } from '../shared/store/file/index.js';
import { generateIssues } from './generate.js';
import { round, summarize } from './stats.js';

/*
 * The push guard's cost, runnable alone: `npm run build && node bench/build.mjs && node
 * dist/bench/guard.js [--issues 10000] [--pushes 15]`. In a scratch repository whose
 * database holds `--issues` generated issues (and a few hundred leases' tokens), it times
 * `git push` of a new commit to a bare remote with the guard's hook and without it (the
 * same repository with `core.hooksPath` pointed at an empty folder), alternating one with
 * the other so that a loaded machine weighs on both alike; then the check alone (`baton
 * guard check` with git's line on stdin) and a bare `node -e 0` as the floor of any hook
 * written in Node: first with no agent at work, then with a `baton serve` holding the
 * database, as while agents work (the check then asks it). Figures are wall-clock
 * milliseconds on stdout.
 */

const CLI = resolve(__dirname, '..', 'cli.js');
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};
/** Leases taken and finished before measuring, so that the tokens table is not empty. */
const FINISHED_LEASES = 300;

function options() {
  const { values } = parseArgs({ options: { issues: { type: 'string', default: '10000' }, pushes: { type: 'string', default: '15' } } });
  const issues = Number(values.issues);
  const pushes = Number(values.pushes);
  if (!Number.isInteger(issues) || issues < FINISHED_LEASES + 1 || !Number.isInteger(pushes) || pushes < 1) {
    process.stderr.write(`usage: node dist/bench/guard.js [--issues n > ${FINISHED_LEASES}] [--pushes n >= 1]\n`);
    process.exit(2);
  }
  return { issues, pushes };
}

/**
 * A `baton serve` in the main worktree, past its handshake, once it holds the database and
 * listens for the others (its socket exists): what runs while agents work.
 */
async function startServer(cwd: string, dbPath: string): Promise<ChildProcess> {
  const server = spawn(process.execPath, [CLI, 'serve'], { cwd, env: { ...process.env, BATON_AGENT: 'bench-agent' }, stdio: ['pipe', 'ignore', 'inherit'] });
  const send = (message: object) => server.stdin!.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const socket = writerSocketFor(dbPath);
  const deadline = Date.now() + 20_000;
  while (!socket || !existsSync(socket)) {
    if (Date.now() > deadline) throw new Error('the server did not start writing for the others');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server;
}

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const { issues, pushes } = options();
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-guard-'));
  try {
    const main = join(dir, 'main');
    const remote = join(dir, 'remote.git');
    const noHooks = join(dir, 'no-hooks');
    mkdirSync(noHooks);
    const git = (args: string[], cwd = main) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    execFileSync('git', ['init', '-q', '-b', 'main', main], { env: GIT_ENV });
    execFileSync('git', ['init', '-q', '--bare', remote], { env: GIT_ENV });
    git(['commit', '-q', '--allow-empty', '-m', 'first']);
    git(['remote', 'add', 'origin', remote]);
    const worktree = git(['rev-parse', '--show-toplevel']);

    process.stderr.write(`generating ${issues} issues...\n`);
    const dbPath = join(main, '.git', 'baton', 'baton.db');
    mkdirSync(join(main, '.git', 'baton'), { recursive: true });
    const store = await openFileStore({ path: dbPath, compactAfterBytes: 1 });
    await generateIssues(store, issues, { seed: issues });
    const baton = new Baton({ store, caller: { agent: 'bench', session: 'bench-session', renewer: null, worktree }, config: DEFAULTS });
    for (let i = 0; i < FINISHED_LEASES; i++) {
      const claimed = await baton.nextIssue({});
      if (!claimed.ok || !claimed.value) throw new Error('the generated database ran out of ready issues');
      await baton.done({ key: claimed.value.issue.key, claimToken: claimed.value.lease.claimToken! });
    }
    const held = await baton.nextIssue({});
    if (!held.ok || !held.value) throw new Error('no issue left to hold');
    const branch = held.value.lease.branch;
    await store.close();

    git(['switch', '-q', '-c', branch]);
    git(['push', '-q', 'origin', branch]);
    installHook(main, { node: process.execPath, script: CLI });

    let n = 0;
    const pushOnce = (hooked: boolean, into: { withGuard: number[]; without: number[] }) => {
      writeFileSync(join(main, 'work.txt'), `step ${++n}\n`);
      git(['add', 'work.txt']);
      git(['commit', '-q', '-m', `step ${n}`]);
      const args = hooked ? ['push', '-q', 'origin', branch] : ['-c', `core.hooksPath=${noHooks}`, 'push', '-q', 'origin', branch];
      const ms = timed(() => {
        const run = spawnSync('git', args, { cwd: main, env: GIT_ENV, encoding: 'utf8' });
        if (run.status !== 0) throw new Error(`git push failed: ${run.stderr}`);
      });
      (hooked ? into.withGuard : into.without).push(ms);
    };
    /** Pushes with and without the hook, taking turns, then the check alone and Node's floor. */
    const measure = () => {
      const times = { withGuard: [] as number[], without: [] as number[], check: [] as number[], floor: [] as number[] };
      pushOnce(true, { withGuard: [], without: [] }); // warms the file cache and V8's code cache of the CLI
      for (let i = 0; i < pushes; i++) {
        pushOnce(i % 2 === 0, times);
        pushOnce(i % 2 !== 0, times);
      }
      const head = git(['rev-parse', 'HEAD']);
      const line = `refs/heads/${branch} ${head} refs/heads/${branch} ${'0'.repeat(40)}\n`;
      for (let i = 0; i < pushes; i++) {
        times.check.push(
          timed(() => {
            const run = spawnSync(process.execPath, [CLI, 'guard', 'check', 'origin', remote], { cwd: main, input: line, encoding: 'utf8' });
            if (run.status !== 0) throw new Error(`guard check refused the holder's push: ${run.stderr}`);
          }),
        );
        times.floor.push(timed(() => spawnSync(process.execPath, ['-e', '0'])));
      }
      return times;
    };

    // No agent at work: the check opens the store itself.
    const alone = measure();
    // Agents at work: their server holds the database, and the check asks it.
    const server = await startServer(main, dbPath);
    let served: ReturnType<typeof measure>;
    try {
      served = measure();
    } finally {
      server.kill('SIGTERM');
    }

    const rows = [
      ['git push, no hook', summarize(alone.without)],
      ['git push, guard', summarize(alone.withGuard)],
      ['guard check alone', summarize(alone.check)],
      ['with a server: git push, no hook', summarize(served.without)],
      ['with a server: git push, guard', summarize(served.withGuard)],
      ['with a server: guard check alone', summarize(served.check)],
      ['node -e 0', summarize([...alone.floor, ...served.floor])],
    ] as const;
    const out = [
      `push guard at ${issues} issues (${FINISHED_LEASES} finished leases, 1 live), ${pushes} pushes each, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}`,
      `${'what'.padEnd(34)} p50 ms   max ms`,
      ...rows.map(([what, s]) => `${what.padEnd(34)} ${String(round(s.p50)).padStart(6)} ${String(round(s.max)).padStart(8)}`),
      `added to a push (p50 with - p50 without): ${round(rows[1][1].p50 - rows[0][1].p50)} ms with no server, ${round(rows[4][1].p50 - rows[3][1].p50)} ms with one`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
