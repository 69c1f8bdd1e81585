import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { POLL_MS } from '../extension/constants.js';
import { BatonSource } from '../extension/model/batonSource.js';
import { ClaimsModel } from '../extension/model/claimsModel.js';
import type { Baton } from '../shared/baton.js';
import { SERVER_ENV } from '../shared/client-config.js';
import { ok } from '../shared/result.js';
import type { Store } from '../shared/store/store.js';
import { epochNow } from './agent-loop.js';
import { StdioClient } from './stdio-client.js';
import { benchBaton, openBenchStore, type StoreKind } from './stores.js';

/*
 * One helper process of the probes, driven over IPC by bench/probes.ts: it opens the
 * store of the probe and then answers commands, each with the epoch time of what it did,
 * so the benchmark can time events across processes.
 *
 *   claim            claims the next issue              -> { key, at }
 *   heartbeat        renews every lease it holds         -> { at }
 *   read             times list_claims on the core (and over MCP when started with `mcp`)
 *   ping             times an MCP ping to that server: the round trip with no tool and no store   -> { ms }
 *   hold             starts a write and never finishes it (holding the lock)   -> { at }
 *   write            one write; answers when it committed                      -> { at }
 *   watch            starts the extension's claims model and reports every key it shows
 */

export interface ProbeArgs {
  kind: StoreKind;
  target: string;
  agent: string;
  /** Also start a `baton serve` on the same database and time reads through it. */
  mcpCli?: string;
}

export type ProbeCommand =
  | { cmd: 'claim' }
  | { cmd: 'heartbeat' }
  | { cmd: 'read' }
  | { cmd: 'ping' }
  | { cmd: 'hold' }
  | { cmd: 'write' }
  | { cmd: 'watch' }
  | { cmd: 'exit' };

export type ProbeReply =
  | { type: 'ready' }
  | { type: 'claimed'; key: string; at: number }
  | { type: 'done'; at: number }
  | { type: 'read'; coreMs: number; mcpMs: number | null; claims: number }
  | { type: 'pinged'; ms: number }
  | { type: 'seen'; keys: string[]; at: number; loadMs: number }
  | { type: 'error'; message: string };

const args = JSON.parse(process.argv[2]) as ProbeArgs;
const reply = (m: ProbeReply) => process.send!(m);

async function startMcp(cli: string, db: string): Promise<StdioClient> {
  const client = await StdioClient.start({
    command: process.execPath,
    args: [cli, 'serve', '--db', db],
    cwd: dirname(db),
    env: { ...getDefaultEnvironment(), ...SERVER_ENV, BATON_AGENT: `${args.agent}-mcp` },
    clientName: `${args.agent}-mcp`,
  });
  await client.callTool('list_claims', {});
  return client;
}

async function main(): Promise<void> {
  const store: Store = await openBenchStore(args.kind, args.target);
  const baton: Baton = benchBaton(store, args.agent, randomBytes(8).toString('hex'));
  const mcp = args.mcpCli ? await startMcp(args.mcpCli, args.target) : null;
  const held: { key: string; token: string }[] = [];
  reply({ type: 'ready' });

  process.on('message', (message: ProbeCommand) => {
    void handle(message).catch((error: unknown) => reply({ type: 'error', message: error instanceof Error ? error.message : String(error) }));
  });

  async function handle(message: ProbeCommand): Promise<void> {
    switch (message.cmd) {
      case 'claim': {
        const r = await baton.nextIssue({});
        const at = epochNow();
        if (!r.ok || !r.value) throw new Error(`claim failed: ${r.ok ? 'nothing ready' : r.error.code}`);
        held.push({ key: r.value.issue.key, token: r.value.lease.claimToken! });
        reply({ type: 'claimed', key: r.value.issue.key, at });
        return;
      }
      case 'heartbeat': {
        for (const h of held) {
          const r = await baton.heartbeat({ key: h.key, claimToken: h.token });
          if (!r.ok) throw new Error(`heartbeat failed: ${r.error.code}`);
        }
        reply({ type: 'done', at: epochNow() });
        return;
      }
      case 'read': {
        const started = performance.now();
        const r = await baton.listClaims();
        const coreMs = performance.now() - started;
        if (!r.ok) throw new Error(`list_claims failed: ${r.error.code}`);
        let mcpMs: number | null = null;
        if (mcp) {
          const s = performance.now();
          const answer = await mcp.callTool('list_claims', {});
          if (answer.isError) throw new Error(`list_claims over MCP failed: ${answer.structuredContent.error?.code}`);
          mcpMs = performance.now() - s;
        }
        reply({ type: 'read', coreMs, mcpMs, claims: r.value.claims.length });
        return;
      }
      case 'ping': {
        if (!mcp) throw new Error('ping needs a server: start the probe with mcpCli');
        const started = performance.now();
        await mcp.ping();
        reply({ type: 'pinged', ms: performance.now() - started });
        return;
      }
      case 'hold': {
        // The write never returns: the process keeps the lock until it is killed.
        void store.write(async (tx) => {
          await tx.run(`UPDATE meta SET value = value WHERE name = 'next_number'`);
          reply({ type: 'done', at: epochNow() });
          await new Promise(() => {});
          return ok(undefined);
        });
        return;
      }
      case 'write': {
        const r = await store.write(async (tx) => {
          await tx.run(`UPDATE meta SET value = value WHERE name = 'next_number'`);
          return ok(undefined);
        });
        if (!r.ok) throw new Error(`write failed: ${r.error.code}`);
        reply({ type: 'done', at: epochNow() });
        return;
      }
      case 'watch': {
        await watch();
        return;
      }
      case 'exit': {
        await mcp?.close();
        await store.close();
        process.exit(0);
      }
    }
  }
}

/**
 * The extension's own model, fed by the store's version() at the extension's poll
 * interval, exactly as the Claims view is; every time it publishes, the keys it shows.
 */
async function watch(): Promise<void> {
  const source = new BatonSource({ cwd: dirname(args.target), db: args.target, renewer: 'vscode:bench', env: {} });
  const model = new ClaimsModel(source, { pollMs: POLL_MS });
  let loadStarted = 0;
  const load = source.load.bind(source);
  let loadMs = 0;
  source.load = async () => {
    loadStarted = performance.now();
    const state = await load();
    loadMs = performance.now() - loadStarted;
    return state;
  };
  model.onDidChange((state) => {
    if (state.kind === 'ready') reply({ type: 'seen', keys: state.snapshot.claims.map((c) => c.key), at: epochNow(), loadMs });
    else if (state.kind === 'error') reply({ type: 'error', message: state.error.message });
  });
  await model.start();
}

main().catch((error: unknown) => {
  reply({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
