import { dirname } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SERVER_ENV } from '../shared/client-config.js';
import { type AgentCommand, type AgentOps, type Failure, type LoopResult, runLoop } from './agent-loop.js';
import { StdioClient } from './stdio-client.js';

/*
 * An MCP agent: starts its own `baton serve` (the built CLI, in the environment `baton
 * init` configures) over stdio, as a coding agent's host does, and runs the work loop
 * through tool calls.
 * Reports the server's pid so the benchmark can read that process's memory.
 */

export interface McpAgentArgs {
  cli: string;
  db: string;
  agent: string;
  cpuProfileDir?: string;
}

export type McpAgentMessage =
  | { type: 'ready'; pid: number; serverPid: number; openMs: number }
  | { type: 'result'; result: LoopResult; stderr: string }
  | { type: 'error'; message: string };

const args = JSON.parse(process.argv[2]) as McpAgentArgs;
const send = (message: McpAgentMessage) => process.send!(message);

type Content = Record<string, any>;

async function main(): Promise<void> {
  const opening = performance.now();
  const client = await StdioClient.start({
    command: process.execPath,
    // BATON_BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile when it exits.
    args: [...(args.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${args.cpuProfileDir}`] : []), args.cli, 'serve', '--db', args.db],
    cwd: dirname(args.db),
    env: { ...getDefaultEnvironment(), ...SERVER_ENV, BATON_AGENT: args.agent },
    clientName: args.agent,
  });

  type Answer = { ok: true; content: Content } | { ok: false; failure: Failure };
  const call = async (name: string, input: Record<string, unknown>): Promise<Answer> => {
    const { isError, structuredContent: content } = await client.callTool(name, input);
    return isError ? { ok: false, failure: { code: String(content.error?.code ?? 'UNKNOWN') } } : { ok: true, content };
  };
  const done = (answer: Answer): true | Failure => (answer.ok ? true : answer.failure);
  const ops: AgentOps = {
    async claim() {
      const answer = await call('next_issue', {});
      if (!answer.ok) return answer.failure;
      const { issue, lease } = answer.content;
      return issue === null ? null : { key: issue.key, token: lease.claimToken, fence: lease.fence };
    },
    heartbeat: async (c) => done(await call('heartbeat', { key: c.key, claimToken: c.token })),
    checkpoint: async (c, step) => done(await call('checkpoint', { key: c.key, claimToken: c.token, note: `step ${step}: tests pass, refactoring next`, state: { step } })),
    done: async (c) => done(await call('done', { key: c.key, claimToken: c.token })),
    reopen: async (c) => done(await call('update_issue', { key: c.key, status: 'todo' })),
  };
  // The store opens after initialize; one read makes sure it has before the clock starts.
  await call('list_claims', {});
  send({ type: 'ready', pid: process.pid, serverPid: client.pid, openMs: performance.now() - opening });

  for (;;) {
    const command = await new Promise<AgentCommand>((resolve) => process.once('message', (m) => resolve(m as AgentCommand)));
    if (command.type === 'exit') break;
    const result = await runLoop(ops, command);
    send({ type: 'result', result, stderr: client.stderr() });
  }
  await client.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
