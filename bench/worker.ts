import { randomBytes } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { tuneForALongLivedProcess } from '../mcp-server/cli/long-lived.js';
import { joinWriters } from '../shared/open.js';
import { SessionTokens } from '../shared/rules/leases.js';
import { FileStore } from '../shared/store/file/index.js';
import { type AgentCommand, type AgentOps, epochNow, type LoopResult, type Op, runLoop, type Window } from './agent-loop.js';
import { instrument, type Phases } from './instrument.js';
import { benchBaton, coreOps, openBenchStore, type StoreKind } from './stores.js';

/*
 * A store-direct agent: one process that opens the shared store itself and runs the work
 * loop on Baton's core, the way a server process does minus MCP: on Baton's file store,
 * with a server's settings (its environment comes from load-run.ts), its writes going
 * where a server's go (the first agent of the set writes for the others; the phases
 * count their writes under `forwarded`). Talks to the benchmark over IPC: `ready` once
 * open; then for every `window` it is sent, one `result`; it exits on `exit` (after the
 * benchmark has read its memory figures).
 */

export interface WorkerArgs {
  kind: StoreKind;
  /** The database file, or the PostgreSQL URL. */
  target: string;
  agent: string;
}

export type WorkerMessage = { type: 'ready'; pid: number; openMs: number } | { type: 'result'; result: LoopResult; phases: Phases; spans: number[] } | { type: 'error'; message: string };

const args = JSON.parse(process.argv[2]) as WorkerArgs;
const send = (message: WorkerMessage) => process.send!(message);

async function main(): Promise<void> {
  const opening = performance.now();
  if (args.kind === 'baton') tuneForALongLivedProcess();
  const store = await openBenchStore(args.kind, args.target);
  let phases: Phases = {};
  let spans: number[] = [];
  let window: Window | undefined;
  let op = 'other';
  const recording = () => window !== undefined && epochNow() >= window.startAt + window.warmupMs && epochNow() < window.startAt + window.warmupMs + window.durationMs;
  const measured = (label: () => string) => instrument(store, () => phases, () => spans, recording, label);
  const tokens = new SessionTokens();
  const own = benchBaton(measured(() => op), args.agent, randomBytes(8).toString('hex'), tokens);
  // As in `baton serve`: one agent's process writes for the set, the others send it their writes.
  const joined = store instanceof FileStore ? joinWriters(own, tokens, store, measured(() => 'forwarded')) : undefined;
  const core = coreOps(joined?.baton ?? own);
  // Names the operation under way, so the store's timings are kept per operation. Each
  // starts from the event loop, as a server's tool call does (it arrives on stdin): a
  // loop of promises alone would keep the process from ever polling its sockets, and the
  // agent writing for the set would not let the others connect until it had finished
  // its warm-up.
  const named =
    <A extends unknown[], R>(name: Op, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await setImmediate();
      op = name;
      return call(...args);
    };
  const ops: AgentOps = {
    claim: named('claim', core.claim),
    heartbeat: named('heartbeat', core.heartbeat),
    checkpoint: named('checkpoint', core.checkpoint),
    done: named('done', core.done),
    reopen: named('reopen', core.reopen),
  };
  send({ type: 'ready', pid: process.pid, openMs: performance.now() - opening });
  for (;;) {
    const command = await new Promise<AgentCommand>((resolve) => process.once('message', (m) => resolve(m as AgentCommand)));
    if (command.type === 'exit') break;
    phases = {};
    spans = [];
    window = command;
    const result = await runLoop(ops, window);
    send({ type: 'result', result, phases, spans });
  }
  await joined?.route.close();
  await store.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
