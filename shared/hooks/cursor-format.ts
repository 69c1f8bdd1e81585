import { isAbsolute, relative, sep } from 'node:path';
import { type HookEvent, type HookFormat, readEventObject } from './hook-event.js';

/**
 * Cursor's agent hook format (cursor.com/docs/agent/hooks): a JSON object on stdin with
 * `hook_event_name`, `conversation_id`, `workspace_roots`…, and a JSON object on stdout.
 * Baton answers every event it reads with JSON, `{}` when it has nothing to say, so that
 * Cursor never meets an empty or partial answer.
 */
const EVENTS: Readonly<Record<string, HookEvent>> = {
  afterMCPExecution: 'tool',
  afterShellExecution: 'tool',
  afterFileEdit: 'tool',
  beforeSubmitPrompt: 'prompt',
  stop: 'stop',
};

/** The answer to an event Baton has nothing to say to: Cursor reads every hook's stdout as JSON. */
const EMPTY = '{}';

export const cursorFormat: HookFormat = {
  parse(text, cwd) {
    const input = readEventObject(text);
    if (input === null) return null;
    const name = input.hook_event_name;
    const event = EVENTS[name] ?? 'other';
    return {
      name,
      input: {
        event,
        cwd: workspaceRoot(input.workspace_roots, cwd),
        // Only a stop's `followup_message` reaches the agent; the other answers go to Cursor or to nobody.
        tells: event === 'stop',
        // `loop_count`: the follow-ups stop hooks already caused in this conversation.
        continuing: typeof input.loop_count === 'number' && input.loop_count > 0,
        reason: null,
      },
    };
  },

  output(name, answer) {
    // Baton never holds back a prompt, whatever else happened.
    if (name === 'beforeSubmitPrompt') return JSON.stringify({ continue: true });
    if (name === 'stop' && answer !== null) return JSON.stringify({ followup_message: answer.text });
    return EMPTY;
  },
};

/**
 * The agent's directory: the workspace root that holds the hook's own directory (Cursor
 * runs project hooks from the project's root), else the first root, else unknown.
 */
function workspaceRoot(roots: unknown, cwd: string): string | null {
  if (!Array.isArray(roots)) return null;
  const paths = roots.filter((root): root is string => typeof root === 'string' && isAbsolute(root));
  const holding = paths.find((root) => {
    const inside = relative(root, cwd);
    return inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside));
  });
  return holding ?? paths[0] ?? null;
}
