import { dirname } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SERVER_ENV } from '../shared/client-config.js';

/** What one agent's call did, as the agent saw it. */
export interface PaceCall {
  tool: string;
  startedAt: number;
  ms: number;
  ok: boolean;
  code?: string;
}

/** After a claim, the calls an agent makes before its `done`: reads between its lease calls. */
const SCRIPT = ['get_issue', 'heartbeat', 'list_claims', 'checkpoint', 'get_issue', 'heartbeat', 'list_claims', 'done'] as const;

type Content = Record<string, any>;

/**
 * One agent of the "agents at a human pace" section: its own `baton serve` driven through
 * the SDK's own `Client` over stdio, as a new user's agent host does. It claims an issue
 * with `next_issue`, works through `SCRIPT` on it, one call each time it is asked, and
 * keeps what was acknowledged so the run can check nothing of it was lost.
 */
export class PaceAgent {
  /** The issue it holds, as `next_issue` acknowledged it. */
  held: { key: string; token: string } | undefined;
  private step = 0;
  readonly calls: PaceCall[] = [];
  /** Keys whose `done` was acknowledged. */
  readonly done: string[] = [];
  /** Keys `next_issue` gave it. */
  readonly claimed: string[] = [];
  private checkpoints = 0;

  private constructor(
    readonly name: string,
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
  ) {}

  static async start(cli: string, db: string, name: string): Promise<PaceAgent> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'serve', '--db', db],
      cwd: dirname(db),
      env: { ...getDefaultEnvironment(), ...SERVER_ENV, BATON_AGENT: name },
      stderr: 'ignore',
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    return new PaceAgent(name, client, transport);
  }

  get pid(): number {
    return this.transport.pid ?? 0;
  }

  /** Makes the agent's next call; onClaim hears each key `next_issue` hands it. */
  async next(onClaim: (key: string) => void): Promise<PaceCall> {
    if (!this.held) {
      const call = await this.call('next_issue', {});
      if (call.ok && call.content.issue) {
        this.held = { key: call.content.issue.key, token: call.content.lease.claimToken };
        this.claimed.push(this.held.key);
        onClaim(this.held.key);
        this.step = 0;
      }
      return call.record;
    }
    const { key, token } = this.held;
    const tool = SCRIPT[this.step];
    const input: Record<string, unknown> =
      tool === 'get_issue' ? { key } : tool === 'list_claims' ? {} : tool === 'checkpoint' ? { key, claimToken: token, note: `${this.name} step ${++this.checkpoints}`, state: { step: this.checkpoints } } : { key, claimToken: token };
    const call = await this.call(tool, input);
    if (call.ok) {
      this.step++;
      if (tool === 'done') {
        this.done.push(key);
        this.held = undefined;
      }
    }
    return call.record;
  }

  /** A call outside the script, which may run beside the agent's own: a heartbeat of what it holds, else a read. */
  async probe(): Promise<PaceCall> {
    const held = this.held;
    return (await (held ? this.call('heartbeat', { key: held.key, claimToken: held.token }) : this.call('list_claims', {}))).record;
  }

  /** A read any agent may make, for checks. */
  async read(tool: string, input: Record<string, unknown>): Promise<Content> {
    const call = await this.call(tool, input);
    if (!call.ok) throw new Error(`${tool} refused: ${call.record.code}`);
    return call.content;
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }

  private async call(tool: string, input: Record<string, unknown>): Promise<{ ok: boolean; content: Content; record: PaceCall }> {
    const startedAt = performance.now();
    let ok = false;
    let content: Content = {};
    let code: string | undefined;
    try {
      const result = await this.client.callTool({ name: tool, arguments: input }, undefined, { timeout: 60_000 });
      content = (result.structuredContent ?? {}) as Content;
      ok = result.isError !== true;
      if (!ok) code = String(content.error?.code ?? 'UNKNOWN');
    } catch (error) {
      code = `THROWN: ${error instanceof Error ? error.message : String(error)}`;
    }
    const record: PaceCall = { tool, startedAt, ms: performance.now() - startedAt, ok, code };
    this.calls.push(record);
    return { ok, content, record };
  }
}
