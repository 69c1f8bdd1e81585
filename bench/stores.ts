import { Baton } from '../shared/baton.js';
import { DEFAULTS } from '../shared/config.js';
import type { Result } from '../shared/result.js';
import type { SessionTokens } from '../shared/rules/leases.js';
import { openFileStore } from '../shared/store/file/index.js';
import type { Store } from '../shared/store/store.js';
import type { AgentOps, Failure } from './agent-loop.js';

/** Which store a run measures: Baton's file store, the native reference, or PostgreSQL. */
export type StoreKind = 'baton' | 'native' | 'postgres';

/** Opens the store of a run in this process: a file path, or a PostgreSQL URL. */
export async function openBenchStore(kind: StoreKind, target: string): Promise<Store> {
  // Loaded only where used, so a Baton agent's memory holds no native SQLite.
  if (kind === 'native') return (await import('./native.js')).openNativeStore(target);
  if (kind === 'postgres') {
    const { openPostgresStore } = await import('../shared/store/postgres/index.js');
    return openPostgresStore({ url: target });
  }
  return openFileStore({ path: target });
}

/** A session of one benchmark agent on a store, as a server would build it. */
export function benchBaton(store: Store, agent: string, session: string, tokens?: SessionTokens): Baton {
  return new Baton({
    store,
    caller: { agent, session, renewer: null, worktree: null },
    config: { ...DEFAULTS },
    tokens,
    git: async () => null,
  });
}

function answer<T>(result: Result<T>): true | Failure {
  return result.ok ? true : { code: result.error.code };
}

/** The loop's operations as direct calls of the core. */
export function coreOps(baton: Baton): AgentOps {
  return {
    async claim() {
      const r = await baton.nextIssue({});
      if (!r.ok) return { code: r.error.code };
      if (r.value === null) return null;
      return { key: r.value.issue.key, token: r.value.lease.claimToken!, fence: r.value.lease.fence };
    },
    heartbeat: async (c) => answer(await baton.heartbeat({ key: c.key, claimToken: c.token })),
    checkpoint: async (c, step) => answer(await baton.checkpoint({ key: c.key, claimToken: c.token, note: `step ${step}: tests pass, refactoring next`, state: { step } })),
    done: async (c) => answer(await baton.done({ key: c.key, claimToken: c.token })),
    reopen: async (c) => answer(await baton.updateIssue({ key: c.key, status: 'todo' })),
  };
}
