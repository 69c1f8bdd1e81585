import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from './spawnServer.js';

/** A stand-in agent process with its Baton server and its hooks as children (fake-agent.mjs). */
export interface FakeAgent {
  serverPid: number;
  call(tool: string, args?: Record<string, unknown>): Promise<any>;
  /** Runs `baton hook <client>` (default claude) as the agent's child, from its directory or `cwd`. */
  hook(input: Record<string, unknown>, options?: { client?: 'claude' | 'cursor'; cwd?: string }): Promise<{ status: number | null; stdout: string }>;
  close(): Promise<void>;
}

export async function startFakeAgent(cwd: string, env: Record<string, string>): Promise<FakeAgent> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [resolve('test/helpers/fake-agent.mjs'), CLI], {
    cwd,
    env: { ...getDefaultEnvironment(), FAKE_AGENT_ENV: JSON.stringify(env) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the fake agent exited');
    return JSON.parse(value);
  };
  const ready = await next();
  // One command at a time: each answer is the next line.
  let queue = Promise.resolve<unknown>(undefined);
  const send = (command: object) => {
    const answer = queue.then(() => {
      child.stdin.write(`${JSON.stringify(command)}\n`);
      return next();
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  return {
    serverPid: ready.serverPid,
    call: async (tool, args = {}) => (await send({ call: tool, args })).result,
    hook: (input, options = {}) => send({ hook: input, ...options }),
    close: async () => {
      child.stdin.end();
      await new Promise((done) => child.once('exit', done));
    },
  };
}
