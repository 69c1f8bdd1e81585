import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { LoopResult, Op } from './agent-loop.js';
import { epochNow, OPS } from './agent-loop.js';
import { countDoubleClaims, starvation } from './checks.js';
import type { McpAgentArgs, McpAgentMessage } from './mcp-agent.js';
import { emptyPhases, type Phases } from './instrument.js';
import { processCpuMs, processMemory, round, summarize, type Summary } from './stats.js';
import { openBenchStore, type StoreKind } from './stores.js';
import type { WorkerArgs, WorkerMessage } from './worker.js';

/** One load configuration: which store, reached how, how many issues and processes, for how long. */
export interface LoadConfig {
  kind: StoreKind;
  /** `store`: agents call the core in their own process; `mcp`: each agent talks to its own `baton serve`. */
  via: 'store' | 'mcp';
  issues: number;
  procs: number;
  /** The database file (or PostgreSQL URL) of this run, already populated. */
  target: string;
  warmupMs: number;
  durationMs: number;
  /** Folder of the bundled benchmark (worker.js, mcp-agent.js) and the built CLI. */
  benchDir: string;
  cli: string;
}

export interface LoadResult {
  store: StoreKind;
  via: 'store' | 'mcp';
  issues: number;
  procs: number;
  claimsPerSec: number;
  /** Claim latency (next_issue). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Peak resident memory of the busiest measured process (the server for MCP runs). */
  rssMb: number;
  /** Resident memory at the end of the window, largest of the measured processes. */
  rssEndMb: number;
  doubleClaims: number;
  doubleClaimExamples?: string[];
  ops: Record<Op, Summary>;
  /** All operations per second (five per cycle). */
  opsPerSec: number;
  starvedAgentSeconds: number;
  minClaimsPerAgentSecond: number;
  /** Claims per agent, to see how evenly the lock shares out. */
  claimsPerAgent: number[];
  failures: Record<string, number>;
  empty: number;
  durationMs: number;
  openMs: number;
  /** CPU time of the measured processes (workers, or servers) per operation, in ms. */
  cpuMsPerOp: number | null;
  /** CPU time of the MCP agents (the clients) per operation, in ms; MCP runs only. */
  clientCpuMsPerOp?: number | null;
  /** Store-direct runs: where each write transaction's time went (see instrument.ts). */
  phases?: { waitMs: Summary; workMs: Summary; commitMs: Summary; statementsPerWrite: number; changesPerWrite: number; readMs: Summary };
  /** Load average of the machine when the run ended (other work on it skews absolute figures). */
  loadAvg: number;
}

type Message = WorkerMessage | McpAgentMessage;

interface Agent {
  child: ChildProcess;
  /** The process whose memory counts: the worker itself, or its server. */
  measuredPid: number;
  openMs: number;
  result?: LoopResult;
  phases?: Phases;
}

function nextMessage(child: ChildProcess, type: string, timeoutMs: number, what: string): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no '${type}' within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: Message) => {
      if (m.type === 'error') {
        cleanup();
        reject(new Error(`${what}: ${m.message}`));
      } else if (m.type === type) {
        cleanup();
        resolve(m);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`${what}: exited (${code}) before '${type}'`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Starts the agents, runs the window, collects and checks. Every child is gone when it returns. */
export async function runLoad(config: LoadConfig): Promise<LoadResult> {
  const agents: Agent[] = [];
  const children: ChildProcess[] = [];
  try {
    // BATON_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of every store-direct agent.
    const profileDir = process.env.BATON_BENCH_CPU_PROF;
    const execArgv = profileDir && config.via === 'store' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    for (let i = 0; i < config.procs; i++) {
      const agent = `bench-${i + 1}`;
      const child =
        config.via === 'mcp'
          ? fork(join(config.benchDir, 'mcp-agent.js'), [JSON.stringify({ cli: config.cli, db: config.target, agent } satisfies McpAgentArgs)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
          : fork(join(config.benchDir, 'worker.js'), [JSON.stringify({ kind: config.kind, target: config.target, agent } satisfies WorkerArgs)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv });
      children.push(child);
    }
    const readies = await Promise.all(children.map((child, i) => nextMessage(child, 'ready', 120_000, `agent ${i + 1}`)));
    readies.forEach((m, i) => {
      if (m.type !== 'ready') return;
      agents.push({ child: children[i], measuredPid: 'serverPid' in m ? m.serverPid : m.pid, openMs: m.openMs });
    });

    const startAt = epochNow() + 300;
    const window = { startAt, warmupMs: config.warmupMs, durationMs: config.durationMs };
    const results = agents.map((a, i) => nextMessage(a.child, 'result', config.warmupMs + config.durationMs + 120_000, `agent ${i + 1}`));
    for (const a of agents) a.child.send(window);
    const cpu = (pids: number[]) => pids.reduce((sum, pid) => sum + (processCpuMs(pid) ?? NaN), 0);
    const measuredPids = agents.map((a) => a.measuredPid);
    const clientPids = config.via === 'mcp' ? agents.map((a) => a.child.pid!) : [];
    let cpuAtStart = { measured: NaN, clients: NaN };
    let cpuAtEnd = { measured: NaN, clients: NaN };
    const cpuTimers = [
      setTimeout(() => (cpuAtStart = { measured: cpu(measuredPids), clients: cpu(clientPids) }), startAt + config.warmupMs - epochNow()),
      setTimeout(() => (cpuAtEnd = { measured: cpu(measuredPids), clients: cpu(clientPids) }), startAt + config.warmupMs + config.durationMs - epochNow()),
    ];
    // Resident memory sampled through the window: the figure at its end is the steady one.
    let rssEnd = 0;
    const sampler = setInterval(() => {
      if (epochNow() < startAt + config.warmupMs) return;
      let largest = 0;
      for (const a of agents) largest = Math.max(largest, processMemory(a.measuredPid)?.rssMb ?? 0);
      if (largest > 0) rssEnd = largest;
    }, 250);
    const answers = await Promise.all(results).finally(() => {
      clearInterval(sampler);
      for (const t of cpuTimers) clearTimeout(t);
    });
    answers.forEach((m, i) => {
      if (m.type !== 'result') return;
      agents[i].result = m.result;
      if ('phases' in m) agents[i].phases = m.phases;
    });
    let rssPeak = 0;
    for (const a of agents) rssPeak = Math.max(rssPeak, processMemory(a.measuredPid)?.peakMb ?? 0);

    const loops = agents.map((a) => a.result!);
    const latencies = Object.fromEntries(OPS.map((op) => [op, summarize(loops.flatMap((l) => l.latencies[op]))])) as Record<Op, Summary>;
    const claims = loops.reduce((n, l) => n + l.claims.length, 0);
    const operations = OPS.reduce((n, op) => n + latencies[op].count, 0);
    const failures: Record<string, number> = {};
    for (const l of loops) for (const [code, n] of Object.entries(l.failures)) failures[code] = (failures[code] ?? 0) + n;

    // Release the agents before checking: the check opens the store itself.
    for (const a of agents) a.child.send({ type: 'exit' });
    await Promise.all(children.map((c) => exited(c, 10_000)));

    const store = await openBenchStore(config.kind, config.target);
    let double;
    try {
      double = await countDoubleClaims(store, loops);
    } finally {
      await store.close();
    }
    const seconds = config.durationMs / 1000;
    const fair = starvation(loops);
    const phases = mergePhases(agents.map((a) => a.phases));
    const perOp = (ms: number) => (Number.isFinite(ms) && operations > 0 ? round(ms / operations) : null);
    return {
      store: config.kind,
      via: config.via,
      issues: config.issues,
      procs: config.procs,
      claimsPerSec: round(claims / seconds),
      p50Ms: round(latencies.claim.p50),
      p99Ms: round(latencies.claim.p99),
      maxMs: round(latencies.claim.max),
      rssMb: round(rssPeak),
      rssEndMb: round(rssEnd),
      doubleClaims: double.count,
      ...(double.examples.length ? { doubleClaimExamples: double.examples } : {}),
      ops: Object.fromEntries(OPS.map((op) => [op, roundSummary(latencies[op])])) as Record<Op, Summary>,
      opsPerSec: round(operations / seconds),
      ...fair,
      claimsPerAgent: loops.map((l) => l.claims.length),
      failures,
      empty: loops.reduce((n, l) => n + l.empty, 0),
      durationMs: config.durationMs,
      openMs: round(Math.max(...agents.map((a) => a.openMs))),
      cpuMsPerOp: perOp(cpuAtEnd.measured - cpuAtStart.measured),
      ...(config.via === 'mcp' ? { clientCpuMsPerOp: perOp(cpuAtEnd.clients - cpuAtStart.clients) } : {}),
      ...(phases ? { phases } : {}),
      loadAvg: round(loadavg()[0]),
    };
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}

function mergePhases(list: (Phases | undefined)[]): LoadResult['phases'] {
  const all = emptyPhases();
  let any = false;
  for (const p of list) {
    if (!p) continue;
    any = true;
    all.wait.push(...p.wait);
    all.work.push(...p.work);
    all.commit.push(...p.commit);
    all.statements.push(...p.statements);
    all.changes.push(...p.changes);
    all.reads.push(...p.reads);
  }
  if (!any || all.wait.length === 0) return undefined;
  const mean = (v: number[]) => round(v.reduce((a, b) => a + b, 0) / v.length);
  return {
    waitMs: roundSummary(summarize(all.wait)),
    workMs: roundSummary(summarize(all.work)),
    commitMs: roundSummary(summarize(all.commit)),
    statementsPerWrite: mean(all.statements),
    changesPerWrite: mean(all.changes),
    readMs: roundSummary(summarize(all.reads)),
  };
}

function roundSummary(s: Summary): Summary {
  return { count: s.count, p50: round(s.p50), p99: round(s.p99), max: round(s.max), mean: round(s.mean) };
}

function exited(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
