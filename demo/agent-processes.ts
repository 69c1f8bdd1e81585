import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { isProcessAlive } from '../shared/sessions.js';
import type { AgentEvent } from './events.js';

interface AgentProcess {
  proc: ChildProcess;
  serverPid: number | null;
  /** The end of its stderr, shown when it fails. */
  stderr: string;
}

/**
 * The demo's agent processes and the servers they start: each agent's events come to
 * `onEvent`; every process id is kept, so that the demo can kill an agent with its server
 * and prove at the end that nothing it started is still running.
 */
export class AgentProcesses {
  private readonly agents = new Map<string, AgentProcess>();
  private readonly pids = new Set<number>();

  constructor(
    private readonly script: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly onEvent: (event: AgentEvent) => void,
  ) {}

  start(name: string, cwd: string, args: string[]): void {
    const proc = spawn(process.execPath, [this.script, '--name', name, ...args], { cwd, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const agent: AgentProcess = { proc, serverPid: null, stderr: '' };
    this.agents.set(name, agent);
    if (proc.pid) this.pids.add(proc.pid);
    proc.stderr!.on('data', (chunk: Buffer) => {
      agent.stderr = (agent.stderr + chunk.toString('utf8')).slice(-4000);
    });
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      let event: AgentEvent;
      try {
        event = JSON.parse(line) as AgentEvent;
      } catch {
        return; // not one of its reports
      }
      if (event.type === 'ready') {
        agent.serverPid = event.serverPid;
        this.pids.add(event.serverPid);
      }
      this.onEvent(event);
    });
  }

  has(name: string): boolean {
    return this.agents.has(name);
  }

  /** SIGKILL of the agent and its server at once: a crash, with no chance to say goodbye. */
  kill(name: string): { agentPid: number; serverPid: number } {
    const agent = this.agents.get(name)!;
    agent.proc.kill('SIGKILL');
    if (agent.serverPid) process.kill(agent.serverPid, 'SIGKILL');
    return { agentPid: agent.proc.pid ?? 0, serverPid: agent.serverPid ?? 0 };
  }

  allExited(): boolean {
    return [...this.agents.values()].every(({ proc }) => proc.exitCode !== null || proc.signalCode !== null);
  }

  /** Agents that exited with an error, with what they said on stderr. */
  failures(): { name: string; code: number; stderr: string }[] {
    return [...this.agents]
      .filter(([, { proc }]) => proc.exitCode !== null && proc.exitCode !== 0)
      .map(([name, { proc, stderr }]) => ({ name, code: proc.exitCode!, stderr: stderr.trim() }));
  }

  /** Process ids still running, after giving servers `graceMs` to notice their agent closed stdin. */
  async stillRunning(graceMs: number): Promise<number[]> {
    const deadline = Date.now() + graceMs;
    while ([...this.pids].some(isProcessAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return [...this.pids].filter(isProcessAlive);
  }

  killAll(): void {
    for (const pid of this.pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}
