/**
 * What Baton reads of a hook event and what it answers, whichever client ran the hook:
 * each client's format (claude-format.ts, cursor-format.ts) maps its events onto these,
 * and answer-hook.ts holds the one rule set for all of them.
 */

/**
 * What an event means for the agent's leases: `tool` a tool call it made, `prompt` a
 * message it was given, `stop` the end of its turn, `end` the end of its session;
 * `other` any other sign of life.
 */
export type HookEvent = 'tool' | 'prompt' | 'stop' | 'end' | 'other';

export interface HookInput {
  event: HookEvent;
  /** The directory the agent works in: its git top level names the worktree. */
  cwd: string | null;
  /**
   * Whether the client passes on what the hook says at this event: a lost lease is told
   * at the first event that can carry it (Claude Code: tool calls and prompts; Cursor: stops).
   */
  tells: boolean;
  /** `stop` only: the agent already goes on because a stop hook answered, so it is not asked again. */
  continuing: boolean;
  /** `end` only: why (Claude Code: clear, resume, logout, prompt_input_exit, other). */
  reason: string | null;
}

/** What the hook tells the agent: the leases it lost, or (at a stop) to checkpoint and finish first. */
export type HookAnswer = { kind: 'lost'; text: string } | { kind: 'nudge'; text: string };

/** A client's hook format: its input read into a `HookInput`, and the answer written as it expects. */
export interface HookFormat {
  /** The client's JSON; null when it is not an object naming its event. `cwd`: the hook process's own. */
  parse(text: string, cwd: string): { input: HookInput; name: string } | null;
  /**
   * What to print for an event (`name` as the client named it; null when its input could
   * not be read) given Baton's answer (null when it has none or cannot answer): the
   * client's JSON, or null to print nothing.
   */
  output(name: string | null, answer: HookAnswer | null): string | null;
}

/** The input as a JSON object naming its event in `hook_event_name` (both clients' field); null otherwise. */
export function readEventObject(text: string): (Record<string, unknown> & { hook_event_name: string }) | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const input = value as Record<string, unknown>;
  return typeof input.hook_event_name === 'string' ? (input as Record<string, unknown> & { hook_event_name: string }) : null;
}
