import { setFlagsFromString } from 'node:v8';
import { checkPush } from '../shared/guard-check.js';

/**
 * `baton guard check` as the pre-push hook runs it (`node dist/cli.js guard check <remote>
 * <url>`, git's lines on stdin): launch.ts starts this bundle instead of the whole CLI, so
 * that a push waits for the store and the rule only. Exit 0 lets the push go, 1 refuses it.
 */
export async function main(): Promise<void> {
  // SQLite's wasm runs here for one query. Without this V8 also compiles it optimised on
  // background threads, and Node waits for those before the process may exit: on a
  // loaded machine that wait was longer than the rest of the check.
  setFlagsFromString('--liftoff-only');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  try {
    const verdict = await checkPush({ cwd: process.cwd(), env: process.env, input: Buffer.concat(chunks).toString('utf8') });
    if (verdict.text) process.stderr.write(verdict.text);
    process.exitCode = verdict.pass ? 0 : 1;
  } catch (error) {
    // Not a refusal the guard can explain: the push goes, as when Baton cannot answer.
    process.stderr.write(`baton: warning: the push is not checked: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 0;
  }
}
