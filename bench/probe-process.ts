import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { ProbeArgs, ProbeCommand, ProbeReply } from './probe-child.js';

/** A helper process of a probe (probe-child.ts), driven one command at a time. */
export class ProbeProcess {
  private readonly child: ChildProcess;
  private readonly listeners = new Set<(m: ProbeReply) => void>();
  private exitCode: number | null | undefined;

  private constructor(benchDir: string, args: ProbeArgs) {
    this.child = fork(join(benchDir, 'probe.js'), [JSON.stringify(args)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.child.on('message', (m: ProbeReply) => {
      for (const l of [...this.listeners]) l(m);
    });
    this.child.on('exit', (code) => {
      this.exitCode = code;
      for (const l of [...this.listeners]) l({ type: 'error', message: `probe process exited (${code})` });
    });
  }

  /** Starts the process and waits until its store is open. */
  static async start(benchDir: string, args: ProbeArgs, timeoutMs = 120_000): Promise<ProbeProcess> {
    const p = new ProbeProcess(benchDir, args);
    try {
      await p.next('ready', timeoutMs);
    } catch (error) {
      p.kill();
      throw error;
    }
    return p;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The next reply of this type (an error reply rejects). */
  next<T extends ProbeReply['type']>(type: T, timeoutMs = 30_000): Promise<Extract<ProbeReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`probe: no '${type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (m: ProbeReply) => {
        if (m.type !== type && m.type !== 'error') return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        if (m.type === 'error') reject(new Error(`probe: ${m.message}`));
        else resolve(m as Extract<ProbeReply, { type: T }>);
      };
      this.listeners.add(listener);
    });
  }

  /** Every reply, until the returned function is called. */
  listen(fn: (m: ProbeReply) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  send(command: ProbeCommand): void {
    this.child.send(command);
  }

  async request<T extends ProbeReply['type']>(command: ProbeCommand, type: T, timeoutMs?: number): Promise<Extract<ProbeReply, { type: T }>> {
    const answer = this.next(type, timeoutMs);
    this.send(command);
    return answer;
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.exitCode === undefined) this.child.kill(signal);
  }

  /** Asks the process to exit; kills it if it has not after a few seconds. */
  async stop(): Promise<void> {
    if (this.exitCode !== undefined) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.send({ cmd: 'exit' });
    const timer = setTimeout(() => this.kill(), 5_000);
    await gone;
    clearTimeout(timer);
  }
}
