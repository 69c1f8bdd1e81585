import { execFileSync, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from './spawnServer.js';

/**
 * Root ignores file modes, so tests of permissions run the CLI as nobody when run as
 * root: the uid and gid to spawn with, or null when the tests already run unprivileged.
 */
export const unprivileged = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'nobody'])), gid: Number(execFileSync('id', ['-g', 'nobody'])) } : null;

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON document. */
  json<T = any>(): T;
}

/**
 * Runs `node dist/cli.js ...args` as a process and collects what it printed. The
 * environment is a minimal one plus `env`, so that a BATON_* of the outer shell cannot
 * leak in; stdout is a pipe, so output is plain (no colour).
 */
export function runCli(args: string[], options: { cwd: string; env?: Record<string, string>; input?: string; timeoutMs?: number }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { ...getDefaultEnvironment(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`baton ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({
        status,
        stdout,
        stderr,
        json: () => {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(`not JSON (status ${status}):\n${stdout}\nstderr:\n${stderr}`);
          }
        },
      });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Calls a tool and returns its structured answer (`{ error }` for a refusal). */
export async function callTool(client: { callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as { structuredContent?: unknown };
  return result.structuredContent;
}
