import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Baton } from '../shared/baton.js';
import { ManualClock } from '../shared/clock.js';
import { DEFAULTS } from '../shared/config.js';
import { ok } from '../shared/result.js';
import { openFileStore } from '../shared/store/file/index.js';
import { type HistoryShape, writeHour } from './history-gen.js';

/*
 * The retention benchmark, runnable alone:
 *   npm run build && node bench/build.mjs && node dist/bench/retention.js [options]
 * Two databases get the same generated history of eight agents, simulated day by day
 * (not in wall-clock time): one keeps everything, the other applies retention at each
 * simulated day as servers do. After each day it measures the database (snapshot plus
 * log), the generating writer's peak RSS, and the peak RSS of a fresh process that
 * opens the database and writes once (a server starting on it). Each side runs in its
 * own process, so that one's memory does not count in the other's.
 */

const USAGE = `usage: node dist/bench/retention.js [options]

  --days <n>             simulated days, 1 to 60 (default 5)
  --history-days <n>     historyDays of the pruned side, 1 to 30 (default 1)
  --cycles <n>           issues each agent finishes per simulated hour, 1 to 120 (default 6)
  --state-bytes <n>      bytes of each checkpoint's state, 0 to 100000 (default 1500)
  --help                 this text
`;

interface DayResult {
  day: number;
  /** The files: snapshot plus operation log (the log holds up to 8 MiB before it is folded in). */
  mb: number;
  /** Pages in use (page count less free pages): what the data takes, free pages and log aside. */
  usedMb: number;
  /** Rows of history retention folds: events, checkpoints, tokens. */
  historyRows: number;
  issues: number;
  writerPeakMb: number;
  freshWriterPeakMb: number;
}

const MB = 1024 * 1024;
const DAY_MS = 86_400_000;

function options() {
  const { values } = parseArgs({
    options: {
      days: { type: 'string', default: '5' },
      'history-days': { type: 'string', default: '1' },
      cycles: { type: 'string', default: '6' },
      'state-bytes': { type: 'string', default: '1500' },
      side: { type: 'string' },
      probe: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const int = (name: keyof typeof values, min: number, max: number) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
  return {
    help: values.help === true,
    side: values.side as 'kept' | 'pruned' | undefined,
    probe: values.probe,
    days: int('days', 1, 60),
    historyDays: int('history-days', 1, 30),
    shape: { agents: 8, cyclesPerHour: int('cycles', 1, 120), checkpointsPerCycle: 4, stateBytes: int('state-bytes', 0, 100_000), renewalsPerCycle: 20 } satisfies HistoryShape,
  };
}

/** A fresh writer: opens the database, writes once, reports its peak RSS in MB. */
async function probe(path: string): Promise<void> {
  const store = await openFileStore({ path });
  const baton = new Baton({ store, caller: { agent: 'probe', session: `probe-${process.pid}`, renewer: null, worktree: null }, config: DEFAULTS });
  const created = await baton.createIssue({ title: 'probe' });
  if (!created.ok) throw new Error(created.error.message);
  await store.close();
  process.stdout.write(`${JSON.stringify({ peakMb: process.resourceUsage().maxRSS / 1024 })}\n`);
}

/** Seeded, so both sides get the same history. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

async function side(kind: 'kept' | 'pruned', opts: ReturnType<typeof options>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `baton-retention-${kind}-`));
  const path = join(dir, 'baton.db');
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = await openFileStore({ path, clock });
  const baton = new Baton({
    store,
    caller: { agent: 'bench', session: `bench-${kind}`, renewer: null, worktree: null },
    config: { ...DEFAULTS, historyDays: opts.historyDays },
  });
  const random = seeded(53);
  const measure = async (day: number): Promise<DayResult> => {
    const sizes = (await store.info()).sizes!;
    const counts = await store.read(async (tx) => {
      const one = async (sql: string) => Number(Object.values((await tx.get<Record<string, number>>(sql))!)[0]);
      return {
        usedMb: ((await one('PRAGMA page_count')) - (await one('PRAGMA freelist_count'))) * (await one('PRAGMA page_size')) / MB,
        historyRows: (await one('SELECT count(*) AS n FROM events')) + (await one('SELECT count(*) AS n FROM checkpoints')) + (await one('SELECT count(*) AS n FROM tokens')),
        issues: await one('SELECT count(*) AS n FROM issues'),
      };
    });
    const fresh = JSON.parse(execFileSync(process.execPath, [process.argv[1], '--probe', path], { encoding: 'utf8' })) as { peakMb: number };
    return { day, mb: (sizes.snapshot + sizes.log) / MB, ...counts, writerPeakMb: process.resourceUsage().maxRSS / 1024, freshWriterPeakMb: fresh.peakMb };
  };
  try {
    for (let day = 1; day <= opts.days; day++) {
      for (let hour = 0; hour < 24; hour++) {
        const start = clock.now();
        const written = await store.write(async (tx) => ok(await writeHour(tx, opts.shape, start, random)));
        if (!written.ok) throw new Error(written.error.message);
        clock.set(start + DAY_MS / 24);
      }
      if (kind === 'pruned') {
        // As a server's daily turn: bounded transactions until nothing is due.
        for (let more = true; more; ) {
          const pruned = await baton.prune();
          if (!pruned.ok) throw new Error(pruned.error.message);
          more = pruned.value.more;
        }
      }
      process.stdout.write(`${JSON.stringify({ side: kind, ...(await measure(day)) })}\n`);
    }
    if (kind === 'pruned') {
      await store.compact();
      process.stdout.write(`${JSON.stringify({ side: 'pruned+compact', ...(await measure(opts.days)) })}\n`);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function table(rows: (DayResult & { side: string })[]): string {
  const lines = ['side            day   files MB   data MB   history rows   issues   writer peak RSS MB   fresh writer peak RSS MB'];
  for (const r of rows) {
    lines.push(
      `${r.side.padEnd(15)} ${String(r.day).padStart(3)}   ${r.mb.toFixed(1).padStart(8)}   ${r.usedMb.toFixed(1).padStart(7)}   ${String(r.historyRows).padStart(12)}   ${String(r.issues).padStart(6)}   ${r.writerPeakMb.toFixed(0).padStart(18)}   ${r.freshWriterPeakMb.toFixed(0).padStart(24)}`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const opts = options();
  if (opts.help) return void process.stdout.write(USAGE);
  if (opts.probe) return probe(opts.probe);
  if (opts.side) return side(opts.side, opts);
  const perCycle = opts.shape.checkpointsPerCycle * (opts.shape.stateBytes + 400) + 1000;
  process.stderr.write(
    `retention: ${opts.days} simulated days of 8 agents finishing ${opts.shape.cyclesPerHour} issues an hour each ` +
      `(~${((perCycle * 8 * opts.shape.cyclesPerHour) / MB).toFixed(1)} MB of history a simulated hour); historyDays ${opts.historyDays} on the pruned side\n`,
  );
  const rows: (DayResult & { side: string })[] = [];
  for (const kind of ['kept', 'pruned'] as const) {
    const args = [process.argv[1], '--side', kind, '--days', String(opts.days), '--history-days', String(opts.historyDays), '--cycles', String(opts.shape.cyclesPerHour), '--state-bytes', String(opts.shape.stateBytes)];
    const out = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * MB });
    for (const line of out.trim().split('\n')) rows.push(JSON.parse(line));
    process.stderr.write(`retention: ${kind} side done\n`);
  }
  process.stdout.write(`${table(rows)}\n`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/retention.json', `${JSON.stringify({ options: { days: opts.days, historyDays: opts.historyDays, ...opts.shape }, rows }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`retention: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
