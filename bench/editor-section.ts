import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDataset, copyForRun } from './dataset.js';
import { type EditorWindow, loadVsCodeHost, openWindow } from './editor-window.js';
import { PaceAgent } from './pace-agent.js';
import { makeCodeCache, PACE_MS } from './pace.js';
import { processCpuMs, processMemory, round, summarize } from './stats.js';
import { writeRunFile } from './write-results.js';

/*
 * `npm run bench -- --only extension`: the extension host of a real VS Code window
 * (code-server's server, workbench in headless Chromium) on a repository of N issues,
 * Baton's Claims view shown and expanded, while M agents each make one MCP call every
 * 2 s through their own `baton serve`, started cold as in the pace section, before the
 * windows open (so a window finds their writer and holds no copy of its own). The same
 * window without Baton runs beside it under the same agents, so Baton's part of the
 * extension host is the difference. Each further .vsix (an older build, say) gets a
 * window of its own in the same run.
 */

/** Seconds of agents at work, the windows open, before the measured window: the views first fill. */
const SETTLE_SEC = 10;
/** RSS is read this often during the measured window. */
const SAMPLE_MS = 1000;

export interface EditorOptions {
  root: string;
  cli: string;
  /** The builds of the extension, each a label and a .vsix; a window without Baton is always added. */
  vsixes: { label: string; path: string }[];
  issues: number;
  agents: number;
  seconds: number;
  resultsDir: string;
  progress: (line: string) => void;
}

export interface EditorResult {
  label: string;
  /** CPU of the extension host, user + system, per second, under the agents. */
  cpuMsPerSec: number;
  /** RSS of the extension host during the measured window, and its peak (VmHWM) at its end. */
  rssMeanMb: number;
  rssMaxMb: number;
  peakMb: number;
  /** RSS of the extension host once the agents have stopped. */
  rssEndMb: number;
  /** The same, less those of the window without Baton: Baton's part. */
  batonCpuMsPerSec: number | null;
  batonRssMb: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runEditorSection(options: EditorOptions): Promise<void> {
  const { progress } = options;
  const host = await loadVsCodeHost(options.root);
  if (typeof host === 'string') throw new Error(host);
  for (const { path } of options.vsixes) if (!existsSync(path)) throw new Error(`${path} is missing`);
  const work = mkdtempSync(join(tmpdir(), 'baton-editor-'));
  const windows: EditorWindow[] = [];
  const agents: PaceAgent[] = [];
  const loadAtStart = loadavg()[0];
  const phase = { stop: false };
  try {
    const dataset = await buildDataset(work, options.issues, () => {});
    progress(`generated ${options.issues / 1000}k issues`);
    const repo = join(work, 'repo');
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'README.md'), '# A repository that agents work on\n');
    // Where the extension and every server of the repository find the database.
    const db = await copyForRun(dataset, join(repo, '.git', 'baton'), 'baton');
    makeCodeCache(options.cli);

    agents.push(...(await Promise.all(Array.from({ length: options.agents }, (_, i) => PaceAgent.start(options.cli, db, `editor-${i}`)))));
    progress(`${options.agents} agents started`);
    const loops = agents.map((agent, i) =>
      (async () => {
        await sleep((i * PACE_MS) / agents.length);
        while (!phase.stop) {
          const began = performance.now();
          await agent.next(() => {});
          await sleep(Math.max(0, PACE_MS - (performance.now() - began)));
        }
      })(),
    );
    const arms = [{ label: 'no Baton', vsix: null as string | null }, ...options.vsixes.map((v) => ({ label: v.label, vsix: v.path }))];
    for (const [i, arm] of arms.entries()) {
      windows.push(await openWindow(host, { ...arm, repo, dir: join(work, `window-${i}`) }));
      progress(`window ${arm.label}: extension host ${windows[i].extensionHostPid}`);
    }

    const cpu = () => windows.map((w) => processCpuMs(w.extensionHostPid) ?? NaN);
    await sleep(SETTLE_SEC * 1000);

    const start = cpu();
    const at = performance.now();
    const rss: number[][] = windows.map(() => []);
    while (performance.now() - at < options.seconds * 1000) {
      windows.forEach((w, i) => rss[i].push(processMemory(w.extensionHostPid)?.rssMb ?? NaN));
      await sleep(SAMPLE_MS);
    }
    const sec = (performance.now() - at) / 1000;
    const used = cpu().map((ms, i) => (ms - start[i]) / sec);
    phase.stop = true;
    await Promise.all(loops);
    const rssEnd = windows.map((w) => processMemory(w.extensionHostPid)?.rssMb ?? NaN);
    const calls = agents.flatMap((a) => a.calls);

    const results: EditorResult[] = windows.map((w, i) => ({
      label: w.label,
      cpuMsPerSec: round(used[i]),
      rssMeanMb: round(summarize(rss[i]).mean),
      rssMaxMb: round(Math.max(...rss[i])),
      peakMb: round(processMemory(w.extensionHostPid)?.peakMb ?? NaN),
      rssEndMb: round(rssEnd[i]),
      batonCpuMsPerSec: i === 0 ? null : round(used[i] - used[0]),
      batonRssMb: i === 0 ? null : round(summarize(rss[i]).mean - summarize(rss[0]).mean),
    }));
    const run = {
      date: new Date().toISOString(),
      loadAvg: [round(loadAtStart), round(loadavg()[0])],
      issues: options.issues,
      agents: options.agents,
      seconds: round(sec),
      calls: calls.length,
      failedCalls: calls.filter((c) => !c.ok).length,
      results,
    };
    const written = writeRunFile(options.resultsDir, run.date, 'extension.json', run, options.root);
    process.stdout.write(
      `\nthe extension host, ${options.issues / 1000}k issues, ${options.agents} agents one call each every 2 s, Claims view shown (${run.calls} calls, ${run.failedCalls} failed):\n${editorTable(results)}\n\nwrote ${written}\n`,
    );
  } finally {
    phase.stop = true;
    await Promise.all(agents.map((a) => a.close()));
    for (const w of windows) await w.close().catch((error: unknown) => progress(`closing ${w.label}: ${(error as Error).message}`));
    rmSync(work, { recursive: true, force: true });
  }
}

/** One line per window; Baton's part is its difference from the window without Baton. */
export function editorTable(results: readonly EditorResult[]): string {
  const head = '| window | CPU ms/s | Baton CPU ms/s | RSS mean/max MB | RSS at end MB | peak MB | Baton RSS MB |';
  const rows = results.map(
    (r) => `| ${r.label} | ${r.cpuMsPerSec} | ${r.batonCpuMsPerSec ?? '-'} | ${r.rssMeanMb}/${r.rssMaxMb} | ${r.rssEndMb} | ${r.peakMb} | ${r.batonRssMb ?? '-'} |`,
  );
  return [head, `|${'---|'.repeat(7)}`, ...rows].join('\n');
}
