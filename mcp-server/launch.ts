import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

/*
 * The `baton` bin (dist/cli.js): runs the CLI bundle beside it (dist/baton.js) from a V8
 * code cache, so that every process, `baton serve` above all, starts without compiling
 * the whole bundle: compiling was a large part of a new server's time to its first
 * answer (bench/JOURNAL.md).
 *
 * The cache is made once the bundle's modules have loaded, so it holds their code too,
 * and before `main` runs the command: `baton serve` changes V8's flags as it starts
 * (long-lived.ts), and V8 refuses a cache made under other flags. Its name holds a hash
 * of the bundle, since V8 checks a cache only against the source's length, and V8's tag
 * of its version and flags, so the Node of a terminal and the one inside VS Code keep a
 * cache each. It lives beside the bundle (dist/.cache/), which only whoever installed
 * Baton can write; where that is read-only, Baton runs as it would without it.
 */

// The store's checksums use zlib.crc32 (Node 20.15 and 22.2 on). Without it the bundle
// would stop with a TypeError from deep inside; one line says what to install instead.
if (typeof crc32 !== 'function') {
  process.stderr.write(`baton: needs Node.js 20.15 or later on the 20 line, or 22.2 or later; this is ${process.version}\n`);
  process.exit(2);
}

// The pre-push hook runs `guard check <remote> <url>` on every push: it starts a bundle
// of its own, which loads the store and the push rule only (mcp-server/guard-main.ts).
// With an option (--json, --db, --help), or where that bundle is not shipped (the
// .vsix), the whole CLI runs it.
const args = process.argv.slice(2);
const guardBundle = join(__dirname, 'guard.js');
// `baton hook <client>` runs on every tool call of an agent: its own small bundle, without
// the MCP SDK and the CLI, starts in a fraction of the time; it hands anything else back.
// Where it is not beside this script (the .vsix ships the CLI alone), the CLI answers it.
if (args[0] === 'guard' && args[1] === 'check' && args.length <= 4 && args.slice(2).every((a) => !a.startsWith('-')) && existsSync(guardBundle)) {
  (require(guardBundle) as { main(): Promise<void> }).main();
} else {
  const hookBundle = args[0] === 'hook' ? loadHookBundle() : undefined;
  if (hookBundle) hookBundle.main(runBundle);
  else runBundle();
}

function loadHookBundle(): { main(fallback: () => void): void } | undefined {
  try {
    return require(join(__dirname, 'hook.js')) as { main(fallback: () => void): void };
  } catch {
    return undefined;
  }
}

/** Runs the CLI bundle (dist/baton.js) from its code cache. */
function runBundle(): void {
  const bundle = join(__dirname, 'baton.js');
  const cacheDir = join(__dirname, '.cache');

  // Hashed as bytes: hashing the decoded string costs about three times as long.
  const bytes = readFileSync(bundle);
  const version = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const source = bytes.toString('utf8');
  const cacheFile = join(cacheDir, `baton-${version}-${cachedDataVersionTag()}.bin`);

  const cachedData = readCache(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
  });
  const bundleModule = { exports: {} as { main(): void } };
  script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, __dirname);
  if (cachedData === undefined || script.cachedDataRejected) writeCache(script.createCachedData(), cacheDir, cacheFile, version);
  bundleModule.exports.main();
}

function readCache(cacheFile: string): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/** Written whole or not at all (a rename), and the caches of earlier builds removed. */
function writeCache(data: Buffer, cacheDir: string, cacheFile: string, version: string): void {
  try {
    mkdirSync(cacheDir, { recursive: true });
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, data);
    renameSync(temporary, cacheFile);
    // Whatever else is there belongs to an earlier build, or is a write that died halfway.
    for (const name of readdirSync(cacheDir)) {
      if (!(name.startsWith(`baton-${version}-`) && name.endsWith('.bin'))) unlinkSync(join(cacheDir, name));
    }
  } catch {
    // A read-only installation, or another process cleaning up at the same moment: the
    // cache only saves time.
  }
}
