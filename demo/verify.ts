import type { IssueSummary } from '../shared/types.js';
import type { AgentEvent } from './events.js';
import { ISSUES } from './scenario.js';

/** What the demo saw happen. */
export interface Outcome {
  events: (AgentEvent & { at: number })[];
  killed: { agent: string; key: string; step: number; of: number; agentPid: number; serverPid: number } | null;
  /** The most live claims seen at one moment. */
  maxConcurrent: number;
  leftRunning: number[];
  finalIssues: IssueSummary[];
  seconds: number;
}

/** The summary, line by line, and every way the run fell short of the scenario. */
export function verify(o: Outcome): { lines: [string, string][]; problems: string[] } {
  const lines: [string, string][] = [];
  const problems: string[] = [];
  const claimed = o.events.filter((e): e is Extract<AgentEvent, { type: 'claimed' }> & { at: number } => e.type === 'claimed');
  const doneAt = new Map(o.events.filter((e) => e.type === 'done').map((e) => [(e as { key: string }).key, e.at]));
  const keyOf = new Map(o.finalIssues.map((i) => [i.title, i.key]));

  const done = o.finalIssues.filter((i) => i.status === 'done').length;
  lines.push(['issues', `${done}/${o.finalIssues.length} done in ${o.seconds.toFixed(1)}s`]);
  if (o.finalIssues.length !== ISSUES.length || done !== o.finalIssues.length) problems.push('not every issue was done');
  if (o.seconds >= 60) problems.push('the demo took a minute or more');

  const firsts = claimed.filter((e, i) => claimed.findIndex((x) => x.agent === e.agent) === i).slice(0, 3);
  lines.push(['parallel', `${o.maxConcurrent} claims live at once; first claims ${firsts.map((e) => `${e.agent} ${e.key}`).join(', ')}`]);
  if (o.maxConcurrent < 2 || new Set(firsts.map((e) => e.key)).size !== firsts.length) problems.push('agents did not hold different issues at once');

  for (const issue of ISSUES.filter((i) => i.blockedBy)) {
    const key = keyOf.get(issue.title);
    const start = claimed.find((e) => e.key === key)?.at ?? -1;
    const blockers = issue.blockedBy!.map((t) => keyOf.get(t)!);
    const waited = blockers.every((b) => (doneAt.get(b) ?? Infinity) <= start);
    lines.push(['order', `${key} was claimed only after ${blockers.join(' and ')} ${blockers.length > 1 ? 'were' : 'was'} done`]);
    if (!waited) problems.push(`${key} was claimed before its blockers were done`);
  }

  const k = o.killed;
  if (!k) problems.push('no agent was killed');
  else {
    lines.push(['killed', `${k.agent} and its server (SIGKILL, pids ${k.agentPid} and ${k.serverPid}) at step ${k.step}/${k.of} of ${k.key}`]);
    const resume = claimed.find((e) => e.key === k.key && e.resumed && e.agent !== k.agent);
    if (resume) lines.push(['resumed', `${resume.agent} took ${k.key} after its lease expired and went on from step ${resume.fromStep}/${k.of}`]);
    if (!resume || resume.fromStep !== k.step) problems.push(`${k.key} was not resumed from ${k.agent}'s checkpoint`);
  }

  const refusals = o.events.filter((e): e is Extract<AgentEvent, { type: 'refused' }> & { at: number } => e.type === 'refused');
  for (const r of refusals) lines.push(['refused', `${r.agent}'s late ${r.call} on ${r.key}: ${r.code} (${r.reason})`]);
  if (!refusals.some((r) => r.code === 'CLAIM_LOST')) problems.push('no late write was refused with CLAIM_LOST');

  const byAgent = new Map<string, string[]>();
  for (const e of o.events) if (e.type === 'done') byAgent.set(e.agent, [...(byAgent.get(e.agent) ?? []), e.key]);
  lines.push(['work', [...byAgent].map(([agent, keys]) => `${agent} ${keys.join(', ')}`).join('; ')]);

  lines.push(['processes', o.leftRunning.length ? `still running: ${o.leftRunning.join(', ')}` : 'none left running']);
  if (o.leftRunning.length) problems.push(`processes left running: ${o.leftRunning.join(', ')}`);
  return { lines, problems };
}
