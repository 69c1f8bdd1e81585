import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { agentSessions } from '../../shared/hooks/agent-sessions.js';
import { answerHook } from '../../shared/hooks/answer-hook.js';
import { claudeOutput, parseClaudeInput } from '../../shared/hooks/claude-format.js';
import { resolveLocation } from '../../shared/location.js';
import { openBaton } from '../../shared/open.js';
import { isProcessAlive } from '../../shared/sessions.js';
import { clockOffsetMs } from '../../shared/store/clock-offset.js';

/** The clients whose hooks Baton answers. */
export const HOOK_CLIENTS = ['claude'] as const;
export type HookClient = (typeof HOOK_CLIENTS)[number];

/**
 * One hook event: reads the client's JSON on stdin, answers on stdout in its format, and
 * always exits 0. Whenever Baton cannot answer (no database here, the store unavailable,
 * input it does not know, any error) it prints nothing: a hook must never stop the agent.
 */
export async function runHook(client: HookClient, io: { stdin: NodeJS.ReadableStream; stdout: { write(text: string): unknown }; env: NodeJS.ProcessEnv; cwd: string; pid: number }): Promise<void> {
  try {
    const input = parseClaudeInput(await readAll(io.stdin));
    if (input === null) return;
    const cwd = input.cwd ?? io.cwd;
    const location = resolveLocation({ cwd, env: io.env });
    // A hook never creates a database: no database, nothing to say.
    if (!io.env.BATON_DATABASE_URL && !existsSync(location.dbPath)) return;
    const opened = await openBaton({ cwd, env: io.env, location, caller: { agent: 'hook', renewer: null } });
    if (!opened.ok) return;
    try {
      const { baton, store } = opened.value;
      const now = Date.now() - (await clockOffsetMs(store));
      const hook = { pid: io.pid, host: hostname(), worktree: location.worktree, agent: io.env.BATON_AGENT || undefined };
      const answer = await answerHook(baton, input, { now, mine: (sessions) => agentSessions(sessions, hook, isProcessAlive) });
      const output = answer && client === 'claude' ? claudeOutput(input.event, answer) : null;
      if (output !== null) io.stdout.write(`${output}\n`);
    } finally {
      await opened.value.close();
    }
  } catch {
    // Printing nothing is the answer: the agent goes on as if Baton were not there.
  }
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}
