import { closeSync, fdatasyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { round, summarize } from './stats.js';

/**
 * What the disk costs right now, in the folder the runs use: appending 600 bytes plus
 * fdatasync (the floor of any durable write), and creating then removing a small file
 * (what a lock made of files pays per hand-over). On a machine shared with other work
 * these move a lot between rounds, which is why every figure also has a ratio.
 */
/** Milliseconds, p50 and p99. */
export interface FloorFigures {
  fdatasyncMs: number;
  fdatasyncP99Ms: number;
  createUnlinkMs: number;
  createUnlinkP99Ms: number;
}

export function measureFloor(dir: string, times = 200): FloorFigures {
  const log = join(dir, 'floor-log');
  const fd = openSync(log, 'w');
  const record = Buffer.alloc(600, 7);
  const syncs: number[] = [];
  try {
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      writeSync(fd, record);
      fdatasyncSync(fd);
      syncs.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    unlinkSync(log);
  }
  const files: number[] = [];
  for (let i = 0; i < times; i++) {
    const path = join(dir, `floor-${i}`);
    const started = performance.now();
    const f = openSync(path, 'wx');
    writeSync(f, '{"pid":1}');
    closeSync(f);
    unlinkSync(path);
    files.push(performance.now() - started);
  }
  const s = summarize(syncs);
  const f = summarize(files);
  return { fdatasyncMs: round(s.p50), fdatasyncP99Ms: round(s.p99), createUnlinkMs: round(f.p50), createUnlinkP99Ms: round(f.p99) };
}
