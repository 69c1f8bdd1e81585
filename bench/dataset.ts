import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openFileStore } from '../shared/store/file/index.js';
import { checkEffectivePriorities, generateIssues } from './generate.js';
import { openNativeStore } from './native.js';
import type { StoreKind } from './stores.js';

/**
 * The generated databases of a benchmark, one per size, built once and copied for every
 * run so each starts from the same state. The native reference starts from a copy of the
 * very same SQLite file (a Baton snapshot is an ordinary SQLite database), switched to WAL.
 */
export interface Dataset {
  issues: number;
  /** The compacted Baton database (snapshot; its log holds only a header). */
  path: string;
  generateMs: number;
  snapshotBytes: number;
}

export async function buildDataset(dir: string, issues: number, progress: (line: string) => void): Promise<Dataset> {
  const folder = join(dir, `gen-${issues}`);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'baton.db');
  // Each batch is compacted into the snapshot at once, so the copies carry no log to replay.
  const store = await openFileStore({ path, compactAfterBytes: 1 });
  try {
    const { ms } = await generateIssues(store, issues, {
      seed: issues,
      onProgress: (n) => progress(`generating ${issues} issues: ${n}`),
    });
    const wrong = await checkEffectivePriorities(store, 200);
    if (wrong > 0) throw new Error(`generated database has ${wrong} wrong effective priorities`);
    return { issues, path, generateMs: ms, snapshotBytes: statSync(path).size };
  } finally {
    await store.close();
  }
}

/** A fresh copy of a dataset for one run; answers what the run's processes open. */
export async function copyForRun(dataset: Dataset, runDir: string, kind: Exclude<StoreKind, 'postgres'>): Promise<string> {
  mkdirSync(runDir, { recursive: true });
  if (kind === 'native') {
    const path = join(runDir, 'native.db');
    copyFileSync(dataset.path, path);
    // Switching to WAL is persistent; done once here so no agent races to do it.
    await openNativeStore(path).close();
    return path;
  }
  const path = join(runDir, 'baton.db');
  copyFileSync(dataset.path, path);
  if (existsSync(`${dataset.path}-log`)) copyFileSync(`${dataset.path}-log`, `${path}-log`);
  return path;
}
