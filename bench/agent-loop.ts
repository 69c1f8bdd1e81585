/**
 * The work loop every benchmark agent runs, whatever it talks to: claim the next issue,
 * heartbeat, checkpoint, done, then reopen the issue so the queue never runs dry during
 * a fixed-time run (the reopen is measured as an operation of its own). Only operations
 * that start inside the measured window count.
 */

export const OPS = ['claim', 'heartbeat', 'checkpoint', 'done', 'reopen'] as const;
export type Op = (typeof OPS)[number];

/** A refusal or failure, by code. */
export interface Failure {
  code: string;
}

export interface Claimed {
  key: string;
  token: string;
  fence: number;
}

/** What the loop asks of a store or a server. Each answers true on success, or the failure. */
export interface AgentOps {
  claim(): Promise<Claimed | null | Failure>;
  heartbeat(c: Claimed): Promise<true | Failure>;
  checkpoint(c: Claimed, step: number): Promise<true | Failure>;
  done(c: Claimed): Promise<true | Failure>;
  reopen(c: Claimed): Promise<true | Failure>;
}

/** The window of a run, in epoch milliseconds (shared by every process of the run). */
export interface Window {
  startAt: number;
  warmupMs: number;
  durationMs: number;
  /**
   * Keep going past the window until this many cycles have begun, i.e. claims made (warm-up only). A fresh
   * process runs partly on V8's baseline code until it has optimised the hot functions,
   * which takes work, not time: with many processes per core, a long while.
   */
  minCycles?: number;
  /** Stop by this epoch time even short of `minCycles` (warm-up only): a slow store must not hold the run up. */
  until?: number;
}

/** What the benchmark sends an agent: run the loop in this window, or leave. */
export type AgentCommand = ({ type: 'window' } & Window) | { type: 'exit' };

export interface LoopResult {
  /** Latencies in ms of the operations inside the window, by operation. */
  latencies: Record<Op, number[]>;
  /** Every claim inside the window: which issue at which fence, and when (ms into the window). */
  claims: { key: string; fence: number; at: number }[];
  /** Claims per whole second of the window. */
  perSecond: number[];
  /** Refusals and failures by code (any is a bug in a run where nobody competes for a held issue). */
  failures: Record<string, number>;
  /** Claims that found nothing ready. */
  empty: number;
  /** Work cycles completed, inside the window or not. */
  cycles: number;
}

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export async function sleepUntil(at: number): Promise<void> {
  const ms = at - epochNow();
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}

export async function runLoop(ops: AgentOps, window: Window): Promise<LoopResult> {
  const measureFrom = window.startAt + window.warmupMs;
  const end = measureFrom + window.durationMs;
  // Whole seconds only: a part-second at the end would look like a second without claims.
  const seconds = Math.floor(window.durationMs / 1000);
  const result: LoopResult = {
    latencies: { claim: [], heartbeat: [], checkpoint: [], done: [], reopen: [] },
    claims: [],
    perSecond: new Array<number>(seconds).fill(0),
    failures: {},
    empty: 0,
    cycles: 0,
  };
  const fail = (f: Failure) => {
    result.failures[f.code] = (result.failures[f.code] ?? 0) + 1;
  };
  // Times one call; answers its value and whether it counts (it started inside the window).
  const timed = async <T>(op: Op, call: () => Promise<T>): Promise<T> => {
    const started = epochNow();
    const value = await call();
    const finished = epochNow();
    if (started >= measureFrom && started < end) result.latencies[op].push(finished - started);
    return value;
  };
  const isFailure = (value: unknown): value is Failure => typeof value === 'object' && value !== null && 'code' in value;

  await sleepUntil(window.startAt);
  let step = 0;
  const minCycles = window.minCycles ?? 0;
  const until = window.until ?? Infinity;
  while ((epochNow() < end || step < minCycles) && epochNow() < until) {
    const startedAt = epochNow();
    const claimed = await timed('claim', () => ops.claim());
    if (claimed === null) {
      result.empty++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    if (isFailure(claimed)) {
      fail(claimed);
      continue;
    }
    if (startedAt >= measureFrom && startedAt < end) {
      const at = startedAt - measureFrom;
      result.claims.push({ key: claimed.key, fence: claimed.fence, at });
      const second = Math.floor(at / 1000);
      if (second < seconds) result.perSecond[second]++;
    }
    step++;
    let completed = true;
    for (const [op, call] of [
      ['heartbeat', () => ops.heartbeat(claimed)],
      ['checkpoint', () => ops.checkpoint(claimed, step)],
      ['done', () => ops.done(claimed)],
      ['reopen', () => ops.reopen(claimed)],
    ] as const) {
      const answer = await timed(op, call);
      if (answer !== true) {
        fail(answer);
        completed = false;
        break;
      }
    }
    if (completed) result.cycles++;
  }
  return result;
}
