import { join } from 'node:path';
import { checkWritable, ClientConfigError, readJsonConfig } from './client-config.js';
import { isJsonObject } from './validate.js';

/** Claude Code's project settings, where its hooks are configured. */
export const CLAUDE_SETTINGS_FILE = '.claude/settings.json';

/** The events `baton hook claude` answers (docs/protocol.md, "Liveness"). */
export const CLAUDE_HOOK_EVENTS = ['PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionEnd'] as const;

/** Cursor's project hooks. */
export const CURSOR_HOOKS_FILE = '.cursor/hooks.json';

/**
 * The events `baton hook cursor` answers. Never `beforeShellExecution` nor
 * `beforeMCPExecution`: their answer is a permission, and Baton's would override what the
 * user's own settings ask about.
 */
export const CURSOR_HOOK_EVENTS = ['beforeSubmitPrompt', 'afterMCPExecution', 'afterShellExecution', 'afterFileEdit', 'stop'] as const;

/** The version of Cursor's hooks file that Baton writes. */
const CURSOR_HOOKS_VERSION = 1;

/** Seconds Claude Code gives the hook before going on without it. */
const HOOK_TIMEOUT_SECONDS = 10;

/** A hook command that is Baton's, whatever launches it: `… hook <client>` run by `baton` or its script. */
function isBatonHook(command: unknown, client: 'claude' | 'cursor'): boolean {
  return typeof command === 'string' && new RegExp(`(^|[\\s/"'])(baton|cli\\.js)["']?\\s+hook\\s+${client}\\s*$`).test(command);
}

/** Leading `NAME=value ` assignments of a command, as a shell reads them. */
const ENV_PREFIX = /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/;

/**
 * Baton's command brought up to date, keeping the variables a user set in front of the
 * old one (`NODE_EXTRA_CA_CERTS= baton hook claude`, say): the launch is Baton's to
 * write, the environment the user's.
 */
function updatedCommand(old: unknown, command: string): string {
  const prefix = typeof old === 'string' ? (ENV_PREFIX.exec(old)?.[0] ?? '') : '';
  return `${prefix}${command}`;
}

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
  const entry = { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
  return planHooks(join(repoRoot, CLAUDE_SETTINGS_FILE), CLAUDE_HOOK_EVENTS, (_, groups) => {
    let found = false;
    const updated = groups.map((group) => {
      if (found || !isJsonObject(group) || !Array.isArray(group.hooks)) return group;
      const at = group.hooks.findIndex((hook) => isJsonObject(hook) && isBatonHook(hook.command, 'claude'));
      if (at < 0) return group;
      found = true;
      const hooks = [...group.hooks];
      const mine = hooks[at] as Record<string, unknown>;
      hooks[at] = { ...mine, ...entry, command: updatedCommand(mine.command, command) };
      return { ...group, hooks };
    });
    return { updated, entry: found ? null : entry };
  }, (event, entry) => (event === 'PostToolUse' ? { matcher: '', hooks: [entry] } : { hooks: [entry] }));
}

/**
 * Merges Baton's hooks into Cursor's `.cursor/hooks.json` (`{ version: 1, hooks:
 * { <event>: [{ command }] } }`) with the same guarantees as `planClaudeHooks`: Baton's
 * entry of an event (`… hook cursor`) gets its command updated and keeps its other keys
 * (`loop_limit`, `matcher`…); every other entry, event and key stays. A file of another
 * `version` than 1 is refused too, as Baton does not know its format.
 */
export function planCursorHooks(repoRoot: string, command: string): { path: string; text: string | null } {
  const path = join(repoRoot, CURSOR_HOOKS_FILE);
  return planHooks(
    path,
    CURSOR_HOOK_EVENTS,
    (_, entries) => {
      const at = entries.findIndex((hook) => isJsonObject(hook) && isBatonHook(hook.command, 'cursor'));
      if (at < 0) return { updated: entries, entry: { command } };
      const updated = [...entries];
      const mine = entries[at] as Record<string, unknown>;
      updated[at] = { ...mine, command: updatedCommand(mine.command, command) };
      return { updated, entry: null };
    },
    (_, entry) => entry,
    (settings) => {
      if (settings.version === undefined) return { version: CURSOR_HOOKS_VERSION, ...settings };
      if (settings.version !== CURSOR_HOOKS_VERSION) throw new ClientConfigError(path, `has "version": ${JSON.stringify(settings.version)}; Baton writes version ${CURSOR_HOOKS_VERSION} only. Add its hooks by hand.`);
      return settings;
    },
  );
}

/**
 * The frame both files share: `hooks` an object of lists by event, each event's list
 * merged by `merge` (which answers the list with Baton's entry updated in place, or the
 * entry to add), the new entry wrapped by `wrap`, and the whole file checked by `top`.
 */
function planHooks(
  path: string,
  events: readonly string[],
  merge: (event: string, list: unknown[]) => { updated: unknown[]; entry: Record<string, unknown> | null },
  wrap: (event: string, entry: Record<string, unknown>) => unknown,
  top: (settings: Record<string, unknown>) => Record<string, unknown> = (settings) => settings,
): { path: string; text: string | null } {
  const read = readJsonConfig(path);
  const settings = top(read);
  const hooks = settings.hooks ?? {};
  if (!isJsonObject(hooks)) throw new ClientConfigError(path, '"hooks" must be an object; Baton will not replace it.');
  const merged: Record<string, unknown> = { ...hooks };
  for (const event of events) {
    const list = hooks[event] ?? [];
    if (!Array.isArray(list)) throw new ClientConfigError(path, `"hooks.${event}" must be a list; Baton will not replace it.`);
    const { updated, entry } = merge(event, list);
    merged[event] = entry === null ? updated : [...updated, wrap(event, entry)];
  }
  if (JSON.stringify(merged) === JSON.stringify(hooks) && settings === read) return { path, text: null };
  checkWritable(path);
  return { path, text: `${JSON.stringify({ ...settings, hooks: merged }, null, 2)}\n` };
}
