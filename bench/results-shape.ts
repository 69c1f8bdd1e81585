import type { FloorFigures, WakeFigures } from './floor.js';
import type { LoadResult } from './load-run.js';
import type { Summary } from './stats.js';

/** A load run as bench/results/latest.json lists it, with its ratios to the reference of the same round. */
export interface RunEntry extends LoadResult {
  /** This run's figures divided by the native reference's at the same issues and processes (absent for the reference). */
  ratio?: {
    /** Median over the windows of (this store's claims/s) / (the reference's in the same turn). */
    claimsPerSec: number;
    claimsPerSecByWindow: number[];
    /** Total claims over total claims, all windows together. */
    claimsPerSecOverall: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    rssMb: number;
  };
}

/** One target of issue #6, judged. */
export interface Verdict {
  target: string;
  /** What was compared, in words, e.g. "baton via MCP, 10k issues, 8 processes". */
  measured: string;
  value: number | null;
  limit: number;
  unit: string;
  /** `max`: value must stay at or below the limit; `min`: at or above. */
  kind: 'max' | 'min';
  met: boolean | null;
  /** How far from the limit, as a factor (value / limit); null when not measured. */
  factor: number | null;
}

/** bench/results/latest.json. */
export interface BenchResults {
  machine: {
    cpu: string;
    cores: number;
    memoryGb: number;
    node: string;
    platform: string;
    release: string;
    loadAvgAtStart: number;
    loadAvgAtEnd: number;
  };
  date: string;
  /** The commit measured; `modified` when shared/ or mcp-server/ had uncommitted changes. */
  source: { commit: string; modified: boolean } | null;
  quick: boolean;
  /** The warm-up before each set's windows: seconds and cycles per agent at least, seconds at most. */
  warmupSec: number;
  warmupCycles: number;
  warmupMaxSec: number;
  /** Measured seconds per store and configuration, cut into windows of `windowSec` taken in turn. */
  durationSec: number;
  windowSec: number;
  elapsedSec: number;
  generation: { store: string; issues: number; ms: number; bytes?: number }[];
  /**
   * The disk's own cost in this round (see floor.ts), at the start and the end; and at the
   * start, what a round trip between two idle processes costs hot and after a sleep.
   */
  floor: { start: FloorFigures; end?: FloorFigures; wake?: WakeFigures | null };
  postgres?: { fsync: string; synchronousCommit: string; version: string } | null;
  runs: RunEntry[];
  /** Median time from spawning `baton serve` until tools/list is answered (10k issues). */
  spawnToToolsListMs: number | null;
  spawn: { issues: number; toolsListMs: Summary; firstCallMs: Summary }[];
  /** Median time from SIGKILL of the lock holder until a waiting writer committed (Baton, 10k). */
  recoveryAfterKillMs: number | null;
  recovery: { store: string; issues: number; ms: Summary }[];
  readPath: {
    store: string;
    issues: number;
    liveClaims: number;
    afterWrite: ReadTimes;
    unchanged: ReadTimes;
    /** Nothing changed, after a pause as long as the writes before `afterWrite`. */
    afterPause: ReadTimes;
    /** An MCP ping to the reading server after as long a pause; null for a store without a server. */
    idlePingMs: Summary | null;
  }[];
  model: { issues: number; how: string; pollMs: number; seenMs: Summary; loadMs: Summary } | null;
  targets: Verdict[];
  errors: string[];
}

/** Timings of one kind of list_claims read: in the reading process, and as a tool call. */
export interface ReadTimes {
  coreMs: Summary;
  /** Null for a store without a server. */
  mcpMs: Summary | null;
}
