import type { BenchResults, RunEntry, Verdict } from './results-shape.js';
import { median, round } from './stats.js';

/**
 * Ratios to the native reference at the same size and process count, from the same round.
 * Throughput: the median of the per-window ratios (each Baton window beside the reference
 * window of the same turn); latency and memory: over the whole round.
 */
export function addRatios(runs: RunEntry[]): void {
  for (const run of runs) {
    if (run.store === 'native') continue;
    const ref = runs.find((r) => r.store === 'native' && r.issues === run.issues && r.procs === run.procs);
    if (!ref) continue;
    const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? a / b : NaN);
    const byWindow = run.claimsPerSecByRound.map((c, i) => ratio(c, ref.claimsPerSecByRound[i])).filter((r) => Number.isFinite(r));
    run.ratio = {
      claimsPerSec: round(median(byWindow)),
      claimsPerSecByWindow: byWindow.map(round),
      claimsPerSecOverall: round(ratio(run.claimsPerSec, ref.claimsPerSec)),
      p50Ms: round(ratio(run.p50Ms, ref.p50Ms)),
      p99Ms: round(ratio(run.p99Ms, ref.p99Ms)),
      maxMs: round(ratio(run.maxMs, ref.maxMs)),
      rssMb: round(ratio(run.rssMb, ref.rssMb)),
    };
  }
}

function verdict(target: string, measured: string, value: number | null | undefined, limit: number, unit: string, kind: 'max' | 'min'): Verdict {
  const v = value === undefined || value === null || !Number.isFinite(value) ? null : value;
  return {
    target,
    measured,
    value: v,
    limit,
    unit,
    kind,
    met: v === null ? null : kind === 'max' ? v <= limit : v >= limit,
    factor: v === null ? null : limit === 0 ? (v === 0 ? 1 : Infinity) : round(v / limit),
  };
}

/**
 * Every target of issue #6, judged on what this round measured. Baton is judged as
 * agents meet it, through `baton serve` over MCP; the store-direct figure is judged too,
 * to tell the store's share from the protocol's.
 */
export function judgeTargets(results: BenchResults): Verdict[] {
  const out: Verdict[] = [];
  const run = (store: string, via: string, issues: number, procs: number) => results.runs.find((r) => r.store === store && r.via === via && r.issues === issues && r.procs === procs);
  const label = (via: string, issues: number, procs: number) => `baton ${via === 'mcp' ? 'via MCP' : 'store-direct'}, ${issues / 1000}k issues, ${procs} proc${procs > 1 ? 's' : ''}`;
  for (const via of ['mcp', 'store']) {
    const r8 = run('baton', via, 10_000, 8);
    out.push(verdict('claims/s with 8 processes >= 0.5x native', label(via, 10_000, 8), r8?.ratio?.claimsPerSec, 0.5, 'x native', 'min'));
    out.push(verdict('claim p99 with 8 processes <= 10 ms', label(via, 10_000, 8), r8?.p99Ms, 10, 'ms', 'max'));
    out.push(verdict('claim p50 with 1 process <= 1 ms', label(via, 10_000, 1), run('baton', via, 10_000, 1)?.p50Ms, 1, 'ms', 'max'));
    out.push(verdict('no agent starves: 8 agents each claim in every second', label(via, 10_000, 8), r8?.starvedAgentSeconds, 0, 'agent-seconds without a claim', 'max'));
  }
  for (const [issues, limit] of [
    [10_000, 100],
    [50_000, 250],
  ] as const) {
    const peak = (via: string) => {
      const rs = results.runs.filter((r) => r.store === 'baton' && r.via === via && r.issues === issues);
      return rs.length ? Math.max(...rs.map((r) => r.rssMb)) : null;
    };
    out.push(verdict(`RSS per server process <= ${limit} MB at ${issues / 1000}k`, `peak RSS of baton serve, ${issues / 1000}k issues, any process count`, peak('mcp'), limit, 'MB', 'max'));
    out.push(verdict(`RSS per process <= ${limit} MB at ${issues / 1000}k (store-direct)`, `peak RSS of a store-direct agent, ${issues / 1000}k issues`, peak('store'), limit, 'MB', 'max'));
  }
  const spawn = results.spawn.find((s) => s.issues === 10_000);
  out.push(verdict('tools/list answered <= 300 ms after spawn', 'median of fresh spawns of baton serve, 10k issues', spawn?.toolsListMs.p50, 300, 'ms', 'max'));
  const read = results.readPath.find((r) => r.store === 'baton' && r.issues === 10_000);
  out.push(verdict("list_claims after another process's write <= 1 ms", 'p50 on the core in the reading process, 10k issues', read?.afterWrite.coreMs.p50, 1, 'ms', 'max'));
  out.push(verdict("list_claims after another process's write <= 1 ms", 'p50 as an MCP tool call to baton serve, 10k issues', read?.afterWrite.mcpMs?.p50, 1, 'ms', 'max'));
  const recovery = results.recovery.find((r) => r.store === 'baton' && r.issues === 10_000);
  out.push(verdict('recovery after SIGKILL of the lock holder <= 200 ms', 'median, kill until the waiting writer committed, 10k issues', recovery?.ms.p50, 200, 'ms', 'max'));
  out.push(verdict('recovery after SIGKILL of the lock holder <= 200 ms', 'worst of the kills', recovery?.ms.max, 200, 'ms', 'max'));
  return out;
}

const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined || !Number.isFinite(v) ? '-' : String(Number(v.toPrecision(digits))));
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const k = (n: number) => `${n / 1000}k`;

/** The terminal table of the load runs. */
export function runsTable(runs: readonly RunEntry[]): string {
  const header = ['issues', 'procs', 'store', 'via', 'claims/s', 'x ref', 'p50 ms', 'p99 ms', 'max ms', 'x ref p99', 'RSS MB', 'cpu ms/op', 'db+log MB', 'starved s', 'double'];
  const rows = runs.map((r) => [
    k(r.issues),
    String(r.procs),
    r.store,
    r.via,
    fmt(r.claimsPerSec),
    r.ratio ? fmt(r.ratio.claimsPerSec, 2) : '',
    fmt(r.p50Ms),
    fmt(r.p99Ms),
    fmt(r.maxMs),
    r.ratio ? fmt(r.ratio.p99Ms, 2) : '',
    fmt(r.rssMb),
    fmt(r.cpuMsPerOp),
    r.files ? `${fmt(r.files.databaseMb)}+${fmt(r.files.logMb)}` : '',
    String(r.starvedAgentSeconds),
    String(r.doubleClaims),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 4 ? pad(c, widths[i]) : lpad(c, widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Per-operation latencies, p50 / p99 in ms. */
export function opsTable(runs: readonly RunEntry[]): string {
  const ops = ['claim', 'heartbeat', 'checkpoint', 'done', 'reopen'] as const;
  const lines = runs.map((r) => `${pad(`${k(r.issues)} x${r.procs} ${r.store}/${r.via}`, 24)} ${ops.map((op) => `${op} ${fmt(r.ops[op].p50)}/${fmt(r.ops[op].p99)}`).join('  ')}`);
  return ['per operation, p50/p99 ms:', ...lines].join('\n');
}

/**
 * Where the CPU went, per operation: all measured processes together, the busiest of them
 * (over MCP the server writing for the others) and, over MCP, the agents. PostgreSQL's
 * runs are left out: most of their work is in the database server, which is not measured.
 */
export function cpuTable(runs: readonly RunEntry[]): string {
  const lines = runs
    .filter((r) => r.procs > 1 && r.store !== 'postgres')
    .map((r) => {
      const measured = r.via === 'mcp' ? 'servers' : 'agents';
      const clients = r.via === 'mcp' ? `, agents ${fmt(r.clientCpuMsPerOp)}` : '';
      return `${pad(`${k(r.issues)} x${r.procs} ${r.store}/${r.via}`, 24)} ${measured} ${fmt(r.cpuMsPerOp)} (busiest ${fmt(r.busiestCpuMsPerOp)})${clients}`;
    });
  return ['CPU ms per operation, several processes:', ...lines].join('\n');
}

/** Each set's warm-up: how long, and how fast its processes went before V8 had compiled their hot code. */
export function warmupTable(runs: readonly RunEntry[]): string {
  const lines = runs
    .filter((r) => r.warmup)
    .map((r) => {
      const w = r.warmup!;
      const measured = r.claimsPerSec > 0 ? ` (${fmt(w.claimsPerSec / r.claimsPerSec, 2)} of the measured ${fmt(r.claimsPerSec)})` : '';
      return `${pad(`${k(r.issues)} x${r.procs} ${r.store}/${r.via}`, 24)} ${fmt(w.seconds)} s, ${fmt(w.claimsPerSec)} claims/s${measured}, ${w.minCyclesPerAgent} cycles per agent at least`;
    });
  return ['warm-up, before the windows (claims/s while the processes were fresh):', ...lines].join('\n');
}

/** Store-direct runs: per operation, statements run and where the transaction's time went (means, ms). */
export function phasesTable(runs: readonly RunEntry[]): string {
  const ops = ['claim', 'heartbeat', 'checkpoint', 'done', 'reopen'];
  const lines = runs
    .filter((r) => r.phases)
    .map((r) => {
      const cells = [...ops, ...(r.phases!.forwarded ? ['forwarded'] : [])].map((op) => {
        const p = r.phases![op];
        return p ? `${op} ${fmt(p.statements, 2)} st, ${fmt(p.waitMs.mean)}/${fmt(p.workMs.mean)}/${fmt(p.commitMs.mean)}` : `${op} -`;
      });
      const lock = r.lock ? `  | lock busy ${Math.round(r.lock.busyShare * 100)}% of the time, gap between writers p50 ${fmt(r.lock.gapMs.p50)} ms` : '';
      return `${pad(`${k(r.issues)} x${r.procs} ${r.store}`, 18)} ${cells.join('  ')}${lock}`;
    });
  return ['store-direct, per operation (forwarded: the writes run for the other agents): statements, then mean ms waiting (queue, catch-up, lock) / working (statements) / committing (append, fsync, release):', ...lines].join('\n');
}

export function targetsTable(verdicts: readonly Verdict[]): string {
  return verdicts
    .map((v) => {
      const state = v.met === null ? 'NOT MEASURED' : v.met ? 'met' : 'MISSED';
      const value = v.value === null ? '-' : `${fmt(v.value)} ${v.unit}`;
      const by = v.factor === null || v.met === null ? '' : v.kind === 'max' ? ` (${fmt(v.factor, 2)}x the limit)` : ` (${fmt(v.factor, 2)}x the minimum)`;
      return `${pad(state, 12)} ${v.target} — ${v.measured}: ${value}${by}`;
    })
    .join('\n');
}

/** Everything besides the load runs, one line each. */
export function probesText(results: BenchResults): string {
  const lines: string[] = [];
  const s = (x: { p50: number; p99: number; max: number }) => `p50 ${fmt(x.p50)} / p99 ${fmt(x.p99)} / max ${fmt(x.max)} ms`;
  for (const sp of results.spawn) lines.push(`spawn until tools/list (${k(sp.issues)}): ${s(sp.toolsListMs)}; until a first tool call: ${s(sp.firstCallMs)}`);
  for (const r of results.readPath) {
    const mcp = (m: { p50: number; p99: number; max: number } | null) => (m ? `; over MCP ${s(m)}` : '');
    lines.push(`list_claims ${r.store} (${k(r.issues)}, ${r.liveClaims} live): after another's write ${s(r.afterWrite.coreMs)}${mcp(r.afterWrite.mcpMs)}`);
    lines.push(`list_claims ${r.store} (${k(r.issues)}): nothing changed ${s(r.unchanged.coreMs)}${mcp(r.unchanged.mcpMs)}`);
    lines.push(`list_claims ${r.store} (${k(r.issues)}): nothing changed, after as long a pause ${s(r.afterPause.coreMs)}${mcp(r.afterPause.mcpMs)}`);
    if (r.idlePingMs) lines.push(`MCP ping to the same server after as long a pause (the round trip alone, ${k(r.issues)}): ${s(r.idlePingMs)}`);
  }
  for (const r of results.recovery) lines.push(`recovery after SIGKILL of the lock holder, ${r.store} (${k(r.issues)}): ${s(r.ms)}`);
  if (results.model) lines.push(`extension model sees another process's claim (${k(results.model.issues)}, ${results.model.how}): ${s(results.model.seenMs)}; its reload takes ${s(results.model.loadMs)}`);
  const f = results.floor;
  lines.push(`disk floor: append+fdatasync p50 ${fmt(f.start.fdatasyncMs)} ms (p99 ${fmt(f.start.fdatasyncP99Ms)}), create+unlink p50 ${fmt(f.start.createUnlinkMs)} ms (p99 ${fmt(f.start.createUnlinkP99Ms)})${f.end ? `; at the end ${fmt(f.end.fdatasyncMs)} / ${fmt(f.end.createUnlinkMs)} ms` : ''}`);
  if (f.wake) {
    const { hotCpuMs, sleptCpuMs, sleptMs } = f.wake;
    lines.push(`process wake floor: a round trip between two processes doing nothing else costs ${fmt(hotCpuMs)} ms of CPU hot, ${fmt(sleptCpuMs)} ms when the asking one sleeps ${sleptMs} ms for the answer (${fmt(sleptCpuMs / hotCpuMs)}x)`);
  }
  lines.push(`load average: ${fmt(results.machine.loadAvgAtStart)} at the start, ${fmt(results.machine.loadAvgAtEnd)} at the end (${results.machine.cores} cores)`);
  return lines.join('\n');
}
