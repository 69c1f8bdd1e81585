import { join } from 'node:path';
import { checkWritable, ClientConfigError, readJsonConfig } from './client-config.js';
import { isJsonObject } from './validate.js';

/** Claude Code's project settings, where its hooks are configured. */
export const CLAUDE_SETTINGS_FILE = '.claude/settings.json';

/** The events `baton hook claude` answers (docs/protocol.md, "Liveness"). */
export const CLAUDE_HOOK_EVENTS = ['PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionEnd'] as const;

/** Seconds Claude Code gives the hook before going on without it. */
const HOOK_TIMEOUT_SECONDS = 10;

/** Baton's own hook command, whatever launches it: `… hook claude` run by `baton` or its script. */
const BATON_HOOK = /(^|[\s/"'])(baton|cli\.js)["']?\s+hook\s+claude\s*$/;

/**
 * Merges Baton's hooks into `.claude/settings.json` (`hooks.<Event>: [{ matcher, hooks:
 * [{ type: "command", command, timeout }] }]`), keeping every other hook and setting as
 * it was. Baton's entry of an event is found by its command (`… hook claude`) and brought
 * up to date in place; where there is none, a group of its own is added. Running it again
 * changes nothing. A file that is not a JSON object, has comments, or whose `hooks` (or
 * an event's list) is not what Claude Code reads throws a `ClientConfigError` naming the
 * file, and nothing is written.
 *
 * @returns the file's new text, or null when it is up to date.
 */
export function planClaudeHooks(repoRoot: string, command: string): { path: string; text: string | null } {
  const path = join(repoRoot, CLAUDE_SETTINGS_FILE);
  const settings = readJsonConfig(path);
  const hooks = settings.hooks ?? {};
  if (!isJsonObject(hooks)) throw new ClientConfigError(path, '"hooks" must be an object; Baton will not replace it.');
  const merged: Record<string, unknown> = { ...hooks };
  for (const event of CLAUDE_HOOK_EVENTS) merged[event] = mergeEvent(path, event, hooks[event], command);
  if (JSON.stringify(merged) === JSON.stringify(hooks)) return { path, text: null };
  checkWritable(path);
  return { path, text: `${JSON.stringify({ ...settings, hooks: merged }, null, 2)}\n` };
}

function mergeEvent(path: string, event: string, groups: unknown, command: string): unknown[] {
  if (groups !== undefined && !Array.isArray(groups)) throw new ClientConfigError(path, `"hooks.${event}" must be a list; Baton will not replace it.`);
  const entry = { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
  let found = false;
  const updated = (groups ?? []).map((group) => {
    if (found || !isJsonObject(group) || !Array.isArray(group.hooks)) return group;
    const at = group.hooks.findIndex((hook) => isJsonObject(hook) && typeof hook.command === 'string' && BATON_HOOK.test(hook.command));
    if (at < 0) return group;
    found = true;
    const hooks = [...group.hooks];
    hooks[at] = { ...(hooks[at] as Record<string, unknown>), ...entry };
    return { ...group, hooks };
  });
  // PostToolUse groups match tool names: "" matches every tool. The other events take no matcher.
  if (!found) updated.push(event === 'PostToolUse' ? { matcher: '', hooks: [entry] } : { hooks: [entry] });
  return updated;
}
