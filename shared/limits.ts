/** Input bounds shared by the core, the MCP schemas and the CLI: past these a value is `INVALID_INPUT`, never stored. */
export const LIMITS = {
  title: 200,
  body: 65_536,
  note: 16_384,
  comment: 16_384,
  summary: 16_384,
  /** Bytes of a checkpoint's `state` once serialised. */
  stateBytes: 65_536,
  /** Levels of nesting of a checkpoint's `state`. */
  stateDepth: 64,
  label: 64,
  labels: 32,
  relationsPerCall: 100,
  requestId: 200,
  batchMax: 50,
  listMax: 1000,
  listDefault: 100,
  activityMax: 1000,
  activityDefault: 50,
  detailActivity: 50,
} as const;

/** `<LETTERS>-<digits>`: the only check a key gets before it is looked up. */
export const KEY_PATTERN = /^[A-Za-z]+-[0-9]+$/;
/** What a prefix may be: letters only, so that keys stay `<LETTERS>-<digits>`. */
export const PREFIX_PATTERN = /^[A-Za-z]{1,16}$/;
export const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 4;
export const DEFAULT_PRIORITY = 2;
export const LEASE_SECONDS_MIN = 1;
export const LEASE_SECONDS_MAX = 86_400;
export const DEFAULT_LEASE_SECONDS = 1800;
/** `idleSeconds` (and `checkpointNudgeSeconds`): 0 means no limit; at most a week. */
export const IDLE_SECONDS_MAX = 604_800;
export const DEFAULT_IDLE_SECONDS = 3600;
export const DEFAULT_CHECKPOINT_NUDGE_SECONDS = 600;
