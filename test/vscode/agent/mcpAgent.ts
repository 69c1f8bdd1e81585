import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface AgentLaunch {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
}

export interface ToolAnswer<T = Record<string, unknown>> {
  isError: boolean;
  structured: T;
}

/**
 * A coding agent as a separate process: Baton's real server over stdio, driven with
 * plain JSON-RPC, so a test sees exactly what an MCP client would.
 */
export class McpAgent {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.receive(line));
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-4000)));
    child.on('exit', (code, signal) => {
      for (const p of this.pending.values()) p.reject(new Error(`server exited (${code ?? signal}): ${this.stderr}`));
      this.pending.clear();
    });
  }

  static async start(launch: AgentLaunch, name = 'test-agent'): Promise<McpAgent> {
    const child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: { ...process.env, ...launch.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const agent = new McpAgent(child);
    await agent.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name, version: '1.0.0' },
    });
    agent.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return agent;
  }

  get pid(): number {
    return this.child.pid!;
  }

  async listTools(): Promise<string[]> {
    const result = (await this.request('tools/list', {})) as { tools: Array<{ name: string }> };
    return result.tools.map((t) => t.name);
  }

  async call<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer<T>> {
    const result = (await this.request('tools/call', { name, arguments: args })) as { isError?: boolean; structuredContent: T };
    return { isError: result.isError === true, structured: result.structuredContent };
  }

  /** Calls a tool that must succeed. */
  async ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    const answer = await this.call<T>(name, args);
    if (answer.isError) throw new Error(`${name} refused: ${JSON.stringify(answer.structured)}`);
    return answer.structured;
  }

  /** Kills the process the way a crash would, and waits until it is gone. */
  kill(): Promise<void> {
    return this.stop(() => this.child.kill('SIGKILL'));
  }

  /** Closes standard input, which makes the server exit cleanly. */
  close(): Promise<void> {
    return this.stop(() => this.child.stdin!.end());
  }

  private stop(how: () => void): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    how();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    return exited.finally(() => clearTimeout(timer));
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} got no answer in 15 s: ${this.stderr}`));
      }, 15_000);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  private send(message: unknown): void {
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: { id?: number; result?: unknown; error?: { message: string } };
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message.id !== 'number') return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  }
}
