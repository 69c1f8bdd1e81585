import { type Command, InvalidArgumentError } from 'commander';
import type { CliDeps } from './context.js';
import { openedHere } from './hook-open.js';
import { HOOK_CLIENTS, type HookClient, runHook } from './hook-run.js';

/**
 * `baton hook claude` and `baton hook cursor`: answer one hook event of Claude Code or
 * Cursor (docs/protocol.md, "Liveness").
 * The `baton` bin runs it from a bundle of its own (mcp-server/hook-main.ts) so that it
 * loads neither the MCP SDK nor the CLI: it runs on every tool call of the agent.
 */
export function registerHookCommand(program: Command, deps: CliDeps): void {
  program
    .command('hook')
    .summary("answer an agent's hook event (installed by baton init)")
    .description(
      "answer one hook event of a coding agent: JSON on stdin, the client's answer on stdout, exit 0 always. " +
        "Every event is activity of the agent's Baton sessions; a tool call renews their leases; a lost lease is told once; " +
        "a stop asks once for a checkpoint; Claude Code's SessionEnd records the end. Never blocks the agent: when Baton " +
        "cannot answer it prints nothing (claude) or the event's empty answer (cursor)",
    )
    .argument('<client>', `the agent's client: ${HOOK_CLIENTS.join(', ')}`, parseClient)
    .action(async (client: HookClient) => {
      await runHook(client, { stdin: process.stdin, stdout: deps.stdout, env: deps.env, cwd: deps.cwd, pid: process.pid }, () => openedHere);
    });
}

function parseClient(value: string): HookClient {
  if (!(HOOK_CLIENTS as readonly string[]).includes(value)) throw new InvalidArgumentError(`one of ${HOOK_CLIENTS.join(', ')}`);
  return value as HookClient;
}
