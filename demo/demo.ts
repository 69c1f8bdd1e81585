import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openBaton } from '../shared/open.js';
import { isProcessAlive } from '../shared/sessions.js';
import type { ClaimView } from '../shared/types.js';
import { LiveView } from '../mcp-server/cli/live-view.js';
import { colorsFor } from '../mcp-server/cli/render.js';
import { claimsTable } from '../mcp-server/cli/tables.js';
import { makeRepo } from '../test/helpers/git.js';
import type { AgentEvent } from './events.js';
import { ISSUES, SCENARIO } from './scenario.js';
import { type Outcome, verify } from './verify.js';

/*
 * `npm run demo`: several real agent processes, each speaking MCP over stdio to its own
 * `baton serve`, share one queue from two worktrees of a scratch repository. One agent
 * is killed mid-work and its issue is resumed from its checkpoint by another; one stalls
 * past its lease and its late write is refused. A live table of the claims counts down
 * while it runs; a summary checks what happened and the exit status says whether it did.
 */

const dist = __dirname;
const cli = join(dist, 'cli.js');
const agentScript = join(dist, 'demo-agent.js');
const keep = process.argv.includes('--keep');
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`;

const c = colorsFor(process.stdout, process.env);
const view = new LiveView(process.stdout);
const paint: Record<string, (s: string) => string> = { alice: c.cyan, bob: c.magenta, carol: c.yellow, dave: c.green };
const who = (agent: string) => (paint[agent] ?? c.bold)(agent.padEnd(5));

// Every process the demo starts, so that it can prove none is left running.
interface Agent {
  name: string;
  proc: ChildProcess;
  serverPid: number | null;
  exited: Promise<number | null>;
  stderr: string;
}
const agents = new Map<string, Agent>();
const pids = new Set<number>();

/** Settings for every process: short leases and a fast sweep so a reclaim fits in the minute; no outside database. */
function demoEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_LEASE_SECONDS: String(SCENARIO.leaseSeconds), BATON_SWEEP_MS: String(SCENARIO.sweepMs) };
  for (const name of ['BATON_DB', 'BATON_DATABASE_URL', 'BATON_AGENT', 'BATON_RENEWER', 'BATON_PREFIX', 'BATON_REQUIRE_REVIEW']) delete env[name];
  return env;
}

function startAgent(name: string, cwd: string, extra: string[], onEvent: (e: AgentEvent) => void): Agent {
  const proc = spawn(process.execPath, [agentScript, '--name', name, '--cli', cli, '--steps', String(SCENARIO.steps), '--step-ms', String(SCENARIO.stepMs), ...extra], {
    cwd,
    env: demoEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const agent: Agent = {
    name,
    proc,
    serverPid: null,
    stderr: '',
    exited: new Promise((resolve) => proc.once('exit', (code) => resolve(code))),
  };
  if (proc.pid) pids.add(proc.pid);
  proc.stderr!.on('data', (chunk: Buffer) => {
    agent.stderr = (agent.stderr + chunk.toString('utf8')).slice(-4000);
  });
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    let event: AgentEvent;
    try {
      event = JSON.parse(line) as AgentEvent;
    } catch {
      return;
    }
    if (event.type === 'ready') {
      agent.serverPid = event.serverPid;
      pids.add(event.serverPid);
    }
    onEvent(event);
  });
  agents.set(name, agent);
  return agent;
}

function say(line: string): void {
  view.log(`${c.dim(elapsed())}  ${line}`);
}

function describe(e: AgentEvent): string | null {
  switch (e.type) {
    case 'ready':
      return `${who(e.agent)} connected: its own baton serve (pid ${e.serverPid}) over stdio`;
    case 'claimed':
      return e.resumed
        ? `${who(e.agent)} claimed ${c.bold(e.key)} ${c.green('resumed')} from checkpoint "${e.checkpointNote}"`
        : `${who(e.agent)} claimed ${c.bold(e.key)} ${e.title} ${c.dim(`on ${e.branch}`)}`;
    case 'checkpoint':
      return `${who(e.agent)} checkpoint ${e.key} ${e.step}/${e.of}`;
    case 'stalling':
      return `${who(e.agent)} goes silent on ${e.key} for up to ${e.ms / 1000}s (a long step; nothing renews its lease)`;
    case 'refused':
      return `${who(e.agent)} late ${e.call} on ${c.bold(e.key)} refused: ${c.red(e.code)} (${e.reason})`;
    case 'done':
      return `${who(e.agent)} done ${c.bold(e.key)}`;
    case 'finished':
      return `${who(e.agent)} found nothing left and stopped`;
  }
}

/** Runs the CLI as a person would, showing its output. */
function baton(cwd: string, ...args: string[]): string {
  const color = c.isColorSupported ? { FORCE_COLOR: '1' } : {};
  return execFileSync(process.execPath, [cli, ...args], { cwd, env: { ...demoEnv(), ...color, BATON_AGENT: 'lead' }, encoding: 'utf8' });
}

async function main(): Promise<number> {
  // The tests' scratch repository: one implementation of "a repo with worktrees" for both.
  const scratch = makeRepo({ worktrees: ['wt-a', 'wt-b'] });
  const [wtA, wtB] = scratch.worktrees;
  const cleanup = () => {
    for (const agent of agents.values()) if (agent.proc.exitCode === null) agent.proc.kill('SIGKILL');
    for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    if (!keep) scratch.remove();
  };
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const outcome: Outcome = { events: [], killed: null, maxConcurrent: 0, leftRunning: [], finalIssues: [], seconds: 0 };
  const opened = await openBaton({ cwd: scratch.main, env: { ...demoEnv(), BATON_AGENT: 'demo-view' } });
  if (!opened.ok) throw new Error(opened.error.message);
  const { baton: core, store } = opened.value;
  let ticker: NodeJS.Timeout | undefined;
  try {
    console.log(c.bold('Baton demo: four agents, two worktrees, one queue'));
    console.log(c.dim(`scratch repository ${scratch.main} with worktrees wt-a and wt-b; leases of ${SCENARIO.leaseSeconds}s\n`));
    const file = join(scratch.dir, 'issues.json');
    writeFileSync(file, JSON.stringify(ISSUES, null, 2));
    console.log(`$ baton import issues.json\n${indent(baton(scratch.main, 'import', file))}`);
    console.log(`$ baton ls --ready   ${c.dim('(dispatch order: effective priority, then priority, then age)')}\n${indent(baton(scratch.main, 'ls', '--ready'))}`);

    // The live view: claims with countdowns, redrawn in place on a terminal.
    let claims: ClaimView[] = [];
    const draw = () => {
      const now = Date.now();
      const body = claims.length ? claimsTable(c, claims, now, process.stdout.columns || 120) : c.dim('  (no live claims)\n');
      const signature = claims.map((cl) => `${cl.key}:${cl.agent}`).sort().join(' ');
      view.draw(`${c.bold(`live claims at ${elapsed().trim()}`)}\n${body}`, signature);
    };
    let polling = false;
    ticker = setInterval(() => {
      if (polling) return;
      polling = true;
      void core
        .listClaims()
        .then((r) => {
          if (r.ok) claims = r.value.claims;
          outcome.maxConcurrent = Math.max(outcome.maxConcurrent, claims.length);
          draw();
        })
        .finally(() => (polling = false));
    }, 250);

    let lastStep: Extract<AgentEvent, { type: 'checkpoint' }> | undefined;
    const onEvent = (e: AgentEvent) => {
      outcome.events.push({ ...e, at: Date.now() - started });
      const line = describe(e);
      if (line) say(line);
      // The scenario's crash: the agent and its server die at once, mid-work, no goodbye.
      // It is killed while silent after a checkpoint, so the checkpoint it resumes from is known.
      if (e.type === 'checkpoint' && e.agent === SCENARIO.victim) lastStep = e;
      if (e.type === 'stalling' && e.agent === SCENARIO.victim && lastStep && !outcome.killed) {
        const agent = agents.get(e.agent)!;
        agent.proc.kill('SIGKILL');
        if (agent.serverPid) process.kill(agent.serverPid, 'SIGKILL');
        outcome.killed = { agent: e.agent, key: e.key, step: lastStep.step, of: lastStep.of, agentPid: agent.proc.pid ?? 0, serverPid: agent.serverPid ?? 0 };
        say(`${c.red('SIGKILL')} ${who(e.agent)} and its server (pids ${agent.proc.pid}, ${agent.serverPid}) mid-work on ${c.bold(e.key)}: its lease will expire`);
        setTimeout(() => {
          say(`${who(SCENARIO.replacement)} starts in wt-b, where ${e.agent} worked`);
          startAgent(SCENARIO.replacement, wtB, [], onEvent);
        }, 500);
      }
    };
    startAgent('alice', wtA, [], onEvent);
    startAgent(SCENARIO.victim, wtB, ['--stall-after-step', String(SCENARIO.killAtStep), '--stall-ms', String(SCENARIO.victimStallMs)], onEvent);
    startAgent('carol', scratch.main, ['--stall-after-step', '1', '--stall-ms', String(SCENARIO.stallMs)], onEvent);

    const deadline = started + SCENARIO.deadlineMs;
    while (Date.now() < deadline) {
      await sleep(200);
      const all = [...agents.values()];
      const replaced = !outcome.killed || agents.has(SCENARIO.replacement);
      if (replaced && all.every((a) => a.proc.exitCode !== null || a.proc.signalCode !== null)) break;
    }
    clearInterval(ticker);
    draw();
    view.done();

    for (const agent of agents.values()) {
      if (agent.proc.exitCode !== null && agent.proc.exitCode !== 0) say(`${who(agent.name)} exited with ${agent.proc.exitCode}: ${agent.stderr.trim()}`);
    }
    // Servers stop when their agent closes stdin; give them a moment, then count what is left.
    for (let i = 0; i < 20 && [...pids].some(isProcessAlive); i++) await sleep(100);
    outcome.leftRunning = [...pids].filter(isProcessAlive);
    const final = await core.listIssues({ limit: 1000 });
    if (final.ok) outcome.finalIssues = final.value.issues;
    outcome.seconds = (Date.now() - started) / 1000;

    console.log(`\n$ baton ls --all\n${indent(baton(scratch.main, 'ls', '--all'))}`);
    const summary = verify(outcome);
    console.log(c.bold('Summary'));
    for (const [label, text] of summary.lines) console.log(`  ${label.padEnd(10)} ${text}`);
    for (const problem of summary.problems) console.log(`  ${c.red('problem')}    ${problem}`);
    console.log(`\n${summary.problems.length ? c.red('Demo failed.') : c.green(`Demo passed in ${outcome.seconds.toFixed(1)}s; nothing left running.`)}`);
    return summary.problems.length ? 1 : 0;
  } finally {
    if (ticker) clearInterval(ticker);
    await store.close();
    cleanup();
  }
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
