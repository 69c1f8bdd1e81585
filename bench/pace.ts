import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_ENV } from '../shared/client-config.js';
import { copyForRun, type Dataset } from './dataset.js';
import { PaceAgent, type PaceCall } from './pace-agent.js';
import { standbyAmong, writerAmong } from './pace-writer.js';
import { processCpuMs, processMemory, round, summarize, type Summary } from './stats.js';

/*
 * "Agents at a human pace": N agents, each its own `baton serve` driven by the SDK's
 * Client over stdio, all started at once with no warm-up, each making one call every
 * PACE_MS. Half of them then stop calling for a while, to see what a server costs while
 * its agent thinks; then the writer is killed mid-run and another agent calls at once.
 */

/** One call per agent this often: an agent working at a human pace. */
export const PACE_MS = 2000;
/** Seconds while only half of the agents call: their servers' CPU then is the idle cost. */
const IDLE_SEC = 10;
/** Seconds of calls after the writer is killed, every agent left calling. */
const AFTER_KILL_SEC = 6;

export interface PaceConfig {
  /** Label of the build measured (its dist/cli.js). */
  build: string;
  cli: string;
  dataset: Dataset;
  agents: number;
  /** Seconds of every agent calling, from the cold start. */
  seconds: number;
  work: string;
  progress: (line: string) => void;
}

export interface PaceResult {
  build: string;
  issues: number;
  agents: number;
  /** From spawning every server at once to the last handshake done. */
  startMs: number;
  /** Peak RSS (VmHWM) of the writer, of the standby (a build that has one) and of every other server, taken before the writer was killed. */
  writerPeakMb: number | null;
  standbyPeakMb: number | null;
  otherPeakMb: Summary;
  sumPeakMb: number;
  /** Every call before the kill, from the cold start on. */
  callMs: Summary;
  readMs: Summary;
  leaseMs: Summary;
  /** CPU per second of the servers whose agent was idle, the writer left out; and of the writer then. */
  idleCpuMsPerSec: Summary;
  writerCpuMsPerSec: number | null;
  /** From SIGKILL of the writer to the answer of a call made at once by another agent. */
  killToAnswerMs: number | null;
  /** Calls started after the kill (or under way at it): the slowest, and how many failed. */
  afterKill: { calls: number; failed: number; maxMs: number };
  /** Calls refused or unanswered, but for the killed agent's own call cut off by the kill. */
  failedCalls: number;
  doubleClaims: number;
  /** Acknowledged `done`s not found done, and acknowledged claims not found held, at the end. */
  lost: number;
}

const LEASE_TOOLS = new Set(['heartbeat', 'checkpoint', 'done']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A build's first run writes its code cache (mcp-server/launch.ts), once per install and
 * V8 flags: made here, under the servers' own settings, so that the agents start as they
 * do every day after that.
 */
export function makeCodeCache(cli: string): void {
  execFileSync(process.execPath, [cli, '--version'], { env: { ...process.env, ...SERVER_ENV }, stdio: 'ignore' });
}

export async function runPaceRound(config: PaceConfig): Promise<PaceResult> {
  const { agents: n, progress } = config;
  const dir = join(config.work, `pace-${config.build}-${config.dataset.issues}-${n}`);
  mkdirSync(dir, { recursive: true });
  const db = await copyForRun(config.dataset, dir, 'baton');
  makeCodeCache(config.cli);
  const socket = `${db}.sock`;
  const agents: PaceAgent[] = [];
  try {
    const spawned = performance.now();
    agents.push(...(await Promise.all(Array.from({ length: n }, (_, i) => PaceAgent.start(config.cli, db, `pace-${i}`)))));
    const startMs = performance.now() - spawned;

    // Who holds which key now, to catch a key handed to two agents at once.
    const holders = new Map<string, PaceAgent>();
    let doubleClaims = 0;
    let killedAt: number | undefined;
    let killed: PaceAgent | undefined;
    // Agents with a call under way: the killed one's may have committed unacknowledged.
    const busy = new Set<PaceAgent>();
    const afterKill: PaceCall[] = [];
    const pace = (agent: PaceAgent, paused: () => boolean, until: () => boolean) =>
      (async () => {
        // Spread over one period, as agents started together soon drift apart.
        await sleep((agents.indexOf(agent) * PACE_MS) / n);
        while (!until()) {
          const began = performance.now();
          if (!paused()) {
            const wasHeld = agent.held?.key;
            busy.add(agent);
            const call = await agent.next((key) => {
              if (holders.has(key)) doubleClaims++;
              holders.set(key, agent);
            });
            busy.delete(agent);
            if (wasHeld && !agent.held) holders.delete(wasHeld);
            if (killedAt !== undefined && agent !== killed && call.startedAt + call.ms >= killedAt) afterKill.push(call);
          }
          await sleep(Math.max(0, PACE_MS - (performance.now() - began)));
        }
      })();

    // Everyone calls; then half pause and their servers' CPU is read.
    const phase = { idle: false, stop: false };
    const idleSet = new Set(agents.filter((_, i) => i % 2 === 1));
    const loops = agents.map((agent) => pace(agent, () => (phase.idle && idleSet.has(agent)) || agent === killed, () => phase.stop));
    await sleep(config.seconds * 1000);
    const writerPid = writerAmong(socket, agents.map((a) => a.pid));
    const standbyPid = standbyAmong(socket, agents.map((a) => a.pid));
    phase.idle = true;
    // Calls under way finish before the window opens.
    await sleep(PACE_MS);
    const idleBefore = agents.map((a) => processCpuMs(a.pid) ?? NaN);
    const windowStart = performance.now();
    await sleep(IDLE_SEC * 1000);
    const windowSec = (performance.now() - windowStart) / 1000;
    const cpuPerSec = agents.map((a, i) => ((processCpuMs(a.pid) ?? NaN) - idleBefore[i]) / windowSec);
    phase.idle = false;
    const idleCpu = agents.flatMap((a, i) => (idleSet.has(a) && a.pid !== writerPid && a.pid !== standbyPid ? [cpuPerSec[i]] : []));
    const writerIndex = agents.findIndex((a) => a.pid === writerPid);
    const standbyIndex = agents.findIndex((a) => a.pid === standbyPid);
    const callsBeforeKill = agents.flatMap((a) => a.calls.slice());

    const peaks = agents.map((a) => processMemory(a.pid)?.peakMb ?? NaN);
    const writerPeakMb = writerIndex >= 0 ? peaks[writerIndex] : null;
    const otherPeaks = peaks.filter((_, i) => i !== writerIndex && i !== standbyIndex);

    // The writer dies mid-run; another agent calls at once.
    let killToAnswerMs: number | null = null;
    let killedBusy = false;
    if (writerIndex >= 0) {
      killed = agents[writerIndex];
      killedBusy = busy.has(killed);
      const prober = agents.find((a) => a !== killed)!;
      killedAt = performance.now();
      process.kill(killed.pid, 'SIGKILL');
      const call = await prober.probe();
      if (call.ok) killToAnswerMs = performance.now() - killedAt;
      afterKill.push(call);
    }
    await sleep(AFTER_KILL_SEC * 1000);
    phase.stop = true;
    await Promise.all(loops);

    const lost = await countLost(agents.filter((a) => a !== killed), killedBusy ? undefined : killed);
    // The killed agent's call under way dies with its server: that is the kill, not a failure.
    const allCalls = agents.flatMap((a) => (a === killed ? a.calls.filter((c) => killedAt === undefined || c.startedAt + c.ms < killedAt) : a.calls));
    const result: PaceResult = {
      build: config.build,
      issues: config.dataset.issues,
      agents: n,
      startMs: round(startMs),
      writerPeakMb: writerPeakMb === null ? null : round(writerPeakMb),
      standbyPeakMb: standbyIndex >= 0 ? round(peaks[standbyIndex]) : null,
      otherPeakMb: rounded(summarize(otherPeaks)),
      sumPeakMb: round(peaks.reduce((a, b) => a + b, 0)),
      callMs: rounded(summarize(callsBeforeKill.map((c) => c.ms))),
      readMs: rounded(summarize(callsBeforeKill.filter((c) => !LEASE_TOOLS.has(c.tool)).map((c) => c.ms))),
      leaseMs: rounded(summarize(callsBeforeKill.filter((c) => LEASE_TOOLS.has(c.tool)).map((c) => c.ms))),
      idleCpuMsPerSec: rounded(summarize(idleCpu)),
      writerCpuMsPerSec: writerIndex >= 0 ? round(cpuPerSec[writerIndex]) : null,
      killToAnswerMs: killToAnswerMs === null ? null : round(killToAnswerMs),
      afterKill: { calls: afterKill.length, failed: afterKill.filter((c) => !c.ok).length, maxMs: round(Math.max(0, ...afterKill.map((c) => c.ms))) },
      failedCalls: allCalls.filter((c) => !c.ok).length,
      doubleClaims,
      lost,
    };
    progress(paceLine(result));
    return result;
  } finally {
    await Promise.all(agents.map((a) => a.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What was acknowledged and is not in the database, read back through a surviving agent:
 * a `done` whose issue is not done, or a claim still held (the killed agent's included,
 * its lease outliving it, unless a call of its own was under way) that is not among the claims.
 */
async function countLost(survivors: PaceAgent[], killed: PaceAgent | undefined): Promise<number> {
  const reader = survivors[0];
  if (!reader) return NaN;
  let lost = 0;
  for (const agent of [...survivors, ...(killed ? [killed] : [])]) {
    for (const key of agent.done) {
      const { issue } = await reader.read('get_issue', { key });
      if (issue?.status !== 'done') lost++;
    }
  }
  const { claims } = await reader.read('list_claims', {});
  const held = new Set((claims as { key: string }[]).map((c) => c.key));
  for (const agent of [...survivors, ...(killed ? [killed] : [])]) if (agent.held && !held.has(agent.held.key)) lost++;
  return lost;
}

function rounded(s: Summary): Summary {
  return { count: s.count, p50: round(s.p50), p99: round(s.p99), max: round(s.max), mean: round(s.mean) };
}

export function paceLine(r: PaceResult): string {
  return (
    `pace ${r.build} ${r.issues / 1000}k x ${r.agents}: writer peak ${r.writerPeakMb} MB, standby ${r.standbyPeakMb} MB, others p50 ${r.otherPeakMb.p50} max ${r.otherPeakMb.max} MB, sum ${r.sumPeakMb} MB; ` +
    `call p50 ${r.callMs.p50} p99 ${r.callMs.p99} ms (reads ${r.readMs.p50}/${r.readMs.p99}, lease ${r.leaseMs.p50}/${r.leaseMs.p99}); ` +
    `idle CPU ${r.idleCpuMsPerSec.mean} ms/s (max ${r.idleCpuMsPerSec.max}), writer ${r.writerCpuMsPerSec} ms/s; ` +
    `kill to answer ${r.killToAnswerMs} ms, after kill ${r.afterKill.calls} calls ${r.afterKill.failed} failed max ${r.afterKill.maxMs} ms; ` +
    `failed ${r.failedCalls}, double claims ${r.doubleClaims}, lost ${r.lost}; start ${r.startMs} ms`
  );
}

/** The section's table: one line per build, size and agent count. */
export function paceTable(results: readonly PaceResult[]): string {
  const head = '| build | issues | agents | writer peak MB | standby peak MB | other peak p50/max MB | sum MB | call p50/p99 ms | idle CPU ms/s mean/max | kill→answer ms | lost | double |';
  const rows = results.map(
    (r) =>
      `| ${r.build} | ${r.issues / 1000}k | ${r.agents} | ${r.writerPeakMb} | ${r.standbyPeakMb ?? '-'} | ${r.otherPeakMb.p50}/${r.otherPeakMb.max} | ${r.sumPeakMb} | ${r.callMs.p50}/${r.callMs.p99} | ${r.idleCpuMsPerSec.mean}/${r.idleCpuMsPerSec.max} | ${r.killToAnswerMs} | ${r.lost} | ${r.doubleClaims} |`,
  );
  return [head, `|${'---|'.repeat(12)}`, ...rows].join('\n');
}
