import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SERVER_ENV } from '../../shared/client-config.js';
import { openBaton } from '../../shared/open.js';
import { seeded } from '../generate.js';

/*
 * The server built both ways (bench/sdk-way/build.mjs), side by side in one run, at the
 * pace of real agents: each of N agents per way starts its own server cold, lists the
 * tools, then calls one tool every ~2 s through the SDK's own Client (claim, checkpoint,
 * heartbeat, read, done, list). Each way has its own database, so that each has its own
 * writer. Measured per way: the time from spawning a server to its tools/list answer and
 * the CPU it used until then; then each call's latency as the agent sees it and the
 * server's CPU per call (utime + stime from /proc/<pid>/stat, over all calls).
 */

const WAYS = ['baton', 'sdk-listing'] as const;
type Way = (typeof WAYS)[number];

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}
const AGENTS = option('agents', 8);
const CALLS = option('calls', 30);
const EVERY_MS = option('every', 2000);
/** Between two servers' starts: agents come to work one after another, not all in one instant. */
const STAGGER_MS = option('stagger', 250);
const TICK_MS = 1000 / 100; // USER_HZ: /proc reports CPU in clock ticks

/** CPU time of a process so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface AgentResult {
  way: Way;
  startMs: number;
  startCpuMs: number;
  latencies: number[];
  callCpuMs: number;
  calls: number;
}

async function agent(way: Way, n: number, dir: string, phase: number): Promise<AgentResult> {
  const name = `${way}-${n}`;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(__dirname, way, 'cli.js'), 'serve', '--db', join(dir, 'baton.db')],
    cwd: dir,
    env: { ...getDefaultEnvironment(), ...SERVER_ENV, BATON_AGENT: name },
    stderr: 'ignore',
  });
  const client = new Client({ name, version: '1' });
  const spawned = performance.now();
  await client.connect(transport);
  await client.listTools();
  const startMs = performance.now() - spawned;
  const pid = transport.pid!;
  const startCpuMs = cpuMs(pid);

  const latencies: number[] = [];
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const at = performance.now();
    const result = await client.callTool({ name: tool, arguments: args });
    latencies.push(performance.now() - at);
    if (result.isError) throw new Error(`${name}: ${tool} refused: ${JSON.stringify(result.structuredContent)}`);
    return result.structuredContent as Record<string, any>;
  };
  await sleep(phase);
  let held: { key: string; claimToken: string } | undefined;
  for (let i = 0; i < CALLS; i++) {
    const step = i % 6;
    if (step === 0) {
      const next = await call('next_issue');
      held = { key: next.issue.key, claimToken: next.lease.claimToken };
    } else if (step === 1) await call('checkpoint', { ...held, note: `step ${i}` });
    else if (step === 2) await call('heartbeat', held);
    else if (step === 3) await call('get_issue', { key: held!.key });
    else if (step === 4) await call('done', { ...held, summary: 'done' });
    else await call('list_claims');
    await sleep(EVERY_MS);
  }
  const callCpuMs = cpuMs(pid) - startCpuMs;
  await client.close();
  return { way, startMs, startCpuMs, latencies, callCpuMs, calls: CALLS };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main(): Promise<void> {
  const random = seeded(55);
  const dirs = new Map<Way, string>();
  for (const way of WAYS) {
    const dir = mkdtempSync(join(tmpdir(), `baton-sdk-way-${way}-`));
    dirs.set(way, dir);
    const opened = await openBaton({ cwd: dir, db: join(dir, 'baton.db'), env: {} });
    if (!opened.ok) throw new Error(opened.error.message);
    for (let i = 0; i < AGENTS * Math.ceil(CALLS / 6) + 5; i++) await opened.value.baton.createIssue({ title: `issue ${i}` });
    await opened.value.close();
  }
  // Each way's code cache is made once, before any measured start.
  for (const way of WAYS) {
    const warm = await agentStart(way, dirs.get(way)!);
    await warm.close();
  }
  // Started in turn, way after way, so that no way starts on a quieter machine.
  const runs: Promise<AgentResult>[] = [];
  for (let n = 0; n < AGENTS; n++) {
    for (const way of WAYS) {
      runs.push(agent(way, n, dirs.get(way)!, random() * EVERY_MS));
      await sleep(STAGGER_MS);
    }
  }
  const results = await Promise.all(runs);
  for (const dir of dirs.values()) rmSync(dir, { recursive: true, force: true });

  console.log(`${AGENTS} agents per way, ${CALLS} calls each, one every ${EVERY_MS} ms`);
  console.log('way          start→list ms (median)  start CPU ms (median)  call ms p50 / p90  CPU ms per call');
  for (const way of WAYS) {
    const mine = results.filter((r) => r.way === way);
    const latencies = mine.flatMap((r) => r.latencies);
    const perCall = mine.reduce((sum, r) => sum + r.callCpuMs, 0) / mine.reduce((sum, r) => sum + r.calls, 0);
    console.log(
      `${way.padEnd(12)} ${quantile(mine.map((r) => r.startMs), 0.5).toFixed(0).padStart(21)}  ${quantile(mine.map((r) => r.startCpuMs), 0.5).toFixed(0).padStart(21)}` +
        `  ${quantile(latencies, 0.5).toFixed(1).padStart(8)} / ${quantile(latencies, 0.9).toFixed(1).padEnd(6)}  ${perCall.toFixed(2).padStart(15)}`,
    );
  }
}

async function agentStart(way: Way, dir: string): Promise<Client> {
  const client = new Client({ name: `warm-${way}`, version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(__dirname, way, 'cli.js'), 'serve', '--db', join(dir, 'baton.db')],
      cwd: dir,
      env: { ...getDefaultEnvironment(), ...SERVER_ENV, BATON_AGENT: `warm-${way}` },
      stderr: 'ignore',
    }),
  );
  await client.listTools();
  return client;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
