import type { HookProcess } from '../../shared/hooks/agent-sessions.js';
import type { HookAnswer, HookInput } from '../../shared/hooks/hook-event.js';
import type { Location } from '../../shared/location.js';
import { openBaton } from '../../shared/open.js';
import type { Result } from '../../shared/result.js';
import { clockOffsetMs } from '../../shared/store/clock-offset.js';

/** Answers a hook event on a store this process opens; undefined when it cannot be opened. */
export type OpenHere = (location: Location, input: HookInput, hook: HookProcess, env: NodeJS.ProcessEnv, cwd: string) => Promise<Result<HookAnswer | null> | undefined>;

/**
 * The hook event answered on the store opened here: PostgreSQL, or a file no server has
 * open. A bundle of its own (dist/hook-open.js), loaded only then: the store's code is
 * most of what a hook would otherwise parse at every tool call.
 */
export const openedHere: OpenHere = async (location, input, hook, env, cwd) => {
  const opened = await openBaton({ cwd: input.cwd ?? cwd, env, location, caller: { agent: 'hook', renewer: null } });
  if (!opened.ok) return undefined;
  try {
    const now = Date.now() - (await clockOffsetMs(opened.value.store));
    return await opened.value.baton.hookEvent(input, hook, now);
  } finally {
    await opened.value.close();
  }
};
