import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { renderChart } from './chart.js';
import type { BenchResults } from './results-shape.js';

/**
 * Writes a run's results: always into a folder of its own under `runs/` (ignored by
 * git), so that trying things never touches the committed figures; with `commit`, also
 * as the committed `latest.json` and `chart.svg`, which bench/RESULTS.md describes.
 * Every file goes through a temporary one, so an interrupted run never leaves half a
 * file. Answers the paths written, relative to `root`.
 */
export function writeResults(resultsDir: string, results: BenchResults, options: { commit: boolean; root: string }): string[] {
  const runDir = runDirFor(resultsDir, results.date);
  const files: [name: string, text: string][] = [['latest.json', `${JSON.stringify(results, null, 2)}\n`]];
  if (results.runs.length) files.push(['chart.svg', renderChart(results)]);
  const written: string[] = [];
  for (const dir of options.commit ? [runDir, resultsDir] : [runDir]) {
    for (const [name, text] of files) written.push(relative(options.root, writeWhole(dir, name, text)));
  }
  return written;
}

/** Writes the results of a section run alone as `name` in the run's folder under `runs/`; answers its path, relative to `root`. */
export function writeRunFile(resultsDir: string, date: string, name: string, value: unknown, root: string): string {
  return relative(root, writeWhole(runDirFor(resultsDir, date), name, `${JSON.stringify(value, null, 2)}\n`));
}

/** The folder of a run's results, named after its start. */
function runDirFor(resultsDir: string, date: string): string {
  return join(resultsDir, 'runs', date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z'));
}

/** Writes a file through a temporary one, so an interrupted run never leaves half of it. */
function writeWhole(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  return path;
}
