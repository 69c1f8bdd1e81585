import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { type BatonConfig, loadConfig } from './config.js';
import { StoreUnavailableError } from './errors.js';
import { writerSocketFor } from './forwarding/socket-path.js';
import { WriterLink } from './forwarding/writer-link.js';
import { resolveLocation } from './location.js';
import type { Result } from './result.js';
import { parsePushLines, pushedBranches, type PushRefusal, pushRefusals, type PushUpdate, refusalText } from './rules/push-guard.js';
import { openFileStore } from './store/file-access.js';
import type { Store } from './store/store.js';

/**
 * `baton guard check`, what the pre-push hook runs: the push rule (rules/push-guard.ts)
 * over the lines git gives the hook. It runs on every push, so it asks the server that
 * holds the database for the agents when one runs, and opens the store itself only
 * where none does; it never loads the MCP server or the command line (launch.ts starts
 * it from a bundle of its own).
 */

export interface GuardCheckOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  db?: string;
  /** The hook's stdin: `<local ref> <local sha> <remote ref> <remote sha>` lines. */
  input: string;
}

/**
 * `pass`: the push may go (`warning` when Baton could not answer); `refuse`: `text` says
 * why and how to override. `unanswered` is set when Baton could not answer.
 */
export interface GuardVerdict {
  pass: boolean;
  refusals: PushRefusal[];
  unanswered: string | null;
  text: string;
}

export async function checkPush(options: GuardCheckOptions): Promise<GuardVerdict> {
  const updates = parsePushLines(options.input);
  const location = resolveLocation({ cwd: options.cwd, db: options.db, env: options.env });
  const config = loadConfig({ repoRoot: location.repoRoot, env: options.env });
  const strict = config.ok && config.value.guard === 'strict';
  const cannot = (why: string): GuardVerdict =>
    strict
      ? { pass: false, refusals: [], unanswered: why, text: `baton: push refused: ${why}, and guard is "strict". To push anyway: git push --no-verify\n` }
      : { pass: true, refusals: [], unanswered: why, text: `baton: warning: the push is not checked: ${why}\n` };
  if (!config.ok) return cannot(config.error.message);
  if (pushedBranches(updates).length === 0) return { pass: true, refusals: [], unanswered: null, text: '' };

  const url = options.env.BATON_DATABASE_URL;
  if (!url && !existsSync(location.dbPath)) return cannot(`no Baton database at ${location.dbPath}`);
  const asked = url ? undefined : await throughWriter(location.dbPath, location.worktree, updates, config.value);
  if (asked?.ok) return verdictOf(asked.value);
  let store: Store;
  try {
    store = url
      ? await (await import('./store/postgres/index.js')).openPostgresStore({ url })
      : await openFileStore({ path: location.dbPath });
  } catch (error) {
    return cannot(reason(error));
  }
  try {
    return verdictOf(await store.read((tx) => pushRefusals(tx, location.worktree, updates)));
  } catch (error) {
    return cannot(reason(error));
  } finally {
    await store.close().catch(() => undefined);
  }
}

function verdictOf(refusals: PushRefusal[]): GuardVerdict {
  return refusals.length === 0 ? { pass: true, refusals, unanswered: null, text: '' } : { pass: false, refusals, unanswered: null, text: refusalText(refusals) };
}

/** How long the check waits for the server writing for the others before opening the store itself. */
const WRITER_TIMEOUT_MS = 3_000;

/** The rule as the server writing for the others answers it, over its socket; undefined when none answers. */
async function throughWriter(dbPath: string, worktree: string | null, updates: PushUpdate[], config: BatonConfig): Promise<Result<PushRefusal[]> | undefined> {
  const socket = writerSocketFor(dbPath);
  if (socket === undefined || !existsSync(socket)) return undefined;
  let link: WriterLink | undefined;
  try {
    link = await WriterLink.connect(socket, WRITER_TIMEOUT_MS);
    const answer = await link.call({ op: 'pushRefusals', args: [{ worktree, updates }], caller: { agent: 'guard', session: `guard-${randomUUID()}`, renewer: null, worktree }, config, tokens: [] });
    return 'result' in answer ? (answer.result as Result<PushRefusal[]>) : undefined;
  } catch {
    return undefined;
  } finally {
    link?.close();
  }
}

/** Whatever stops Baton answering is reported, never thrown: a push must not fail on a stack trace. */
function reason(error: unknown): string {
  if (error instanceof StoreUnavailableError) return error.message;
  return `Baton failed: ${error instanceof Error ? error.message : String(error)}`;
}
