import { Baton } from '../../shared/baton.js';
import { type BatonConfig, DEFAULTS } from '../../shared/config.js';
import type { Store } from '../../shared/store/store.js';
import type { Caller, GitState } from '../../shared/types.js';

/** What a test may set on one session of a harness. */
export type SessionOptions = Partial<Caller> & { config?: Partial<BatonConfig>; git?: GitState | null };

let sessions = 0;

/**
 * A harness's `session`: a Baton on `store` for each agent, each with a session id of its
 * own. Kept apart from core.ts, which the PostgreSQL run mocks, so both harnesses share it.
 */
export function sessionsOn(store: Store, config: Partial<BatonConfig>): (agent: string, options?: SessionOptions) => Baton {
  return (agent, options = {}) => {
    const caller: Caller = {
      agent,
      session: options.session ?? `s${++sessions}`,
      renewer: options.renewer ?? null,
      worktree: options.worktree ?? null,
    };
    const git = options.git ?? null;
    return new Baton({ store, caller, config: { ...DEFAULTS, ...config, ...options.config }, git: async () => git });
  };
}
