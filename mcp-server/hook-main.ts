import { join } from 'node:path';
import type { OpenHere } from './cli/hook-open.js';
import { HOOK_CLIENTS, type HookClient, runHook } from './cli/hook-run.js';

/**
 * `baton hook <client>` as the `baton` bin runs it (mcp-server/launch.ts): this bundle holds
 * what it takes to ask the agents' server, not the store, the MCP SDK nor the CLI, as the
 * hook runs on every tool call of the agent. Anything else (`--help`, an unknown client) goes to the CLI.
 */
export function main(fallback: () => void): void {
  const client = process.argv[3];
  if (process.argv.length !== 4 || !(HOOK_CLIENTS as readonly string[]).includes(client)) return fallback();
  // The store's code is a bundle of its own, loaded only when no server can answer.
  const openHere = () => (require(join(__dirname, 'hook-open.js')) as { openedHere: OpenHere }).openedHere;
  void runHook(client as HookClient, { stdin: process.stdin, stdout: process.stdout, env: process.env, cwd: process.cwd(), pid: process.pid }, openHere);
}
