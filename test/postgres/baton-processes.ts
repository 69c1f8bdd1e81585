import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';

const FIXTURE = join(__dirname, 'fixtures', 'baton-process.ts');
const SKEWED_CLOCK = join(__dirname, 'fixtures', 'skewed-clock.cjs');

/**
 * Bundles the Baton process fixture into one .cjs file in a temporary folder (there is
 * no TypeScript loader at run time). `remove` deletes the folder.
 */
export async function bundleBatonProcess(): Promise<{ file: string; dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-pg-'));
  const file = join(dir, 'baton-process.cjs');
  await build({
    entryPoints: [FIXTURE],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['pg-native'],
    logLevel: 'error',
  });
  return { file, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface BatonProcessOptions {
  databaseUrl: string;
  agent: string;
  /** How far this process's clock is from the machine's, in ms. */
  clockSkewMs?: number;
  leaseSeconds?: number;
  /** Working folder: outside git, so no worktree is recorded. */
  cwd: string;
}

/** One running Baton process; `call` runs a method of Baton (or localNow, txNow, info, claimLoop) in it. */
export class BatonProcess {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private stderr = '';
  readonly ready: Promise<{ session: string }>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    let onReady!: (v: { session: string }) => void;
    let onFatal!: (e: Error) => void;
    this.ready = new Promise((resolve, reject) => {
      onReady = resolve;
      onFatal = reject;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number; reply?: unknown; thrown?: string; ready?: boolean; session?: string; fatal?: unknown };
      if (message.ready) onReady({ session: message.session! });
      else if (message.fatal) onFatal(new Error(`process could not open Baton: ${JSON.stringify(message.fatal)}`));
      else if (message.id !== undefined) {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.thrown !== undefined) waiter?.reject(new Error(message.thrown));
        else waiter?.resolve(message.reply);
      }
    });
    child.on('exit', (code) => {
      const failure = new Error(`Baton process exited (${code}): ${this.stderr}`);
      onFatal(failure);
      for (const waiter of this.pending.values()) waiter.reject(failure);
      this.pending.clear();
    });
  }

  static start(bundle: string, options: BatonProcessOptions): BatonProcess {
    const child = spawn(process.execPath, ['--require', SKEWED_CLOCK, bundle], {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH,
        BATON_DATABASE_URL: options.databaseUrl,
        BATON_AGENT: options.agent,
        BATON_LEASE_SECONDS: String(options.leaseSeconds ?? 1800),
        BATON_TEST_CLOCK_SKEW_MS: String(options.clockSkewMs ?? 0),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new BatonProcess(child);
  }

  call<T = unknown>(method: string, input?: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin.write(`${JSON.stringify({ id, method, input })}\n`);
    });
  }

  /** Closes its input, as a client does, and waits for it to exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
