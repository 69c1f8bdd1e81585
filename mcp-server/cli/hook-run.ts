import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { loadConfig } from '../../shared/config.js';
import { writerSocketFor } from '../../shared/forwarding/socket-path.js';
import { WriterLink } from '../../shared/forwarding/writer-link.js';
import { ancestors, type HookProcess } from '../../shared/hooks/agent-sessions.js';
import { claudeFormat } from '../../shared/hooks/claude-format.js';
import { cursorFormat } from '../../shared/hooks/cursor-format.js';
import type { HookAnswer, HookFormat, HookInput } from '../../shared/hooks/hook-event.js';
import { type Location, resolveLocation } from '../../shared/location.js';
import type { Result } from '../../shared/result.js';
import type { OpenHere } from './hook-open.js';

/** The clients whose hooks Baton answers. */
export const HOOK_CLIENTS = ['claude', 'cursor'] as const;
export type HookClient = (typeof HOOK_CLIENTS)[number];

const FORMATS: Record<HookClient, HookFormat> = { claude: claudeFormat, cursor: cursorFormat };

/** How long the hook waits for the server writing for the others before opening the store itself. */
const WRITER_TIMEOUT_MS = 3_000;

type HookIo = { stdin: NodeJS.ReadableStream; stdout: { write(text: string): unknown }; env: NodeJS.ProcessEnv; cwd: string; pid: number };

/**
 * One hook event: reads the client's JSON on stdin, answers on stdout in its format, and
 * always exits 0. Whenever Baton cannot answer (no database here, the store unavailable,
 * input it does not know, any error) it answers as if it had nothing to say: nothing
 * (Claude Code), or the event's empty answer (Cursor). A hook must never stop the agent.
 *
 * The event is answered where the database is already open: by the agents' server that
 * writes for the others (shared/forwarding), over its socket, as one operation. Only
 * where there is none does the hook open the store itself (`openHere`, loaded only
 * then), which at 10k issues costs loading the whole file.
 */
export async function runHook(client: HookClient, io: HookIo, openHere: () => OpenHere): Promise<void> {
  const format = FORMATS[client];
  let name: string | null = null;
  let answer: HookAnswer | null = null;
  try {
    const event = format.parse(await readAll(io.stdin), io.cwd);
    name = event?.name ?? null;
    if (event !== null) answer = await answerEvent(event.input, io, openHere);
  } catch {
    // No answer is the answer: the agent goes on as if Baton were not there.
  }
  const output = format.output(name, answer);
  if (output !== null) io.stdout.write(`${output}\n`);
}

async function answerEvent(input: HookInput, io: HookIo, openHere: () => OpenHere): Promise<HookAnswer | null> {
  const location = resolveLocation({ cwd: input.cwd ?? io.cwd, env: io.env });
  // A hook never creates a database: no database, nothing to say.
  if (!io.env.BATON_DATABASE_URL && !existsSync(location.dbPath)) return null;
  const hook: HookProcess = { ancestors: ancestors(io.pid), host: hostname(), worktree: location.worktree, agent: io.env.BATON_AGENT || undefined };
  const answer = (await throughWriter(location, input, hook, io)) ?? (await openHere()(location, input, hook, io.env, io.cwd));
  return answer?.ok ? answer.value : null;
}

/** The event answered by the server writing for the others; undefined when there is none to ask. */
async function throughWriter(location: Location, input: HookInput, hook: HookProcess, io: HookIo): Promise<Result<HookAnswer | null> | undefined> {
  if (io.env.BATON_DATABASE_URL) return undefined;
  const socket = writerSocketFor(location.dbPath);
  if (socket === undefined || !existsSync(socket)) return undefined;
  const config = loadConfig({ repoRoot: location.repoRoot, env: io.env });
  if (!config.ok) return undefined;
  let link: WriterLink | undefined;
  try {
    link = await WriterLink.connect(socket, WRITER_TIMEOUT_MS);
    const answer = await link.call({
      op: 'hookEvent',
      args: [input, hook],
      caller: { agent: 'hook', session: `hook-${randomUUID()}`, renewer: null, worktree: location.worktree },
      config: config.value,
      tokens: [],
      tag: { id: randomUUID().replace(/-/g, ''), key: randomBytes(32).toString('base64'), confirmed: [] },
    });
    return 'result' in answer ? (answer.result as Result<HookAnswer | null>) : undefined;
  } catch {
    return undefined;
  } finally {
    link?.close();
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
