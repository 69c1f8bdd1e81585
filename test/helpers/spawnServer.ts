import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { waitFor } from './wait.js';

export { waitFor };

/** The built CLI: tests run `npm run build` first and never build themselves. */
export const CLI = resolve(process.cwd(), 'dist/cli.js');

export interface ServerOptions {
  /** The worktree the server runs in. */
  cwd: string;
  /** Added to a minimal environment (PATH, HOME…): BATON_AGENT, BATON_LEASE_SECONDS, BATON_SWEEP_MS… */
  env?: Record<string, string>;
  /** The MCP client's `clientInfo.name` (the agent name when BATON_AGENT is unset). */
  clientName?: string;
  /** Arguments after `serve`, e.g. `['--db', path]`. */
  args?: string[];
}

export interface SpawnedServer {
  client: Client;
  /** Process id of the server. */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Closes the client: stdin of the server ends, and the server should exit. */
  close(): Promise<void>;
  /** Resolves once the server process has gone, or rejects after `ms`. */
  exited(ms?: number): Promise<void>;
}

function environment(env: Record<string, string> = {}): Record<string, string> {
  // Only what a client passes plus the test's own settings: a BATON_* of the outer shell must not leak in.
  return { ...getDefaultEnvironment(), ...env };
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Starts `node dist/cli.js serve` and connects the SDK's own Client to it over stdio. */
export async function spawnServer(options: ServerOptions): Promise<SpawnedServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', ...(options.args ?? [])],
    cwd: options.cwd,
    env: environment(options.env),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = new Client({ name: options.clientName ?? 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process has no pid');
  return {
    client,
    pid,
    stderr: () => err,
    close: () => client.close(),
    exited: (ms = 5_000) => waitFor(() => processGone(pid), ms, `server ${pid} to exit`),
  };
}

/** A server process without a client, for exit statuses and raw protocol lines. */
export interface RawServer {
  child: ChildProcessWithoutNullStreams;
  /** Lines written to stdout so far, parsed as JSON. */
  messages: unknown[];
  stderr(): string;
  /** Writes one JSON-RPC message. */
  send(message: object): void;
  /** The exit code (null when killed by a signal) and signal. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnRawServer(options: Omit<ServerOptions, 'clientName'>): RawServer {
  const child = spawn(process.execPath, [CLI, 'serve', ...(options.args ?? [])], {
    cwd: options.cwd,
    env: environment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const messages: unknown[] = [];
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    let newline: number;
    while ((newline = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, newline);
      out = out.slice(newline + 1);
      if (line.trim()) messages.push(JSON.parse(line));
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.on('exit', (code, signal) => resolveExit({ code, signal })),
  );
  return {
    child,
    messages,
    stderr: () => err,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    exit,
  };
}

/** The JSON-RPC lines a client sends to open a session, for a raw server. */
export function initializeMessages(clientName = 'raw-agent'): object[] {
  return [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ];
}
