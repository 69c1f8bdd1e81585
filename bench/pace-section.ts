import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildDataset } from './dataset.js';
import { type PaceResult, paceTable, runPaceRound } from './pace.js';

export interface PaceOptions {
  /** The builds measured, each a label and its dist/cli.js; every round runs them one after the other. */
  clis: { label: string; path: string }[];
  sizes: number[];
  agentCounts: number[];
  seconds: number;
  progress: (line: string) => void;
}

/**
 * `npm run bench -- --only pace`: the section "agents at a human pace" alone. Each build
 * runs each size and agent count in turn, so builds measured in one run meet the same
 * machine. Prints the table on stdout and writes bench/results/pace.json.
 */
export async function runPace(options: PaceOptions): Promise<void> {
  const { progress } = options;
  for (const { path } of options.clis) if (!existsSync(path)) throw new Error(`${path} is missing: build it first`);
  const work = mkdtempSync(join(tmpdir(), 'baton-pace-'));
  const results: PaceResult[] = [];
  const errors: string[] = [];
  const loadAtStart = loadavg()[0];
  try {
    for (const issues of options.sizes) {
      const dataset = await buildDataset(work, issues, () => {});
      progress(`generated ${issues / 1000}k issues`);
      for (const agents of options.agentCounts) {
        for (const { label, path } of options.clis) {
          try {
            results.push(await runPaceRound({ build: label, cli: path, dataset, agents, seconds: options.seconds, work, progress }));
          } catch (error) {
            errors.push(`${label} ${issues / 1000}k x ${agents}: ${(error as Error).message}`);
            progress(`${label} ${issues / 1000}k x ${agents} FAILED: ${(error as Error).message}`);
          }
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const out = resolve(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'pace.json'), `${JSON.stringify({ date: new Date().toISOString(), loadAvg: [loadAtStart, loadavg()[0]], seconds: options.seconds, results, errors }, null, 2)}\n`);
  process.stdout.write(`\nagents at a human pace (one call per agent every 2 s, cold start):\n${paceTable(results)}\n`);
  if (errors.length) process.stdout.write(`\nerrors:\n${errors.join('\n')}\n`);
}
