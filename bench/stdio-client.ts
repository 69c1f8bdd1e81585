import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/**
 * The benchmark's MCP client: starts a server and speaks MCP's JSON-RPC to it over stdio,
 * one message per line, doing what the protocol asks of a client (the initialize
 * handshake, answers matched by id, a refusal for any request of the server) and
 * checking what every measured figure rests on (each tool answer's `content`, and its
 * `structuredContent`). It leaves out what the SDK's `Client` adds on top: checking every
 * message and every answer against the protocol's schemas. That work is the client's,
 * not the server's, and on the benchmark's two cores it was taken from the servers
 * under measurement (bench/JOURNAL.md has the two side by side).
 */
export class StdioClient {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private pieces = '';
  private stderrTail = '';
  private gone: Error | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly timeoutMs: number,
  ) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.read(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (this.stderrTail = (this.stderrTail + chunk).slice(-4000)));
    // A server that has gone fails what is waiting; writing to it then must not throw.
    child.stdin.on('error', () => {});
    // 'close', not 'exit': an answer written just before the end is read first, and all of stderr.
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.fail(new Error(`the server exited (${signal ?? `code ${code}`}): ${this.stderrTail.trim().slice(-500)}`));
        resolve();
      });
      child.once('error', (error) => {
        this.fail(error);
        resolve();
      });
    });
  }

  /** Spawns `command args` and completes the handshake as `clientName`. */
  static async start(options: StartOptions): Promise<StdioClient> {
    const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const client = new StdioClient(child, options.timeoutMs ?? 60_000);
    try {
      const init = (await client.request('initialize', {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: options.clientName, version: '1.0.0' },
      })) as { protocolVersion?: unknown };
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(String(init.protocolVersion))) {
        throw new Error(`the server answered initialize with protocol version ${String(init.protocolVersion)}`);
      }
      client.notify('notifications/initialized');
    } catch (error) {
      child.kill();
      throw error;
    }
    return client;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** The last 4,000 characters the server wrote to stderr. */
  stderr(): string {
    return this.stderrTail;
  }

  /** A tools/call: the answer's `structuredContent`, and whether it is a refusal. */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const result = (await this.request('tools/call', { name, arguments: args })) as Partial<ToolAnswer> & { content?: unknown };
    if (!Array.isArray(result.content)) throw new Error(`${name} answered without content`);
    if (typeof result.structuredContent !== 'object' || result.structuredContent === null) {
      throw new Error(`${name} answered without structuredContent`);
    }
    return { isError: result.isError === true, structuredContent: result.structuredContent };
  }

  /** tools/list: the names of the tools. */
  async listTools(): Promise<string[]> {
    const result = (await this.request('tools/list', {})) as { tools?: { name?: unknown }[] };
    if (!Array.isArray(result.tools)) throw new Error('tools/list answered without tools');
    return result.tools.map((tool) => String(tool.name));
  }

  async ping(): Promise<void> {
    await this.request('ping', {});
  }

  /** Ends the server's stdin, which ends the server; kills it if it is still there after 5 s. */
  async close(): Promise<void> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private request(method: string, params: object): Promise<unknown> {
    if (this.gone) return Promise.reject(this.gone);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(id, new Error(`${method} had no answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  private notify(method: string): void {
    this.write({ jsonrpc: '2.0', method });
  }

  private write(message: object): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private read(chunk: string): void {
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0; newline = chunk.indexOf('\n', start)) {
      const line = this.pieces + chunk.slice(start, newline);
      this.pieces = '';
      start = newline + 1;
      if (line.trim() !== '') this.receive(line);
    }
    this.pieces += chunk.slice(start);
  }

  private receive(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      this.fail(new Error(`the server wrote a line that is not JSON: ${line.slice(0, 200)}`));
      this.child.kill();
      return;
    }
    if (message.method !== undefined) {
      // This client offers no capability, so it has nothing to answer a server's request with.
      if (message.id !== undefined) this.write({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `${message.method} is not offered` } });
      return;
    }
    if (typeof message.id !== 'number') return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    if (message.error) this.settle(message.id, new Error(`${waiting.method} failed: ${message.error.message} (${message.error.code})`));
    else this.settle(message.id, undefined, message.result);
  }

  private settle(id: number, error: Error | undefined, result?: unknown): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    if (error) waiting.reject(error);
    else waiting.resolve(result);
  }

  private fail(error: Error): void {
    this.gone ??= error;
    for (const id of [...this.pending.keys()]) this.settle(id, this.gone);
  }
}

export interface StartOptions {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  clientName: string;
  /** How long a request may go unanswered (default 60 s, the SDK's default). */
  timeoutMs?: number;
}

export interface ToolAnswer {
  isError: boolean;
  structuredContent: Record<string, any>;
}

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Message {
  id?: number | string;
  method?: string;
  result?: unknown;
  error?: { code: number; message: string };
}
