import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVER_ENV } from '../shared/client-config.js';
import { WriteRoute } from '../shared/forwarding/write-route.js';
import { parseBuilds } from './builds.js';
import { processCpuMs, round, summarize } from './stats.js';
import { StdioClient } from './stdio-client.js';

/*
 * `node dist/bench/call-cost.js [--builds a=dist/cli.js,b=...] [--calls 2000] [--rounds 2]
 * [--pause ms] [--issues 500]` (after `npm run build && node bench/build.mjs`): what one
 * tool call costs each process it passes through. The saturation runs give the CPU of
 * all servers together; this says which of them spends it, so that a change can be
 * weighed where it acts.
 *
 * Three servers on a new database, started one after another as agents start them: the
 * first becomes the writer and creates the issues (through its own tools, so that builds
 * of other schema versions compare too), the second becomes its standby and keeps a copy,
 * the third is a thin server that sends its calls on. One agent, this process as a bare
 * JSON-RPC client, calls the thin server back to back, or with `--pause` before each call
 * as agents at a human pace do, after a fifth as many calls unmeasured. The CPU of each
 * process over the calls (user and system, from /proc, in 10 ms ticks) is divided by
 * their number, and the agent's wait for each call is timed. Measured: a read
 * (get_issue), a renewal (heartbeat) and the saturation runs' cycle (next_issue,
 * heartbeat, checkpoint, done, reopen) as one call. Builds take turns round by round,
 * each on a database of its own. What a call costs hardly depends on the size of the
 * database; a server's memory does (`--only pace`).
 */

/** The command line, checked: bad input stops the run with one line saying why. */
function readOptions() {
  try {
    const { values } = parseArgs({
      options: {
        builds: { type: 'string', default: `this=${resolve(__dirname, '..', 'cli.js')}` },
        issues: { type: 'string', default: '500' },
        calls: { type: 'string', default: '2000' },
        rounds: { type: 'string', default: '2' },
        pause: { type: 'string', default: '0' },
      },
    });
    const wholeNumber = (name: 'issues' | 'calls' | 'rounds' | 'pause', min: number): number => {
      const n = Number(values[name]);
      if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be a whole number of at least ${min}, not "${values[name]}"`);
      return n;
    };
    const builds = parseBuilds(values.builds);
    if (!builds) throw new Error(`--builds takes label=path pairs, separated by commas, not "${values.builds}"`);
    return { builds, issues: wholeNumber('issues', 1), calls: wholeNumber('calls', 1), rounds: wholeNumber('rounds', 1), pauseMs: wholeNumber('pause', 0) };
  } catch (error) {
    process.stderr.write(`call-cost: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
}
const { builds: BUILDS, issues: ISSUES, calls: CALLS, rounds: ROUNDS, pauseMs: PAUSE_MS } = readOptions();

/** How long the second server takes to offer itself as the standby and load its copy (standby.ts waits 1 s). */
const STANDBY_SETTLES_MS = 2500;
const sleep = (ms: number) => new Promise((settle) => setTimeout(settle, ms));

type Call = (agent: StdioClient) => Promise<void>;

async function tool(agent: StdioClient, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const answer = await agent.callTool(name, args);
  if (answer.isError) throw new Error(`${name} refused: ${JSON.stringify(answer.structuredContent)}`);
  return answer.structuredContent;
}

/** The calls measured, each made `calls` times; the cycle counts as one. */
function calls(held: { key: string; claimToken: string }): Record<string, { call: Call; per: number }> {
  let step = 0;
  return {
    get_issue: { per: 1, call: async (agent) => void (await tool(agent, 'get_issue', { key: held.key })) },
    heartbeat: { per: 1, call: async (agent) => void (await tool(agent, 'heartbeat', held)) },
    cycle: {
      per: 5,
      call: async (agent) => {
        const { issue, lease } = await tool(agent, 'next_issue', {});
        const claim = { key: issue.key as string, claimToken: lease.claimToken as string };
        await tool(agent, 'heartbeat', claim);
        await tool(agent, 'checkpoint', { ...claim, note: `step ${++step}: tests pass`, state: { step } });
        await tool(agent, 'done', claim);
        await tool(agent, 'update_issue', { key: claim.key, status: 'todo' });
      },
    },
  };
}

interface Measured {
  /** The agent's median wait for one call. */
  waitMs: number;
  cpuMs: Record<'writer' | 'standby' | 'thin' | 'agent', number>;
}

/** `n` calls after a fifth as many unmeasured: what one of its `per` tool calls costs. */
async function measure(agent: StdioClient, pids: number[], call: Call, n: number, per: number): Promise<Measured> {
  for (let i = 0; i < Math.max(20, n / 5); i++) await call(agent);
  const before = pids.map((pid) => processCpuMs(pid) ?? NaN);
  const agentBefore = process.cpuUsage();
  const waits: number[] = [];
  for (let i = 0; i < n; i++) {
    if (PAUSE_MS > 0) await sleep(PAUSE_MS);
    const started = performance.now();
    await call(agent);
    waits.push((performance.now() - started) / per);
  }
  const used = process.cpuUsage(agentBefore);
  const after = pids.map((pid) => processCpuMs(pid) ?? NaN);
  const each = (ms: number) => ms / n / per;
  return {
    waitMs: summarize(waits).p50,
    cpuMs: { writer: each(after[0] - before[0]), standby: each(after[1] - before[1]), thin: each(after[2] - before[2]), agent: each((used.user + used.system) / 1000) },
  };
}

async function runRound(cli: string, dir: string): Promise<Record<string, Measured>> {
  const db = join(dir, 'baton.db');
  const servers: StdioClient[] = [];
  const start = async (name: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...SERVER_ENV, BATON_AGENT: name };
    delete env.BATON_DATABASE_URL;
    const server = await StdioClient.start({
      command: process.execPath,
      args: [cli, 'serve', '--db', db],
      cwd: dir,
      env,
      clientName: name,
    });
    servers.push(server);
    await tool(server, 'list_claims', {});
    return server;
  };
  try {
    const writer = await start('writer');
    for (let i = 1; i <= ISSUES; i++) await tool(writer, 'create_issue', { title: `Issue ${i}` });
    await start('standby');
    await sleep(STANDBY_SETTLES_MS);
    const socket = WriteRoute.socketFor(db);
    const standby = socket === undefined ? undefined : WriteRoute.standbyFor(socket);
    if (standby === undefined || !existsSync(standby)) throw new Error(`the second server was not the standby ${STANDBY_SETTLES_MS} ms after its first call`);
    const agent = await start('thin');
    const { issue, lease } = await tool(agent, 'next_issue', {});
    const held = { key: issue.key as string, claimToken: lease.claimToken as string };
    const pids = servers.map((s) => s.pid);
    const out: Record<string, Measured> = {};
    for (const [name, { call, per }] of Object.entries(calls(held))) out[name] = await measure(agent, pids, call, Math.ceil(CALLS / per), per);
    return out;
  } finally {
    for (const server of servers.reverse()) await server.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-call-cost-'));
  try {
    const results = new Map<string, Measured[]>();
    for (let r = 1; r <= ROUNDS; r++) {
      for (const { label, path: cli } of BUILDS) {
        const runDir = join(dir, `${label}-${r}`);
        mkdirSync(runDir);
        process.stderr.write(`round ${r}: ${label}\n`);
        for (const [name, m] of Object.entries(await runRound(cli, runDir))) {
          const key = `${label}\t${name}`;
          results.set(key, [...(results.get(key) ?? []), m]);
        }
      }
    }
    const each = (xs: number[]) => xs.map((x) => round(x)).join(', ');
    const pace = PAUSE_MS > 0 ? `a pause of ${PAUSE_MS} ms before each` : 'back to back';
    console.log(`ms per call, one figure a round; ${ISSUES} issues, ${CALLS} calls a round ${pace}, the cycle's divided among its five`);
    console.log('| build | call | agent waits (p50) | writer CPU | standby CPU | thin server CPU | agent CPU |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [key, ms] of results) {
      const [label, name] = key.split('\t');
      const col = (role: keyof Measured['cpuMs']) => each(ms.map((m) => m.cpuMs[role]));
      console.log(`| ${label} | ${name} | ${each(ms.map((m) => m.waitMs))} | ${col('writer')} | ${col('standby')} | ${col('thin')} | ${col('agent')} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
