import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULTS } from '../shared/config.js';
import { Baton } from '../shared/baton.js';
import { openFileStore } from '../shared/store/file/index.js';
import { buildDataset, copyForRun } from './dataset.js';
import { round, summarize } from './stats.js';
import { StdioClient } from './stdio-client.js';

/*
 * `node dist/bench/hook-latency.js [--issues 10000] [--runs 60]` (after `npm run build &&
 * node bench/build.mjs`): the liveness section of the benchmark, runnable alone.
 *
 * 1. `baton hook claude` and `baton hook cursor` end to end, spawned as Claude Code and
 *    Cursor spawn them (a child of the process whose child is also the agent's server): a
 *    tool event (PostToolUse, afterMCPExecution) when a renewal is due, the same when it
 *    is not (the common case within a burst of tool calls), and a stop that asks for a
 *    checkpoint. Beside them, in the same rounds, bare `node -e 0` and `baton --version`
 *    (the whole CLI).
 * 2. What recording activity costs a read call, in one process on the same database: a
 *    read (get_issue) alone, with the lost-lease look-up every answer makes, and with a
 *    durable write of the activity after each read (what the throttled writer avoids).
 */

const { values } = parseArgs({ options: { issues: { type: 'string', default: '10000' }, runs: { type: 'string', default: '60' } } });
const ISSUES = Number(values.issues);
const RUNS = Number(values.runs);
const CLI = resolve(__dirname, '..', 'cli.js');

function timeSpawn(args: string[], env: NodeJS.ProcessEnv, input: string): Promise<{ ms: number; stdout: string }> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', fail);
    child.on('close', () => done({ ms: Number(process.hrtime.bigint() - started) / 1e6, stdout }));
    child.stdin.end(input);
  });
}

function line(name: string, ms: number[]): string {
  const s = summarize(ms);
  return `${name.padEnd(56)} p50 ${String(round(s.p50)).padStart(7)} ms   p99 ${String(round(s.p99)).padStart(7)} ms   (n=${s.count})`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-hook-bench-'));
  try {
    process.stderr.write(`building ${ISSUES} issues...\n`);
    const dataset = await buildDataset(dir, ISSUES, () => undefined);
    const db = await copyForRun(dataset, join(dir, 'run'), 'baton');
    // A short lease and idle limit make a renewal due after a second's pause (a sixth of
    // the lease, a quarter of the limit): the "due" runs below then renew every time.
    const env: NodeJS.ProcessEnv = { ...process.env, BATON_DB: db, BATON_AGENT: 'bench-agent', BATON_LEASE_SECONDS: '6', BATON_IDLE_SECONDS: '4' };
    delete env.BATON_DATABASE_URL;

    const server = await StdioClient.start({ command: process.execPath, args: [CLI, 'serve'], cwd: dir, env, clientName: 'claude-code' });
    const claimed = await server.callTool('next_issue', {});
    if (claimed.isError) throw new Error('could not claim');
    const event = (name: string, more: object) => JSON.stringify({ session_id: 's', transcript_path: '/dev/null', cwd: dir, hook_event_name: name, ...more });
    const post = event('PostToolUse', { tool_name: 'Edit', tool_input: {}, tool_response: {}, tool_use_id: 't' });
    const stop = event('Stop', { stop_hook_active: false });
    const cursorEvent = (name: string, more: object) =>
      JSON.stringify({ conversation_id: 'c', generation_id: 'g', model: 'm', hook_event_name: name, cursor_version: '1.7', workspace_roots: [dir], user_email: null, ...more });
    const clients = {
      claude: { tool: post, stop, asked: '"block"' },
      cursor: {
        tool: cursorEvent('afterMCPExecution', { tool_name: 'get_issue', tool_input: '{}', result_json: '{}', duration: 5 }),
        stop: cursorEvent('stop', { status: 'completed', loop_count: 0 }),
        asked: '"followup_message"',
      },
    };

    // NODE_EXTRA_CA_CERTS makes every Node process load that bundle before it runs a line
    // (about 2 MB and tens of milliseconds a start): where it is set, as behind a TLS proxy,
    // the floor and a tool event are also timed without it, as on a machine that has none.
    const withoutCa = env.NODE_EXTRA_CA_CERTS ? { ...env, NODE_EXTRA_CA_CERTS: undefined } : undefined;
    const times: Record<string, number[]> = { bare: [], version: [], bareNoCa: [], claudeNoCa: [] };
    for (const client of Object.keys(clients)) for (const kind of ['due', 'notDue', 'stop']) times[`${client}.${kind}`] = [];
    for (let i = 0; i < RUNS; i++) {
      times.bare.push((await timeSpawn(['-e', '0'], env, '')).ms);
      times.version.push((await timeSpawn([CLI, '--version'], env, '')).ms);
      // Each client goes first every other round, so that neither gains from running second.
      const order = i % 2 === 0 ? (['claude', 'cursor'] as const) : (['cursor', 'claude'] as const);
      for (const client of order) {
        const { tool, stop: stopInput, asked } = clients[client];
        // Leaves the session quiet and the lease stale, so that this tool event renews.
        await new Promise((r) => setTimeout(r, 1_100));
        times[`${client}.due`].push((await timeSpawn([CLI, 'hook', client], env, tool)).ms);
        times[`${client}.notDue`].push((await timeSpawn([CLI, 'hook', client], env, tool)).ms);
        const stopped = await timeSpawn([CLI, 'hook', client], env, stopInput);
        if (!stopped.stdout.includes(asked)) throw new Error(`${client}'s stop was not asked for a checkpoint: ${stopped.stdout}`);
        times[`${client}.stop`].push(stopped.ms);
      }
      if (withoutCa) {
        times.bareNoCa.push((await timeSpawn(['-e', '0'], withoutCa, '')).ms);
        times.claudeNoCa.push((await timeSpawn([CLI, 'hook', 'claude'], withoutCa, clients.claude.tool)).ms);
      }
    }
    await server.close();

    const out = [
      `baton hook claude and baton hook cursor at ${ISSUES} issues (file store), ${RUNS} rounds, end to end (spawn to exit):`,
      line('node -e 0 (the floor of any process)', times.bare),
      line('baton --version (the whole CLI bundle)', times.version),
      line('hook claude PostToolUse (renewal may be due)', times['claude.due']),
      line('hook claude PostToolUse right after (nothing due)', times['claude.notDue']),
      line('hook claude Stop (blocks: no checkpoint)', times['claude.stop']),
      line('hook cursor afterMCPExecution (renewal may be due)', times['cursor.due']),
      line('hook cursor afterMCPExecution right after (nothing due)', times['cursor.notDue']),
      line('hook cursor stop (follow-up: no checkpoint)', times['cursor.stop']),
      ...(withoutCa
        ? [
            `without NODE_EXTRA_CA_CERTS (set here to ${env.NODE_EXTRA_CA_CERTS}), in the same rounds:`,
            line('node -e 0', times.bareNoCa),
            line('hook claude PostToolUse (nothing due)', times.claudeNoCa),
          ]
        : []),
      '',
      ...(await readCosts(db)),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A read call's cost in the core, alone and with what liveness adds to it, interleaved call by call. */
async function readCosts(db: string): Promise<string[]> {
  const store = await openFileStore({ path: db });
  try {
    const caller = { agent: 'reader', session: 'reader-session', renewer: null, worktree: null };
    const baton = new Baton({ store, caller, config: DEFAULTS });
    await baton.registerSession({ pid: process.pid, host: 'bench' });
    const keys = Array.from({ length: 50 }, (_, i) => `BAT-${1 + ((i * 197) % ISSUES)}`);
    const times: Record<string, number[]> = { read: [], notices: [], write: [] };
    const time = async (fn: () => Promise<unknown>) => {
      const t = process.hrtime.bigint();
      await fn();
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    for (let round = 0; round < 20; round++) {
      for (const key of keys) {
        times.read.push(await time(() => baton.getIssue({ key })));
        times.notices.push(await time(async () => (await baton.getIssue({ key }), await baton.leaseNotices())));
        times.write.push(await time(async () => (await baton.getIssue({ key }), await baton.markActive())));
      }
    }
    return [
      `a read call in the core (get_issue) at ${ISSUES} issues, ${times.read.length} calls each, interleaved:`,
      line('get_issue alone', times.read),
      line('get_issue + lost-lease look-up (every call)', times.notices),
      line('get_issue + a durable activity write', times.write),
    ];
  } finally {
    await store.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
