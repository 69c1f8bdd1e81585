import type { Command } from 'commander';
import { userInfo } from 'node:os';
import type { BatonError } from '../../shared/errors.js';
import { openBaton, type Opened } from '../../shared/open.js';
import { clockOffsetMs } from '../../shared/store/clock-offset.js';
import type { Caller } from '../../shared/types.js';
import { CliExit, EXIT, refused } from './exit.js';
import type { Colors, OutputStream } from './render.js';
import { colorsFor, forTerminal, writeJson } from './render.js';

/** What every command gets from the entry point; tests and the demo may pass their own. */
export interface CliDeps {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: OutputStream;
  stderr: OutputStream;
  /** The script that runs this CLI (`dist/cli.js`), for configuration that launches it again. */
  cliPath: string;
}

/** Options every command but `serve` takes. */
export interface CommonOptions {
  json?: boolean;
  db?: string;
}

/** One run of one command: its output streams, colours, and the database it opened. */
export class CommandContext {
  readonly json: boolean;
  readonly out: Colors;
  readonly err: Colors;
  private opened: Opened | null = null;

  constructor(
    readonly deps: CliDeps,
    readonly options: CommonOptions,
  ) {
    this.json = Boolean(options.json);
    this.out = colorsFor(deps.stdout, deps.env);
    this.err = colorsFor(deps.stderr, deps.env);
  }

  /** Opens the database of this repository (or `--db`/`BATON_DB`) once per command. */
  async open(caller: Partial<Caller> = {}): Promise<Opened> {
    if (this.opened) return this.opened;
    const result = await openBaton({
      cwd: this.deps.cwd,
      db: this.options.db,
      env: this.deps.env,
      caller: { agent: this.deps.env.BATON_AGENT || defaultAgent(), ...caller },
      // While a server writes for the database, a command's calls go to it too.
      forward: 'client',
    });
    if (!result.ok) {
      // A bad setting (.baton.json, BATON_LEASE_SECONDS) is a usage problem, as for `serve`.
      throw result.error.code === 'INVALID_INPUT' ? new CliExit(EXIT.usage, result.error) : refused(result.error);
    }
    this.opened = result.value;
    return this.opened;
  }

  /**
   * The store's clock as this machine reads it, for countdowns. On PostgreSQL leases
   * follow the database clock: a countdown against this machine's own clock would be off
   * by however far that clock is off, minutes on a machine that lost its time sync.
   */
  async storeClock(): Promise<() => number> {
    const offset = await clockOffsetMs((await this.open()).store);
    return () => Date.now() - offset;
  }

  /** The width to fit tables into: the terminal's, or none when piped. */
  get width(): number | undefined {
    return this.deps.stdout.isTTY ? this.deps.stdout.columns || 100 : undefined;
  }

  print(text: string): void {
    const safe = forTerminal(text, this.out.isColorSupported);
    this.deps.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  }

  printJson(value: unknown): void {
    writeJson(this.deps.stdout, value);
  }

  /** A diagnostic or progress line: always stderr, so stdout stays data. */
  log(text: string): void {
    this.deps.stderr.write(`${forTerminal(text, this.err.isColorSupported)}\n`);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = null;
    await opened?.close();
  }

  /** Prints a refusal: `{ error }` on stdout for scripts, and one line on stderr for people. */
  reportError(error: BatonError): void {
    if (this.json) this.printJson({ error });
    this.log(`${this.err.red('error')} ${this.err.bold(error.code)}: ${error.message}`);
  }
}

function defaultAgent(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** Adds `--json` and `--db` to a command. */
export function withCommonOptions(command: Command): Command {
  return command
    .option('--json', 'print JSON for scripts instead of text')
    .option('--db <path>', 'use this database file (default: <git common dir>/baton/baton.db, or BATON_DB)');
}

/**
 * Wraps a command's action: builds its context, runs it, reports a refusal, closes the
 * database, and hands the exit status to the entry point as a `CliExit`. Commander calls
 * an action with the positional arguments, then the options, then the command.
 */
export function action<O extends CommonOptions, P extends unknown[] = string[]>(
  deps: CliDeps,
  run: (ctx: CommandContext, opts: O, ...positionals: P) => Promise<void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const opts = args[args.length - 2] as O;
    const ctx = new CommandContext(deps, opts);
    try {
      await run(ctx, opts, ...(args.slice(0, -2) as P));
    } catch (error) {
      if (error instanceof CliExit && error.error) {
        ctx.reportError(error.error);
        throw new CliExit(error.status);
      }
      throw error;
    } finally {
      await ctx.close();
    }
  };
}
