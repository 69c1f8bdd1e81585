import type { Baton } from '../shared/baton.js';
import type { Lease } from '../shared/types.js';

/** The core operations the tools call: one `Baton` per session. */
export type Core = Baton;

/** What the tools, the prompt and the resources of one server need. */
export interface ServerDeps {
  /** The session's core, built on first use: the agent name is known only after `initialize`. */
  core(): Promise<Core>;
  /** Told of the leases a call claimed or renewed (the untracked-lease warning). */
  touched(leases: readonly Lease[]): void;
  /**
   * Told of every tool call, a sign of life of the agent (docs/protocol.md, "Liveness"):
   * `written` when the call's own transaction recorded it (a heartbeat, a checkpoint).
   */
  active?(written: boolean): void;
}
