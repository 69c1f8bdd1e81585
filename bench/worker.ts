import { randomBytes } from 'node:crypto';
import { epochNow, type LoopResult, runLoop, type Window } from './agent-loop.js';
import { emptyPhases, instrument, type Phases } from './instrument.js';
import { benchBaton, coreOps, openBenchStore, type StoreKind } from './stores.js';

/*
 * A store-direct agent: one process that opens the shared store itself and runs the work
 * loop on Baton's core, the way a server process does minus MCP. Talks to the benchmark
 * over IPC: `ready` once open, then `start` with the window, `result` when done, and it
 * exits when told to (after the benchmark has read its memory figures).
 */

export interface WorkerArgs {
  kind: StoreKind;
  /** The database file, or the PostgreSQL URL. */
  target: string;
  agent: string;
}

export type WorkerMessage = { type: 'ready'; pid: number; openMs: number } | { type: 'result'; result: LoopResult; phases: Phases } | { type: 'error'; message: string };

const args = JSON.parse(process.argv[2]) as WorkerArgs;
const send = (message: WorkerMessage) => process.send!(message);

async function main(): Promise<void> {
  const opening = performance.now();
  const store = await openBenchStore(args.kind, args.target);
  const phases = emptyPhases();
  let window: Window | undefined;
  const recording = () => window !== undefined && epochNow() >= window.startAt + window.warmupMs && epochNow() < window.startAt + window.warmupMs + window.durationMs;
  const baton = benchBaton(instrument(store, phases, recording), args.agent, randomBytes(8).toString('hex'));
  send({ type: 'ready', pid: process.pid, openMs: performance.now() - opening });
  window = await new Promise<Window>((resolve) => process.once('message', (m) => resolve(m as Window)));
  const result = await runLoop(coreOps(baton), window);
  send({ type: 'result', result, phases });
  await new Promise((resolve) => process.once('message', resolve));
  await store.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
