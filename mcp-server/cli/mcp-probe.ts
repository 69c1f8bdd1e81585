import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** How a client configuration starts one MCP server. */
export interface ServerEntry {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export type ProbeResult = { ok: true; tools: string[]; ms: number } | { ok: false; reason: string };

/**
 * Starts a configured server the way a client would, asks `tools/list`, and stops it.
 * What fails (spawn, handshake, timeout) comes back as a reason, with the end of the
 * server's stderr, which usually says why.
 */
export async function probeServer(entry: ServerEntry, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<ProbeResult> {
  const started = Date.now();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined) env[name] = value;
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args ?? [],
    env: { ...env, BATON_AGENT: 'baton-doctor', ...entry.env },
    cwd: entry.cwd ?? options.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000);
  });
  const client = new Client({ name: 'baton-doctor', version: '1' });
  const timeoutMs = options.timeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    const { tools } = await Promise.race([client.listTools(), timeout]);
    return { ok: true, tools: tools.map((t) => t.name), ms: Date.now() - started };
  } catch (error) {
    const tail = stderr.trim().split('\n').slice(-3).join(' | ');
    return { ok: false, reason: `${(error as Error).message}${tail ? ` (stderr: ${tail})` : ''}` };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}
