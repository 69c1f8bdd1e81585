import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SERVER_ENV } from '../shared/client-config.js';
import type { AgentCommand, LoopResult, Op } from './agent-loop.js';
import { epochNow, OPS } from './agent-loop.js';
import { countDoubleClaims, starvation } from './checks.js';
import type { Phases } from './instrument.js';
import type { McpAgentArgs, McpAgentMessage } from './mcp-agent.js';
import { processCpuMs, processMemory, round, summarize, type Summary } from './stats.js';
import { openBenchStore, type StoreKind } from './stores.js';
import type { WorkerArgs, WorkerMessage } from './worker.js';

/** One set of agents: which store, reached how, how many issues and processes. */
export interface SetConfig {
  kind: StoreKind;
  /** `store`: agents call the core in their own process; `mcp`: each agent talks to its own `baton serve`. */
  via: 'store' | 'mcp';
  issues: number;
  procs: number;
  /** The database file (or PostgreSQL URL) of this set, already populated. */
  target: string;
  /** Folder of the bundled benchmark (worker.js, mcp-agent.js). */
  benchDir: string;
  /** The built CLI (`dist/cli.js`), for MCP agents. */
  cli: string;
}

/** One operation's transactions: time waiting, working under the lock, committing; statements run. */
export interface PhaseSummary {
  count: number;
  waitMs: { p50: number; p99: number; mean: number };
  workMs: { p50: number; p99: number; mean: number };
  commitMs: { p50: number; p99: number; mean: number };
  statements: number;
  changes: number;
}

/** How long a set's warm-up took, and how fast its cold processes went meanwhile. */
export interface Warmup {
  seconds: number;
  /** Whole cycles (one claim each) over the warm-up's duration. */
  claimsPerSec: number;
  /** The fewest cycles any agent completed: short of the minimum when the time limit ended it. */
  minCyclesPerAgent: number;
}

export interface LoadResult {
  store: StoreKind;
  via: 'store' | 'mcp';
  issues: number;
  procs: number;
  claimsPerSec: number;
  /** Claims per second in each measured window, in order (the windows of all sets interleave). */
  claimsPerSecByRound: number[];
  /** Claim latency (next_issue). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Peak resident memory of the busiest measured process over its life (the server for MCP runs). */
  rssMb: number;
  /** Resident memory at the end of the windows, largest of the measured processes. */
  rssEndMb: number;
  /**
   * The store's files after the run, in MB: Baton's snapshot and operation log, the
   * reference's database and write-ahead log. Absent on PostgreSQL.
   */
  files?: { databaseMb: number; logMb: number };
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
  /** Measured time, all windows together. */
  durationMs: number;
  /**
   * The warm-up before the windows, its figures kept apart: the processes' first cycles,
   * run while V8 still compiles their hot code, as a freshly started agent meets them.
   */
  warmup?: Warmup;
  openMs: number;
  /** CPU time of the measured processes (workers, or servers) per operation, in ms. */
  cpuMsPerOp: number | null;
  /** CPU time of the MCP agents (the clients) per operation, in ms; MCP runs only. */
  clientCpuMsPerOp?: number | null;
  /**
   * CPU time per operation (of all of them) of the busiest measured process: over MCP the
   * server writing for the others, whose work is serial; store-direct, the agent that did most.
   */
  busiestCpuMsPerOp: number | null;
  /**
   * Store-direct runs on one file: how busy the write lock was. `busyShare` is the share of
   * the windows in which some process was inside a write (from its callback's start to its
   * return); `gapMs` the time from one write's return to the next one's callback, across
   * processes (hand-over, catching up under the lock, taking it).
   */
  lock?: { busyShare: number; gapMs: { p50: number; p99: number; mean: number }; writes: number };
  /** Store-direct runs: where each operation's transaction time went, by operation (see instrument.ts). */
  phases?: Record<string, PhaseSummary>;
  /** Load average of the machine when the last window ended (other work on it skews absolute figures). */
  loadAvg: number;
}

type Message = WorkerMessage | McpAgentMessage;

interface Agent {
  child: ChildProcess;
  /** The process whose memory and CPU count: the worker itself, or its server. */
  measuredPid: number;
  openMs: number;
}

interface WindowResult {
  durationMs: number;
  loops: LoopResult[];
  phases: Phases[];
  spans: number[][];
  cpuMs: number;
  /** The same, per measured process. */
  cpuMsByProcess: number[];
  clientCpuMs: number;
  rssEndMb: number;
}

const total = (values: number[]) => values.reduce((n, v) => n + v, 0);
const cpuMsOf = (pid: number) => processCpuMs(pid) ?? NaN;

function nextMessage(child: ChildProcess, type: string, timeoutMs: number, what: string): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what}: no '${type}' within ${timeoutMs} ms`));
    }, timeoutMs);
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

/**
 * The agent processes of one store at one size and process count, kept running while the
 * benchmark runs windows on them, interleaved with the windows of the other stores, so
 * that each store meets the same machine. Idle between windows.
 */
export class AgentSet {
  private readonly windows: WindowResult[] = [];
  private warmup: Warmup | undefined;
  private stopped = false;

  private constructor(
    readonly config: SetConfig,
    private readonly agents: Agent[],
    private readonly children: ChildProcess[],
  ) {}

  /** Starts the processes and waits until every one has its store open. */
  static async start(config: SetConfig): Promise<AgentSet> {
    // BATON_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of every agent and every server.
    const profileDir = process.env.BATON_BENCH_CPU_PROF;
    const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const children: ChildProcess[] = [];
    const stdio: ('ignore' | 'inherit' | 'ipc')[] = ['ignore', 'ignore', 'inherit', 'ipc'];
    for (let i = 0; i < config.procs; i++) {
      const agent = `bench-${i + 1}`;
      children.push(
        config.via === 'mcp'
          ? fork(join(config.benchDir, 'mcp-agent.js'), [JSON.stringify({ cli: config.cli, db: config.target, agent, cpuProfileDir: profileDir } satisfies McpAgentArgs)], { stdio, execArgv })
          : fork(join(config.benchDir, 'worker.js'), [JSON.stringify({ kind: config.kind, target: config.target, agent } satisfies WorkerArgs)], {
              stdio,
              execArgv,
              env: config.kind === 'baton' ? { ...process.env, ...SERVER_ENV } : process.env,
            }),
      );
    }
    try {
      const readies = await Promise.all(children.map((child, i) => nextMessage(child, 'ready', 180_000, `agent ${i + 1}`)));
      const agents = readies.map((m, i) => {
        if (m.type !== 'ready') throw new Error('unexpected message');
        return { child: children[i], measuredPid: 'serverPid' in m ? m.serverPid : m.pid, openMs: m.openMs };
      });
      return new AgentSet(config, agents, children);
    } catch (error) {
      for (const c of children) c.kill('SIGKILL');
      throw error;
    }
  }

  /** Runs every agent's loop for `durationMs` after `settleMs` unmeasured. */
  async runWindow(settleMs: number, durationMs: number): Promise<void> {
    await this.run({ settleMs, durationMs, keep: true });
  }

  /**
   * The warm-up: every agent's loop, unmeasured, for at least `minMs` and until it has done
   * `minCycles` cycles, but no longer than `maxMs`. Answers what it recorded (`Warmup`).
   */
  async warmUp(minMs: number, minCycles: number, maxMs: number): Promise<Warmup> {
    const { loops, startAt } = await this.run({ settleMs: minMs, durationMs: 0, keep: false, minCycles, maxMs });
    // Until the last agent's result arrived: the set is warm once every agent is.
    const seconds = (epochNow() - startAt) / 1000;
    const cycles = loops.map((l) => l.cycles);
    this.warmup = { seconds: round(seconds), claimsPerSec: round(total(cycles) / seconds), minCyclesPerAgent: Math.min(...cycles) };
    return this.warmup;
  }

  private async run(spec: { settleMs: number; durationMs: number; keep: boolean; minCycles?: number; maxMs?: number }): Promise<{ loops: LoopResult[]; startAt: number }> {
    const { settleMs, durationMs, keep, minCycles = 0, maxMs } = spec;
    const startAt = epochNow() + 100;
    const until = maxMs === undefined ? undefined : startAt + maxMs;
    const results = this.agents.map((a, i) => nextMessage(a.child, 'result', settleMs + durationMs + (maxMs ?? 0) + 300_000, `agent ${i + 1}`));
    for (const a of this.agents) a.child.send({ type: 'window', startAt, warmupMs: settleMs, durationMs, minCycles, until } satisfies AgentCommand);
    const measured = this.agents.map((a) => a.measuredPid);
    const clients = this.config.via === 'mcp' ? this.agents.map((a) => a.child.pid!) : [];
    const cpu = () => ({ measured: measured.map(cpuMsOf), clients: clients.map(cpuMsOf) });
    let atStart: ReturnType<typeof cpu> | undefined;
    let atEnd: ReturnType<typeof cpu> | undefined;
    let rssEnd = 0;
    const timers = [
      setTimeout(() => (atStart = cpu()), startAt + settleMs - epochNow()),
      setTimeout(() => (atEnd = cpu()), startAt + settleMs + durationMs - epochNow()),
    ];
    const sampler = setInterval(() => {
      let largest = 0;
      for (const pid of measured) largest = Math.max(largest, processMemory(pid)?.rssMb ?? 0);
      if (largest > 0) rssEnd = largest;
    }, 250);
    let answers: Message[];
    try {
      answers = await Promise.all(results);
    } finally {
      clearInterval(sampler);
      for (const t of timers) clearTimeout(t);
    }
    // The results can arrive before this process's own end-of-window timer ran (it is busy too).
    atEnd ??= cpu();
    const loops = answers.flatMap((m) => (m.type === 'result' ? [m.result] : []));
    if (!keep) return { loops, startAt };
    // Not read at the start (the timer never ran): the figures are unknown, not zero.
    const spent = (end: number[], start: number[] | undefined) => end.map((ms, i) => ms - (start?.[i] ?? NaN));
    const cpuMsByProcess = spent(atEnd.measured, atStart?.measured);
    const window: WindowResult = {
      durationMs,
      loops: [],
      phases: [],
      spans: [],
      cpuMs: total(cpuMsByProcess),
      cpuMsByProcess,
      clientCpuMs: total(spent(atEnd.clients, atStart?.clients)),
      rssEndMb: rssEnd,
    };
    for (const m of answers) {
      if (m.type !== 'result') continue;
      window.loops.push(m.result);
      if ('phases' in m) {
        window.phases.push(m.phases);
        window.spans.push(m.spans);
      }
    }
    this.windows.push(window);
    return { loops, startAt };
  }

  /** Claims per second of the last window run. */
  lastClaimsPerSec(): number {
    const w = this.windows[this.windows.length - 1];
    return w ? w.loops.reduce((n, l) => n + l.claims.length, 0) / (w.durationMs / 1000) : NaN;
  }

  /** Ends the processes (after reading their peak memory) and checks the store; answers the figures of all windows. */
  async finish(): Promise<LoadResult> {
    let rssPeak = 0;
    for (const a of this.agents) rssPeak = Math.max(rssPeak, processMemory(a.measuredPid)?.peakMb ?? 0);
    await this.stop();
    const { config } = this;
    const loops = this.windows.flatMap((w) => w.loops);
    const byAgent = this.agents.map((_, i) => this.windows.map((w) => w.loops[i]).filter((l): l is LoopResult => l !== undefined));
    const latencies = Object.fromEntries(OPS.map((op) => [op, summarize(loops.flatMap((l) => l.latencies[op]))])) as Record<Op, Summary>;
    const claims = loops.reduce((n, l) => n + l.claims.length, 0);
    const operations = OPS.reduce((n, op) => n + latencies[op].count, 0);
    const failures: Record<string, number> = {};
    for (const l of loops) for (const [code, n] of Object.entries(l.failures)) failures[code] = (failures[code] ?? 0) + n;
    const durationMs = this.windows.reduce((n, w) => n + w.durationMs, 0);
    const seconds = durationMs / 1000;
    // Starvation is judged per agent over every whole second of every window.
    const fair = starvation(byAgent.map((ls) => ({ ...ls[0], perSecond: ls.flatMap((l) => l.perSecond) }) as LoopResult));

    const store = await openBenchStore(config.kind, config.target);
    let double;
    let sizes;
    try {
      double = await countDoubleClaims(store, loops);
      sizes = (await store.info()).sizes;
    } finally {
      await store.close();
    }
    const cpuMs = this.windows.reduce((n, w) => n + w.cpuMs, 0);
    const clientCpuMs = this.windows.reduce((n, w) => n + w.clientCpuMs, 0);
    const busiestCpuMs = Math.max(...this.agents.map((_, i) => total(this.windows.map((w) => w.cpuMsByProcess[i]))));
    const perOp = (ms: number) => (Number.isFinite(ms) && operations > 0 ? round(ms / operations) : null);
    const phases = mergePhases(this.windows.flatMap((w) => w.phases));
    // PostgreSQL writers hold row locks, not one lock: their spans overlap and say nothing of hand-overs.
    const lock = config.kind === 'postgres' ? undefined : lockUse(this.windows);
    return {
      store: config.kind,
      via: config.via,
      issues: config.issues,
      procs: config.procs,
      claimsPerSec: round(claims / seconds),
      claimsPerSecByRound: this.windows.map((w) => round(w.loops.reduce((n, l) => n + l.claims.length, 0) / (w.durationMs / 1000))),
      p50Ms: round(latencies.claim.p50),
      p99Ms: round(latencies.claim.p99),
      maxMs: round(latencies.claim.max),
      rssMb: round(rssPeak),
      rssEndMb: round(Math.max(0, ...this.windows.map((w) => w.rssEndMb))),
      ...(sizes ? { files: { databaseMb: round(sizes.snapshot / 2 ** 20), logMb: round(sizes.log / 2 ** 20) } } : {}),
      doubleClaims: double.count,
      ...(double.examples.length ? { doubleClaimExamples: double.examples } : {}),
      ops: Object.fromEntries(OPS.map((op) => [op, roundSummary(latencies[op])])) as Record<Op, Summary>,
      opsPerSec: round(operations / seconds),
      ...fair,
      claimsPerAgent: byAgent.map((ls) => ls.reduce((n, l) => n + l.claims.length, 0)),
      failures,
      empty: loops.reduce((n, l) => n + l.empty, 0),
      durationMs,
      ...(this.warmup ? { warmup: this.warmup } : {}),
      openMs: round(Math.max(...this.agents.map((a) => a.openMs))),
      cpuMsPerOp: perOp(cpuMs),
      ...(config.via === 'mcp' ? { clientCpuMsPerOp: perOp(clientCpuMs) } : {}),
      busiestCpuMsPerOp: perOp(busiestCpuMs),
      ...(lock ? { lock } : {}),
      ...(phases ? { phases } : {}),
      loadAvg: round(loadavg()[0]),
    };
  }

  /** Ends every process of the set; safe to call more than once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const a of this.agents) if (a.child.connected) a.child.send({ type: 'exit' });
    await Promise.all(this.children.map((c) => exited(c, 10_000)));
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}

function lockUse(windows: readonly WindowResult[]): LoadResult['lock'] {
  let busy = 0;
  let duration = 0;
  let writes = 0;
  const gaps: number[] = [];
  for (const w of windows) {
    const spans: [number, number][] = [];
    for (const flat of w.spans) for (let i = 0; i + 1 < flat.length; i += 2) spans.push([flat[i], flat[i + 1]]);
    if (spans.length < 2) continue;
    spans.sort((a, b) => a[0] - b[0]);
    let coveredTo = -Infinity;
    for (const [start, end] of spans) {
      if (start > coveredTo) {
        if (Number.isFinite(coveredTo)) gaps.push(start - coveredTo);
        busy += end - start;
      } else if (end > coveredTo) busy += end - coveredTo;
      coveredTo = Math.max(coveredTo, end);
    }
    duration += w.durationMs;
    writes += spans.length;
  }
  if (writes === 0) return undefined;
  const s = summarize(gaps);
  return { busyShare: round(busy / duration), gapMs: { p50: round(s.p50), p99: round(s.p99), mean: round(s.mean) }, writes };
}

function mergePhases(list: readonly Phases[]): Record<string, PhaseSummary> | undefined {
  const merged: Phases = {};
  for (const phases of list) {
    for (const [op, p] of Object.entries(phases)) {
      const m = (merged[op] ??= { wait: [], work: [], commit: [], statements: [], changes: [] });
      m.wait.push(...p.wait);
      m.work.push(...p.work);
      m.commit.push(...p.commit);
      m.statements.push(...p.statements);
      m.changes.push(...p.changes);
    }
  }
  if (Object.keys(merged).length === 0) return undefined;
  const mean = (v: number[]) => round(v.reduce((a, b) => a + b, 0) / v.length);
  const brief = (v: number[]) => {
    const s = summarize(v);
    return { p50: round(s.p50), p99: round(s.p99), mean: round(s.mean) };
  };
  return Object.fromEntries(
    Object.entries(merged).map(([op, m]) => [
      op,
      { count: m.wait.length, waitMs: brief(m.wait), workMs: brief(m.work), commitMs: brief(m.commit), statements: mean(m.statements), changes: mean(m.changes) },
    ]),
  );
}

function roundSummary(s: Summary): Summary {
  return { count: s.count, p50: round(s.p50), p99: round(s.p99), max: round(s.max), mean: round(s.mean) };
}
