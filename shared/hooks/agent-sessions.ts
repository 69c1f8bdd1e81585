import { readFileSync } from 'node:fs';
import type { SessionRecord } from '../types.js';

/**
 * Which Baton sessions are those of the agent that ran a hook. Claude Code (and Cursor)
 * start both their MCP servers and their hook commands as descendants of the one agent
 * process, so:
 *
 * 1. Candidates: sessions not ended, recorded on this machine, whose server process runs,
 *    in the hook's worktree when both are known.
 * 2. By process ancestry, where the OS tells a process's parent (Linux `/proc`): walk up
 *    from the hook to the nearest ancestor that is also an ancestor of a candidate's
 *    server (never pid 1); the agent's sessions are the candidates under that ancestor.
 * 3. Elsewhere: the candidates of the hook's worktree, of `agent` when it is known.
 */
export function agentSessions(
  sessions: readonly SessionRecord[],
  hook: HookProcess,
  isAlive: (pid: number) => boolean,
  parentOf: (pid: number) => number | null = procParent,
): SessionRecord[] {
  const candidates = sessions.filter(
    (s) => s.endedAt === null && s.host === hook.host && (hook.worktree === null || s.worktree === null || s.worktree === hook.worktree) && isAlive(s.pid),
  );
  const up = hook.ancestors;
  if (up.length > 0) {
    let nearest = Number.POSITIVE_INFINITY;
    const depth = new Map<string, number>();
    for (const session of candidates) {
      const chain = new Set([session.pid, ...ancestors(session.pid, parentOf)]);
      const at = up.findIndex((pid) => chain.has(pid));
      if (at < 0) continue;
      depth.set(session.id, at);
      nearest = Math.min(nearest, at);
    }
    return candidates.filter((s) => depth.get(s.id) === nearest);
  }
  if (hook.worktree === null) return [];
  return candidates.filter((s) => s.worktree === hook.worktree && (hook.agent === undefined || s.agent === hook.agent));
}

/** What a hook process tells of itself: enough to find its agent's sessions wherever this runs on its machine. */
export interface HookProcess {
  /** Its ancestors, nearest first (`ancestors(process.pid)`); empty where the OS does not tell. */
  ancestors: number[];
  host: string;
  /** The git top level of the agent's directory, when in a worktree. */
  worktree: string | null;
  /** `BATON_AGENT` of the hook, when set. */
  agent?: string;
}

/** The ancestors of `pid`, nearest first, without pid 1 (whose children are every orphan) and 0. */
export function ancestors(pid: number, parentOf: (pid: number) => number | null = procParent): number[] {
  const out: number[] = [];
  let current = parentOf(pid);
  // Bounded: a process table that changes under the walk must not loop it.
  while (current !== null && current > 1 && out.length < 64) {
    out.push(current);
    current = parentOf(current);
  }
  return out;
}

/** The parent of a process from `/proc/<pid>/stat`; null where there is no /proc or no such process. */
export function procParent(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : null;
}
