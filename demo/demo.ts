import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBaton } from '../shared/open.js';
import { colorsFor } from '../mcp-server/cli/render.js';
import { makeRepo } from '../test/helpers/git.js';
import { AgentProcesses } from './agent-processes.js';
import type { AgentEvent } from './events.js';
import { LiveClaims } from './live-claims.js';
import { ISSUES, SCENARIO } from './scenario.js';
import { type Outcome, verify } from './verify.js';

/*
 * `npm run demo`: several real agent processes, each speaking MCP over stdio to its own
 * `baton serve`, share one queue from two worktrees of a scratch repository. One agent
 * is killed mid-work and its issue is resumed from its checkpoint by another; one stalls
 * past its lease and its late write is refused. A live table of the claims counts down
 * while it runs; a summary checks what happened and the exit status says whether it did.
 */

const cli = join(__dirname, 'cli.js');
const keep = process.argv.includes('--keep');
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`;
const c = colorsFor(process.stdout, process.env);
const paint: Record<string, (s: string) => string> = { alice: c.cyan, bob: c.magenta, carol: c.yellow, dave: c.green };
const who = (agent: string) => (paint[agent] ?? c.bold)(agent.padEnd(5));

/** Short leases and a fast sweep so a reclaim fits in the minute; nothing from an outer Baton setup. */
function demoEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_LEASE_SECONDS: String(SCENARIO.leaseSeconds), BATON_SWEEP_MS: String(SCENARIO.sweepMs) };
  for (const name of ['BATON_DB', 'BATON_DATABASE_URL', 'BATON_AGENT', 'BATON_RENEWER', 'BATON_PREFIX', 'BATON_REQUIRE_REVIEW']) delete env[name];
  return env;
}

/** Runs the CLI as a person would, for its output. */
function baton(cwd: string, ...args: string[]): string {
  const color = c.isColorSupported ? { FORCE_COLOR: '1' } : {};
  return execFileSync(process.execPath, [cli, ...args], { cwd, env: { ...demoEnv(), ...color, BATON_AGENT: 'lead' }, encoding: 'utf8' });
}

function describe(e: AgentEvent): string {
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

async function main(): Promise<number> {
  // The tests' scratch repository: one implementation of "a repo with worktrees" for both.
  const scratch = makeRepo({ worktrees: ['wt-a', 'wt-b'] });
  const [wtA, wtB] = scratch.worktrees;
  const opened = await openBaton({ cwd: scratch.main, env: { ...demoEnv(), BATON_AGENT: 'demo-view' } });
  if (!opened.ok) throw new Error(opened.error.message);
  const { baton: core } = opened.value;
  const live = new LiveClaims(core, c, elapsed, process.stdout);
  const outcome: Outcome = { events: [], killed: null, maxConcurrent: 0, leftRunning: [], finalIssues: [], seconds: 0 };

  let lastVictimStep: Extract<AgentEvent, { type: 'checkpoint' }> | undefined;
  const agents: AgentProcesses = new AgentProcesses(join(__dirname, 'demo-agent.js'), demoEnv(), (e) => {
    outcome.events.push({ ...e, at: Date.now() - started });
    live.say(describe(e));
    // The scenario's crash: the victim is killed while silent after a checkpoint, so the
    // step its issue must be resumed from is known.
    if (e.type === 'checkpoint' && e.agent === SCENARIO.victim) lastVictimStep = e;
    if (e.type === 'stalling' && e.agent === SCENARIO.victim && lastVictimStep && !outcome.killed) {
      const pids = agents.kill(e.agent);
      outcome.killed = { agent: e.agent, key: e.key, step: lastVictimStep.step, of: lastVictimStep.of, ...pids };
      live.say(`${c.red('SIGKILL')} ${who(e.agent)} and its server (pids ${pids.agentPid}, ${pids.serverPid}) mid-work on ${c.bold(e.key)}: its lease will expire`);
      setTimeout(() => {
        live.say(`${who(SCENARIO.replacement)} starts in wt-b, where ${e.agent} worked`);
        agents.start(SCENARIO.replacement, wtB, agentArgs());
      }, 500);
    }
  });
  const cleanup = () => {
    agents.killAll();
    if (!keep) scratch.remove();
  };
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });

  try {
    console.log(c.bold('Baton demo: four agents, two worktrees, one queue'));
    console.log(c.dim(`scratch repository ${scratch.main} with worktrees wt-a and wt-b; leases of ${SCENARIO.leaseSeconds}s\n`));
    const file = join(scratch.dir, 'issues.json');
    writeFileSync(file, JSON.stringify(ISSUES, null, 2));
    console.log(`$ baton import issues.json\n${indent(baton(scratch.main, 'import', file))}`);
    console.log(`$ baton ls --ready   ${c.dim('(dispatch order: effective priority, then priority, then age)')}\n${indent(baton(scratch.main, 'ls', '--ready'))}`);

    live.start();
    agents.start('alice', wtA, agentArgs());
    agents.start(SCENARIO.victim, wtB, agentArgs(SCENARIO.killAtStep, SCENARIO.victimStallMs));
    agents.start('carol', scratch.main, agentArgs(1, SCENARIO.stallMs));
    const deadline = started + SCENARIO.deadlineMs;
    while (Date.now() < deadline && !(agents.allExited() && (!outcome.killed || agents.has(SCENARIO.replacement)))) await sleep(200);
    live.stop();

    for (const failure of agents.failures()) live.say(`${who(failure.name)} exited with ${failure.code}: ${failure.stderr}`);
    outcome.maxConcurrent = live.maxConcurrent;
    outcome.leftRunning = await agents.stillRunning(2_000);
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
    await opened.value.close();
    cleanup();
  }
}

/** The agent's command line: the CLI it starts as its server, its pace, and when it goes silent. */
function agentArgs(stallAfterStep?: number, stallMs?: number): string[] {
  const args = ['--cli', cli, '--steps', String(SCENARIO.steps), '--step-ms', String(SCENARIO.stepMs)];
  return stallMs ? [...args, '--stall-after-step', String(stallAfterStep), '--stall-ms', String(stallMs)] : args;
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
