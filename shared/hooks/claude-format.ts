import { type HookEvent, type HookFormat, readEventObject } from './hook-event.js';

/**
 * Claude Code's hook format, as the types of `@anthropic-ai/claude-agent-sdk` give them
 * (`BaseHookInput`, `PostToolUseHookInput`, `StopHookInput`, `SyncHookJSONOutput`…): a JSON
 * object on stdin, an answer as JSON on stdout with exit status 0, nothing when there is
 * nothing to say.
 */
const EVENTS: Readonly<Record<string, HookEvent>> = { PostToolUse: 'tool', UserPromptSubmit: 'prompt', Stop: 'stop', SessionEnd: 'end' };

export const claudeFormat: HookFormat = {
  parse(text) {
    const input = readEventObject(text);
    if (input === null) return null;
    const name = input.hook_event_name;
    const event = EVENTS[name] ?? 'other';
    return {
      name,
      input: {
        event,
        cwd: typeof input.cwd === 'string' ? input.cwd : null,
        // Only these take added context (`hookSpecificOutput.additionalContext`).
        tells: event === 'tool' || event === 'prompt',
        continuing: input.stop_hook_active === true,
        reason: typeof input.reason === 'string' ? input.reason : null,
      },
    };
  },

  output(name, answer) {
    if (answer === null || name === null) return null;
    // A nudge refuses the stop once: Claude Code goes on with the reason as its prompt.
    if (answer.kind === 'nudge') return name === 'Stop' ? JSON.stringify({ decision: 'block', reason: answer.text }) : null;
    if (name !== 'PostToolUse' && name !== 'UserPromptSubmit') return null;
    return JSON.stringify({ hookSpecificOutput: { hookEventName: name, additionalContext: answer.text } });
  },
};
