import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { isJsonObject } from './validate.js';

/** How an MCP client starts Baton's server. */
export interface ServerCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * What every launch of `baton serve` sets in its environment. Only a process's start reads
 * either, so they have to come from whoever launches the server.
 * - `MALLOC_ARENA_MAX=1`: glibc gives threads that allocate at the same moment malloc
 *   arenas of their own and never gives them back. V8's compiler threads leave memory in
 *   theirs in every server, which one arena reuses. Other C libraries ignore it.
 * - `--max-semi-space-size=1` (MB): V8's young generation stays at its smallest, which
 *   the small allocations of a server's calls need, and each server's peak is a few
 *   megabytes lower. mcp-server/cli/long-lived.ts holds the V8 settings that may change
 *   after the start.
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1', NODE_OPTIONS: '--max-semi-space-size=1' };

/** The client configuration files Baton writes, relative to the repository's top level. */
export const CLIENT_CONFIG_FILES = ['.mcp.json', '.vscode/mcp.json'] as const;
export type ClientConfigFile = (typeof CLIENT_CONFIG_FILES)[number];

/** The name of Baton's entry in every file. */
export const SERVER_NAME = 'baton';

/** A configuration file Baton will not rewrite: not JSON, or JSON it cannot merge into safely. */
export class ClientConfigError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'ClientConfigError';
  }
}

interface Format {
  /** The object that holds the servers. */
  key: string;
  entry(server: ServerCommand): Record<string, unknown>;
}

const FORMATS: Record<ClientConfigFile, Format> = {
  // Claude Code, Cursor and most other clients.
  '.mcp.json': { key: 'mcpServers', entry: (s) => ({ command: s.command, args: s.args, ...(s.env ? { env: s.env } : {}) }) },
  // VS Code's workspace MCP configuration.
  '.vscode/mcp.json': { key: 'servers', entry: (s) => ({ type: 'stdio', command: s.command, args: s.args, ...(s.env ? { env: s.env } : {}) }) },
};

/** Where each file keeps its servers. */
export const SERVERS_KEY: Readonly<Record<ClientConfigFile, string>> = { '.mcp.json': FORMATS['.mcp.json'].key, '.vscode/mcp.json': FORMATS['.vscode/mcp.json'].key };

/**
 * A client configuration file's text as its client reads it: JSON with comments and
 * trailing commas, which VS Code accepts in mcp.json. Throws on anything else, saying
 * what and where.
 */
export function parseJsonc(text: string): unknown {
  const { value, error } = readJsonc(text);
  if (error !== undefined) throw new Error(error);
  return value;
}

/** `parseJsonc` without the throw: the value, or what is wrong and where. */
function readJsonc(text: string): { value: unknown; error?: string } {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  return errors.length > 0 ? { value, error: `${printParseErrorCode(errors[0].error)} at offset ${errors[0].offset}` } : { value };
}

/** What `writeClientConfig` would write: each file's new text, or null when it is up to date. */
export interface ClientConfigPlan {
  files: { path: string; text: string | null }[];
}

/**
 * Merges a `baton` server entry into the repository's MCP client configuration
 * (`.mcp.json` under `mcpServers`, `.vscode/mcp.json` under `servers` with
 * `type: "stdio"`), keeping every other entry and setting as it was, including the
 * settings of an existing `baton` entry that do not say how to start it. Running it again
 * changes nothing. A file that is not a JSON object, or that has comments (which a
 * rewrite would lose), throws a `ClientConfigError` naming the file and leaves it as it is.
 *
 * @returns the absolute paths written, and those already up to date.
 */
export function writeClientConfig(
  repoRoot: string,
  serverCommand: ServerCommand,
  options: { files?: readonly ClientConfigFile[] } = {},
): { written: string[]; unchanged: string[] } {
  return applyClientConfig(planClientConfig(repoRoot, serverCommand, options));
}

/**
 * The checking half of `writeClientConfig`: reads and merges every file, and checks that
 * each one to change can be written, without writing anything. A caller with checks of
 * its own (`baton init` opens the database) runs them between this and `applyClientConfig`,
 * so that a failure leaves every file as it was. Throws a `ClientConfigError`.
 */
export function planClientConfig(
  repoRoot: string,
  serverCommand: ServerCommand,
  options: { files?: readonly ClientConfigFile[] } = {},
): ClientConfigPlan {
  const files = options.files ?? CLIENT_CONFIG_FILES;
  // Every file is checked before any is written, so a bad one leaves the others untouched too.
  return { files: files.map((file) => planFile(join(repoRoot, file), FORMATS[file], serverCommand)) };
}

/** Writes what `planClientConfig` planned; an I/O failure throws a `ClientConfigError` naming the file. */
export function applyClientConfig(plan: ClientConfigPlan): { written: string[]; unchanged: string[] } {
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const { path, text } of plan.files) {
    if (text === null) {
      unchanged.push(path);
      continue;
    }
    try {
      writeAtomically(path, text);
    } catch (error) {
      throw new ClientConfigError(path, `could not be written (${(error as Error).message}).`);
    }
    written.push(path);
  }
  return { written, unchanged };
}

function planFile(path: string, format: Format, server: ServerCommand): { path: string; text: string | null } {
  const config = existsSync(path) ? parseConfig(path, readFileSync(path, 'utf8')) : {};
  const entry = format.entry(server);
  const servers = config[format.key];
  if (servers !== undefined && !isJsonObject(servers)) {
    throw new ClientConfigError(path, `"${format.key}" must be an object; Baton will not replace it.`);
  }
  const current = servers?.[SERVER_NAME];
  const updated = mergeEntry(path, current, entry);
  if (JSON.stringify(current) === JSON.stringify(updated)) return { path, text: null };
  const merged = { ...config, [format.key]: { ...(servers ?? {}), [SERVER_NAME]: updated } };
  checkWritable(path);
  return { path, text: `${JSON.stringify(merged, null, 2)}\n` };
}

/** The file is replaced by a rename in its folder, made first when missing: the nearest existing folder must take writes. */
export function checkWritable(path: string): void {
  let dir = dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  if (!statSync(dir).isDirectory()) throw new ClientConfigError(path, `cannot be written: ${dir} is not a folder.`);
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new ClientConfigError(path, `cannot be written: ${dir} does not take writes (${(error as NodeJS.ErrnoException).code}).`);
  }
}

/**
 * Baton owns how its server starts (`type`, `command`, `args`, and the variables it
 * passes); every other setting of an existing entry stays, such as the user's own `env`
 * (`BATON_AGENT`, a lease length) or a `cwd`.
 */
function mergeEntry(path: string, current: unknown, entry: Record<string, unknown>): Record<string, unknown> {
  if (!isJsonObject(current)) return entry;
  const merged = { ...current, ...entry };
  if (entry.env !== undefined && current.env !== undefined) {
    if (!isJsonObject(current.env)) throw new ClientConfigError(path, `"${SERVER_NAME}.env" must be an object; Baton will not replace it.`);
    merged.env = { ...current.env, ...(entry.env as Record<string, unknown>) };
  }
  return merged;
}

/**
 * A JSON configuration file as an object ({} when missing or empty); throws a
 * `ClientConfigError` for one that a rewrite would change beyond what Baton merges in
 * (comments, trailing commas, numbers JSON cannot keep) or that is not a JSON object.
 */
export function readJsonConfig(path: string): Record<string, unknown> {
  return existsSync(path) ? parseConfig(path, readFileSync(path, 'utf8')) : {};
}

function parseConfig(path: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Valid once comments and trailing commas are allowed: a JSONC file, not a broken one.
    if (readJsonc(text).error === undefined) {
      throw new ClientConfigError(
        path,
        'has comments or trailing commas, which rewriting it would lose. Add the "baton" entry by hand, or remove them and try again.',
      );
    }
    throw new ClientConfigError(path, `is not valid JSON (${(error as Error).message}). Fix it, then try again.`);
  }
  if (!isJsonObject(parsed)) throw new ClientConfigError(path, 'must hold a JSON object.');
  const lossy = lossyNumber(text);
  if (lossy !== null) {
    throw new ClientConfigError(
      path,
      `holds the number ${lossy}, which rewriting it would change to ${JSON.stringify(Number(lossy))}. Add the "baton" entry by hand, or write that number as a string.`,
    );
  }
  return parsed;
}

/**
 * The first number of a valid JSON text whose value a parse and rewrite would change:
 * JSON.parse reads every number as a double, so 12345678901234567890 would come back
 * as 12345678901234567000, and 1e400 as null. Another spelling of the same value
 * (1.0, 1e3) is written back as that value, and is no loss.
 */
function lossyNumber(text: string): string | null {
  // Strings are matched whole, so that digits inside them are not taken for numbers.
  for (const [token] of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    if (!token.startsWith('"') && exactValue(token) !== exactValue(String(Number(token)))) return token;
  }
  return null;
}

/** A decimal number's exact value in one spelling (`-15e-1` for -1.50); anything else as it is. */
function exactValue(decimal: string): string {
  const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(decimal);
  if (!parts) return decimal;
  const [, sign, whole, fraction = '', exponent = '0'] = parts;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  return `${sign}${significant}e${Number(exponent) - fraction.length + (digits.length - significant.length)}`;
}

function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}
