/**
 * Claude Code's hook formats, as the types of `@anthropic-ai/claude-agent-sdk` give them
 * (`BaseHookInput`, `PostToolUseHookInput`, `StopHookInput`, `SyncHookJSONOutput`…): a JSON
 * object on stdin, an answer as JSON on stdout with exit status 0.
 */

/** The events Baton acts on; any other is activity only. */
export type HookEvent = 'PostToolUse' | 'UserPromptSubmit' | 'Stop' | 'SubagentStop' | 'SessionEnd' | 'other';

/** What Baton reads of a hook's input, whichever client sent it. */
export interface HookInput {
  event: HookEvent;
  /** The directory the agent works in: its git top level names the worktree. */
  cwd: string | null;
  /** Stop only: the agent is already continuing because a stop hook blocked it. */
  stopHookActive: boolean;
  /** SessionEnd only: why (Claude Code: clear, resume, logout, prompt_input_exit, other). */
  reason: string | null;
}

const EVENTS: ReadonlySet<string> = new Set(['PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'SessionEnd']);

/** Claude Code's input; null when it is not a JSON object naming its event. */
export function parseClaudeInput(text: string): HookInput | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const input = value as Record<string, unknown>;
  if (typeof input.hook_event_name !== 'string') return null;
  return {
    event: EVENTS.has(input.hook_event_name) ? (input.hook_event_name as HookEvent) : 'other',
    cwd: typeof input.cwd === 'string' ? input.cwd : null,
    stopHookActive: input.stop_hook_active === true,
    reason: typeof input.reason === 'string' ? input.reason : null,
  };
}

/** What the hook tells the agent: context added to what it reads next, or a stop refused once. */
export type HookAnswer = { kind: 'context'; text: string } | { kind: 'block'; reason: string };

/** The answer in Claude Code's output format (`hookSpecificOutput.additionalContext`, `decision: "block"`). */
export function claudeOutput(event: HookEvent, answer: HookAnswer): string | null {
  if (answer.kind === 'block') return event === 'Stop' || event === 'SubagentStop' ? JSON.stringify({ decision: 'block', reason: answer.reason }) : null;
  if (event !== 'PostToolUse' && event !== 'UserPromptSubmit') return null;
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: answer.text } });
}
