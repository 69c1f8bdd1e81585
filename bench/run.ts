import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { POLL_MS } from '../extension/constants.js';
import { parseBuilds } from './builds.js';
import { buildDataset, copyForRun, type Dataset } from './dataset.js';
import { measureFloor, measureWake } from './floor.js';
import { AgentSet, type SetConfig } from './load-run.js';
import { PostgresDatasets } from './postgres.js';
import { runEditorSection } from './editor-section.js';
import { runPace } from './pace-section.js';
import { modelProbe, readPathProbe, recoveryProbe, spawnProbe } from './probes.js';
import { addRatios, cpuTable, judgeTargets, opsTable, phasesTable, probesText, runsTable, targetsTable, warmupTable } from './report.js';
import type { BenchResults, RunEntry } from './results-shape.js';
import { round } from './stats.js';
import type { StoreKind } from './stores.js';
import { writeResults } from './write-results.js';

/*
 * `npm run bench [-- --quick]`: generates datasets, runs the load configurations (each
 * Baton run next to the native reference in the same round), then the probes; prints a
 * table on stdout, progress on stderr, and writes its results to a folder of its own
 * under bench/results/runs/ (ignored by git); `--commit` also writes them as the committed
 * bench/results/latest.json and chart.svg. Every process it starts is its own, bounded
 * in count and time.
 */

/**
 * Cycles every agent does before anything is measured. Until V8 has compiled their hot
 * code, processes run at half their speed or less, for a number of cycles rather than
 * of seconds (bench/RESULTS.md, "How to read them").
 */
const WARMUP_CYCLES = 1_000;
/**
 * Nor does a warm-up last longer than this: a store slow to do its cycles (PostgreSQL, or
 * any store on a slow machine) is measured after it. A full run makes thirty-six
 * warm-ups, so their length is most of its time; this leaves eight agents over MCP on
 * two cores near the cycles where their speed levels, and `--warmup-max` gives slower
 * machines longer.
 */
const WARMUP_MAX_SEC = 12;

const USAGE = `usage: npm run bench [-- options]

  --quick              a short run: 10k issues with 1 and 8 processes
  --issues <n,...>     dataset sizes (default 1000,10000,50000; quick 10000)
  --procs <n,...>      agent process counts, 1 to 16 (default 1,4,8; quick 1,8)
  --seconds <n>        measured seconds per store and round, 1 to 120 (default 6)
  --warmup <n>         unmeasured seconds of work before each store's first window,
                       0 to 60 (default 2; quick 1) at least
  --warmup-cycles <n>  and work cycles per agent at least, 0 to 10000 (default
                       ${WARMUP_CYCLES}), unless that takes longer than
  --warmup-max <n>     seconds, from --warmup's to 600 (default ${WARMUP_MAX_SEC}); raise it
                       where slow cores leave the agents short of their cycles
  --no-mcp             leave out the agents driven over stdio MCP
  --no-probes          leave out spawn, read-path, recovery and model probes
  --commit             also write the results as the committed bench/results/latest.json
                       and chart.svg; without it they go only to bench/results/runs/<date>/,
                       which git ignores
  --only pace          only the section "agents at a human pace" (bench/pace.ts): 8 and
                       16 agents (--procs) on 10k and 50k issues (--issues), each
                       --seconds (default 30) from a cold start
  --pace-cli <l=path,...>  the builds it measures side by side, each a label and a
                       dist/cli.js (default: this build's)
  --only extension     only the section "the extension host" (bench/editor-section.ts):
                       a real VS Code (code-server, see test/vscode/install.sh) on 10k
                       issues (--issues, the first size) with the Claims view shown,
                       8 agents (--procs, the first count) at a human pace, --seconds
                       (default 60, up to 600: the windows' CPU differs by about
                       10 ms/s between minutes) measured, beside the same window
                       without Baton
  --editor-vsix <l=path,...>  the builds of the extension it measures side by side,
                       each a label and a .vsix (default: this build, packaged now)
  --help               this text
`;

/** The command line, checked; bad input stops the run before anything is generated. */
function readOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        issues: { type: 'string' },
        procs: { type: 'string' },
        seconds: { type: 'string' },
        warmup: { type: 'string' },
        'warmup-cycles': { type: 'string' },
        'warmup-max': { type: 'string' },
        'no-mcp': { type: 'boolean', default: false },
        'no-probes': { type: 'boolean', default: false },
        commit: { type: 'boolean', default: false },
        only: { type: 'string' },
        'pace-cli': { type: 'string' },
        'editor-vsix': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    usageError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const quick = values.quick === true;
  const list = (name: string, text: string | undefined, fallback: number[], min: number, max: number) => {
    const numbers = text === undefined ? fallback : text.split(',').map((part) => Number(part.trim()));
    if (numbers.some((n) => !Number.isInteger(n) || n < min || n > max)) usageError(`--${name}: whole numbers from ${min} to ${max}, separated by commas`);
    return numbers;
  };
  const number = (name: string, text: string | undefined, fallback: number, min: number, max: number) => {
    const n = text === undefined ? fallback : Number(text);
    if (!(n >= min && n <= max)) usageError(`--${name}: a number from ${min} to ${max}`);
    return n;
  };
  const whole = (name: string, text: string | undefined, fallback: number, min: number, max: number) => {
    const n = number(name, text, fallback, min, max);
    if (!Number.isInteger(n)) usageError(`--${name}: a whole number from ${min} to ${max}`);
    return n;
  };
  const warmupSec = number('warmup', values.warmup, quick ? 1 : 2, 0, 60);
  if (values.only !== undefined && values.only !== 'pace' && values.only !== 'extension') usageError('--only: pace or extension, the sections run alone');
  const pace = values.only === 'pace';
  const editor = values.only === 'extension';
  const pairs = (name: string, text: string | undefined) =>
    text === undefined ? undefined : (parseBuilds(text) ?? usageError(`--${name}: label=path pairs, separated by commas`));
  return {
    pace,
    editor,
    paceClis: pairs('pace-cli', values['pace-cli']),
    editorVsixes: pairs('editor-vsix', values['editor-vsix']),
    quick,
    sizes: list('issues', values.issues, editor ? [10_000] : pace ? [10_000, 50_000] : quick ? [10_000] : [1_000, 10_000, 50_000], 100, 200_000),
    procCounts: list('procs', values.procs, editor ? [8] : pace ? [8, 16] : quick ? [1, 8] : [1, 4, 8], 1, 16),
    durationSec: number('seconds', values.seconds, editor ? 60 : pace ? 30 : 6, 1, editor ? 600 : 120),
    warmupSec,
    warmupCycles: whole('warmup-cycles', values['warmup-cycles'], WARMUP_CYCLES, 0, 10_000),
    warmupMaxSec: number('warmup-max', values['warmup-max'], Math.max(WARMUP_MAX_SEC, warmupSec), warmupSec, 600),
    mcp: !values['no-mcp'],
    probes: !values['no-probes'],
    commit: values.commit === true,
  };
}

function usageError(message: string): never {
  process.stderr.write(`bench: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const options = readOptions();
const { quick, sizes, procCounts, durationSec, warmupSec, warmupCycles, warmupMaxSec } = options;
/** Each store's measured time is cut into windows of this many seconds, interleaved with the other stores'. */
const WINDOW_SEC = 2;
/** Unmeasured time at the start of every window, while the agents wake up. */
const SETTLE_MS = 300;
const pgUrl = process.env.BATON_BENCH_DATABASE_URL ?? process.env.BATON_TEST_DATABASE_URL;

const benchDir = __dirname;
const root = resolve(benchDir, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const resultsDir = join(root, 'bench', 'results');

const started = performance.now();
const progress = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
const k = (n: number) => `${n / 1000}k`;

async function main(): Promise<void> {
  if (options.editor) return runEditorSection({ root, cli, vsixes: options.editorVsixes ?? [{ label: 'this', path: packageVsix() }], issues: sizes[0], agents: procCounts[0], seconds: durationSec, resultsDir, progress });
  if (options.pace) return runPace({ clis: options.paceClis ?? [{ label: 'this', path: cli }], sizes, agentCounts: procCounts, seconds: durationSec, progress });
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first (npm run bench does)`);

  const work = mkdtempSync(join(tmpdir(), 'baton-bench-'));
  const postgres = pgUrl ? new PostgresDatasets(pgUrl) : null;
  const onSignal = () => {
    // The agents got the same signal from the terminal; what remains is this run's files and databases.
    rmSync(work, { recursive: true, force: true });
    void (postgres?.dropAll() ?? Promise.resolve()).catch(() => undefined).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results: BenchResults = {
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGb: round(totalmem() / 2 ** 30),
      node: process.version,
      platform: process.platform,
      release: release(),
      loadAvgAtStart: round(loadavg()[0]),
      loadAvgAtEnd: NaN,
    },
    date: new Date().toISOString(),
    source: sourceVersion(),
    quick,
    warmupSec,
    warmupCycles,
    warmupMaxSec,
    durationSec,
    windowSec: WINDOW_SEC,
    elapsedSec: 0,
    generation: [],
    floor: { start: measureFloor(work), wake: await measureWake() },
    postgres: null,
    runs: [],
    spawnToToolsListMs: null,
    spawn: [],
    recoveryAfterKillMs: null,
    recovery: [],
    readPath: [],
    model: null,
    targets: [],
    errors: [],
  };
  const kinds: [StoreKind, 'store' | 'mcp'][] = [['native', 'store'], ['baton', 'store']];
  if (options.mcp) kinds.push(['baton', 'mcp']);
  if (postgres) {
    results.postgres = await postgres.settings();
    kinds.push(['postgres', 'store']);
    progress(`PostgreSQL ${results.postgres.version} (fsync ${results.postgres.fsync}, synchronous_commit ${results.postgres.synchronousCommit})`);
  }
  const total = sizes.length * procCounts.length;
  progress(
    `${total} rounds over ${sizes.map(k).join(', ')} issues with ${procCounts.join(', ')} processes: ${kinds.map(([kind, via]) => `${kind}/${via}`).join(', ')}, ` +
      `each ${durationSec} s in ${WINDOW_SEC} s windows taken in turn, after a warm-up of ${warmupSec} s and ${warmupCycles} cycles per agent (${warmupMaxSec} s at most); work folder ${work}`,
  );

  try {
    let n = 0;
    const datasets = new Map<number, Dataset>();
    for (const issues of sizes) {
      const dataset = await buildDataset(work, issues, () => {});
      datasets.set(issues, dataset);
      results.generation.push({ store: 'baton', issues, ms: round(dataset.generateMs), bytes: dataset.snapshotBytes });
      progress(`generated ${k(issues)} issues in ${(dataset.generateMs / 1000).toFixed(1)} s (${(dataset.snapshotBytes / 2 ** 20).toFixed(1)} MB)`);
      if (postgres) {
        const ms = await postgres.generate(issues, () => {});
        results.generation.push({ store: 'postgres', issues, ms: round(ms) });
        progress(`generated ${k(issues)} issues on PostgreSQL in ${(ms / 1000).toFixed(1)} s`);
      }
      for (const procs of procCounts) {
        n++;
        const label = `[${n}/${total}] ${k(issues)} issues x ${procs} procs`;
        try {
          results.runs.push(...(await measureRound(dataset, issues, procs, kinds, postgres, label, work, n)));
        } catch (error) {
          results.errors.push(`${label}: ${(error as Error).message}`);
          progress(`${label} FAILED: ${(error as Error).message}`);
        }
      }
    }
    addRatios(results.runs);

    if (options.probes) await probes(results, datasets, work);
    results.floor.end = measureFloor(work);
  } finally {
    rmSync(work, { recursive: true, force: true });
    await postgres?.dropAll().catch((error: unknown) => progress(`could not drop the PostgreSQL databases: ${(error as Error).message}`));
  }

  results.machine.loadAvgAtEnd = round(loadavg()[0]);
  results.elapsedSec = round((performance.now() - started) / 1000);
  results.targets = judgeTargets(results);
  const written = writeResults(resultsDir, results, { commit: options.commit, root });
  process.stdout.write(`\n${runsTable(results.runs as RunEntry[])}\n\n${opsTable(results.runs)}\n\n${warmupTable(results.runs)}\n\n${cpuTable(results.runs)}\n\n${phasesTable(results.runs)}\n\n${probesText(results)}\n\ntargets:\n${targetsTable(results.targets)}\n`);
  if (results.errors.length) process.stdout.write(`\nerrors:\n${results.errors.join('\n')}\n`);
  process.stdout.write(`\nwrote ${written.join(', ')} (${results.elapsedSec} s)\n`);
}

/** One label per set, for progress lines. */
function setName(kind: StoreKind, via: 'store' | 'mcp'): string {
  return kind === 'baton' ? `baton via ${via === 'mcp' ? 'MCP' : 'store'}` : kind;
}

/**
 * One round: every store at one size and process count. All sets start first and stay up;
 * then their windows take turns (the order rotating each time), so machine noise falls on
 * all of them alike and every Baton window has a reference window next to it.
 */
async function measureRound(
  dataset: Dataset,
  issues: number,
  procs: number,
  kinds: [StoreKind, 'store' | 'mcp'][],
  postgres: PostgresDatasets | null,
  label: string,
  work: string,
  index: number,
): Promise<RunEntry[]> {
  const sets: AgentSet[] = [];
  try {
    for (const [i, [kind, via]] of kinds.entries()) {
      const target =
        kind === 'postgres' ? await postgres!.copy(issues, index * 10 + i) : await copyForRun(dataset, join(work, `run-${index}-${i}`), kind);
      const config: SetConfig = { kind, via, issues, procs, target, benchDir, cli };
      progress(`${label}: starting ${procs} ${setName(kind, via)} agent${procs > 1 ? 's' : ''}`);
      sets.push(await AgentSet.start(config));
    }
    for (const set of sets) {
      const w = await set.warmUp(warmupSec * 1000, warmupCycles, warmupMaxSec * 1000);
      progress(`${label} ${setName(set.config.kind, set.config.via)}: warmed up in ${w.seconds} s, ${w.claimsPerSec} claims/s meanwhile, ${w.minCyclesPerAgent} cycles per agent at least`);
    }
    const windows = Math.max(1, Math.round(durationSec / WINDOW_SEC));
    for (let w = 0; w < windows; w++) {
      const order = sets.map((_, j) => sets[(j + w) % sets.length]);
      for (const set of order) await set.runWindow(SETTLE_MS, (durationSec * 1000) / windows);
      progress(`${label}: window ${w + 1}/${windows}: ${sets.map((s) => `${setName(s.config.kind, s.config.via)} ${round2(s.lastClaimsPerSec())}`).join(', ')} claims/s`);
    }
    const runs: RunEntry[] = [];
    for (const set of sets) {
      const run = await set.finish();
      runs.push(run);
      progress(
        `${label} ${setName(run.store, run.via)}: ${run.claimsPerSec} claims/s, claim p50 ${run.p50Ms} p99 ${run.p99Ms} max ${run.maxMs} ms, ` +
          `RSS ${run.rssMb} MB, double claims ${run.doubleClaims}, starved agent-seconds ${run.starvedAgentSeconds}`,
      );
    }
    return runs;
  } finally {
    await Promise.all(sets.map((s) => s.stop()));
    for (let i = 0; i < kinds.length; i++) rmSync(join(work, `run-${index}-${i}`), { recursive: true, force: true });
  }
}

const round2 = (v: number) => (Number.isFinite(v) ? Number(v.toPrecision(3)) : NaN);

async function probes(results: BenchResults, datasets: Map<number, Dataset>, work: string): Promise<void> {
  const probeSizes = quick ? [10_000].filter((n) => datasets.has(n)) : [...datasets.keys()].filter((n) => n >= 10_000);
  if (probeSizes.length === 0) probeSizes.push(Math.max(...datasets.keys()));
  const attempt = async (what: string, fn: () => Promise<void>) => {
    progress(`${what} ...`);
    try {
      await fn();
    } catch (error) {
      results.errors.push(`${what}: ${(error as Error).message}`);
      progress(`${what} FAILED: ${(error as Error).message}`);
    }
  };
  let n = 0;
  const fresh = (issues: number, kind: 'baton' | 'native') => copyForRun(datasets.get(issues)!, join(work, `probe-${++n}`), kind);
  for (const issues of probeSizes) {
    await attempt(`spawn until tools/list, ${k(issues)}`, async () => {
      const s = await spawnProbe(cli, await fresh(issues, 'baton'), quick ? 5 : 7);
      results.spawn.push({ issues, ...s });
      progress(`spawn until tools/list, ${k(issues)}: p50 ${s.toolsListMs.p50} ms, max ${s.toolsListMs.max} ms; first tool call p50 ${s.firstCallMs.p50} ms`);
    });
    for (const kind of ['baton', 'native'] as const) {
      await attempt(`list_claims read path, ${kind}, ${k(issues)}`, async () => {
        const r = await readPathProbe(benchDir, kind, await fresh(issues, kind), { leases: 20, times: quick ? 100 : 200, mcpCli: kind === 'baton' ? cli : undefined });
        results.readPath.push({ store: kind, issues, ...r });
        progress(`list_claims ${kind} ${k(issues)}: after a write p50 ${r.afterWrite.coreMs.p50} ms${r.afterWrite.mcpMs ? ` (MCP ${r.afterWrite.mcpMs.p50} ms)` : ''}, unchanged p50 ${r.unchanged.coreMs.p50} ms, after as long a pause ${r.afterPause.coreMs.p50} ms${r.afterPause.mcpMs ? ` (MCP ${r.afterPause.mcpMs.p50} ms)` : ''}${r.idlePingMs ? `, MCP ping after it ${r.idlePingMs.p50} ms` : ''}`);
      });
    }
  }
  const probeSize = probeSizes.includes(10_000) ? 10_000 : probeSizes[0];
  for (const kind of ['baton', 'native'] as const) {
    await attempt(`recovery after SIGKILL, ${kind}, ${k(probeSize)}`, async () => {
      const ms = await recoveryProbe(benchDir, kind, await fresh(probeSize, kind), quick ? 6 : 8);
      results.recovery.push({ store: kind, issues: probeSize, ms });
      progress(`recovery after SIGKILL, ${kind}: p50 ${ms.p50} ms, max ${ms.max} ms`);
    });
  }
  await attempt(`extension model, ${k(probeSize)}`, async () => {
    const m = await modelProbe(benchDir, await fresh(probeSize, 'baton'), quick ? 8 : 15);
    results.model = { issues: probeSize, how: 'extension/model ClaimsModel + BatonSource, polling store.version()', pollMs: POLL_MS, ...m };
    progress(`extension model sees a claim: p50 ${m.seenMs.p50} ms, max ${m.seenMs.max} ms (reload ${m.loadMs.p50} ms)`);
  });
  results.spawnToToolsListMs = results.spawn.find((s) => s.issues === 10_000)?.toolsListMs.p50 ?? results.spawn[0]?.toolsListMs.p50 ?? null;
  results.recoveryAfterKillMs = results.recovery.find((r) => r.store === 'baton')?.ms.p50 ?? null;
}

/** The commit measured, and whether the working tree differed from it (others' work in progress counts). */
function sourceVersion(): { commit: string; modified: boolean } | null {
  try {
    const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { commit: git('rev-parse', 'HEAD'), modified: git('status', '--porcelain', '--untracked-files=no', '--', 'shared', 'mcp-server').length > 0 };
  } catch {
    return null;
  }
}

/** This build packaged as a .vsix, as `npm run package` makes it; answers its path. */
function packageVsix(): string {
  execFileSync('npm', ['run', '--silent', 'package'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  return join(root, `${name}-${version}.vsix`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
