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
  const runDir = join(resultsDir, 'runs', results.date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z'));
  const files: [name: string, text: string][] = [['latest.json', `${JSON.stringify(results, null, 2)}\n`]];
  if (results.runs.length) files.push(['chart.svg', renderChart(results)]);
  const written: string[] = [];
  for (const dir of options.commit ? [runDir, resultsDir] : [runDir]) {
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of files) {
      const path = join(dir, name);
      writeFileSync(`${path}.tmp`, text);
      renameSync(`${path}.tmp`, path);
      written.push(relative(options.root, path));
    }
  }
  return written;
}
