import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseArgs } from 'node:util';
import { SERVER_ENV } from '../shared/client-config.js';
import type { ClaimResult, Issue, IssueSummary, Lease } from '../shared/types.js';
import type { AgentEvent } from './events.js';

/*
 * One demo agent: a real process that speaks MCP over stdio to its own `baton serve`
 * (spawned by the SDK's StdioClientTransport, in the agent's worktree), and works the
 * queue the way AGENTS.md tells a coding agent to. It reports what it does as JSON lines
 * on stdout for the demo to show; it never prints a claim token.
 */

const { values } = parseArgs({
  options: {
    name: { type: 'string' },
    cli: { type: 'string' },
    steps: { type: 'string', default: '3' },
    'step-ms': { type: 'string', default: '700' },
    // Goes silent this long after checkpoint `stall-after-step` of its first issue, as an
    // agent in a long build with nothing renewing its lease (or one about to crash).
    'stall-ms': { type: 'string', default: '0' },
    'stall-after-step': { type: 'string', default: '1' },
  },
});
const name = values.name ?? 'agent';
const steps = Number(values.steps);
const stepMs = Number(values['step-ms']);
let stallMs = Number(values['stall-ms']);
const stallAfterStep = Number(values['stall-after-step']);

type Answer<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; reason?: string } };
type Call = <T>(tool: string, args: Record<string, unknown>) => Promise<Answer<T>>;

const emit = (event: AgentEvent) => process.stdout.write(`${JSON.stringify(event)}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [values.cli!, 'serve'],
    cwd: process.cwd(),
    env: { ...stringEnv(process.env), ...SERVER_ENV, BATON_AGENT: name },
    stderr: 'inherit',
  });
  const client = new Client({ name: `demo-${name}`, version: '1.0.0' });
  await client.connect(transport);
  emit({ type: 'ready', agent: name, serverPid: transport.pid ?? 0 });

  const call: Call = async <T>(tool: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name: tool, arguments: args });
    const content = result.structuredContent as T & { error: { code: string; message: string; reason?: string } };
    return result.isError ? { ok: false, error: content.error } : { ok: true, value: content };
  };

  for (;;) {
    const next = await call<ClaimResult | { issue: null }>('next_issue', {});
    if (!next.ok) throw new Error(`next_issue: ${next.error.code} ${next.error.message}`);
    if (next.value.issue === null) {
      const open = await call<{ issues: IssueSummary[] }>('list_issues', { limit: 1000 });
      if (!open.ok) throw new Error(`list_issues: ${open.error.message}`);
      const unfinished = open.value.issues.filter((i) => i.status !== 'done' && i.status !== 'cancelled');
      if (unfinished.length === 0) break;
      await sleep(250); // blocked or held by others: look again shortly
      continue;
    }
    await work(call, next.value as ClaimResult);
  }
  emit({ type: 'finished', agent: name });
  await client.close();
}

async function work(call: Call, claim: ClaimResult): Promise<void> {
  const { issue, lease, checkpoint, resumed } = claim;
  const key = issue.key;
  const claimToken = lease.claimToken!;
  const from = resumed && typeof checkpoint?.state?.step === 'number' ? checkpoint.state.step : 0;
  emit({ type: 'claimed', agent: name, key, title: issue.title, resumed, fromStep: from, checkpointNote: checkpoint?.note ?? null, branch: lease.branch });

  for (let step = from + 1; step <= steps; step++) {
    await sleep(stepMs);
    const note = `step ${step}/${steps} of ${issue.title.toLowerCase()}`;
    const saved = await call<{ lease: Lease }>('checkpoint', { key, claimToken, note, state: { step } });
    if (!saved.ok) {
      emit({ type: 'refused', agent: name, key, call: 'checkpoint', code: saved.error.code, reason: saved.error.reason ?? saved.error.message });
      return;
    }
    emit({ type: 'checkpoint', agent: name, key, step, of: steps, note });
    if (stallMs > 0 && step === stallAfterStep) {
      emit({ type: 'stalling', agent: name, key, ms: stallMs });
      await sleep(stallMs);
      stallMs = 0;
    }
  }
  const done = await call<{ issue: Issue }>('done', { key, claimToken, summary: `${name} finished ${issue.title.toLowerCase()}` });
  if (!done.ok) {
    // The late write of a superseded agent: refused, nothing of it applied.
    emit({ type: 'refused', agent: name, key, call: 'done', code: done.error.code, reason: done.error.reason ?? done.error.message });
    return;
  }
  emit({ type: 'done', agent: name, key });
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

main().catch((error: unknown) => {
  process.stderr.write(`demo agent ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
