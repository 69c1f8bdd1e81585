import { spawn } from 'node:child_process';
import { closeSync, fdatasyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processOnCpuMs, round, summarize } from './stats.js';

/*
 * What the machine itself costs right now, under every figure of the run: the disk, and
 * waking a process. On a machine shared with other work these move a lot between
 * rounds, which is why every figure also has a ratio.
 */

/** Milliseconds, p50 and p99 (see `measureFloor`). */
export interface FloorFigures {
  fdatasyncMs: number;
  fdatasyncP99Ms: number;
  createUnlinkMs: number;
  createUnlinkP99Ms: number;
}

/**
 * The disk, in the folder the runs use: appending 600 bytes plus fdatasync (the floor of
 * any durable write), and creating then removing a small file (what a lock made of files
 * pays per hand-over).
 */
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

/** CPU of one round trip between two processes, in ms for both together (see `measureWake`). */
export interface WakeFigures {
  hotCpuMs: number;
  sleptCpuMs: number;
  sleptMs: number;
}

/** The other side of a round trip: answers each chunk, at once or after a sleep. */
const ECHO = `const d = Number(process.argv[1]); process.stdin.on('data', (c) => (d > 0 ? setTimeout(() => process.stdout.write(c), d) : process.stdout.write(c)));`;

/**
 * CPU of a round trip between two processes that do nothing else, in ms for both
 * together, from the kernel's count of their main threads' time on a CPU (Linux): hot,
 * the other side answering at once, and with it answering after `sleptMs`, so that the
 * asking side sleeps that long, as a process of a busy set does while the others work
 * (an agent over MCP with eight agents waits about that long for each answer). A
 * process woken from a sleep pays for cold caches and for waking an idle CPU, on a
 * virtual machine through the hypervisor: a cost every operation that crosses processes
 * pays, whatever the processes then do.
 */
export async function measureWake(sleptMs = 7): Promise<WakeFigures | null> {
  if (processOnCpuMs(process.pid) === null) return null;
  const hot = await roundTripCpu(0, 2000);
  const slept = await roundTripCpu(sleptMs, 150);
  return { hotCpuMs: round(hot), sleptCpuMs: round(slept), sleptMs };
}

async function roundTripCpu(sleepMs: number, trips: number): Promise<number> {
  const echo = spawn(process.execPath, ['-e', ECHO, String(sleepMs)], { stdio: ['pipe', 'pipe', 'ignore'] });
  const message = `${'x'.repeat(200)}\n`;
  // The first trips, while the echo starts and compiles, are left out.
  const skipped = 20;
  let answered = 0;
  let start = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      echo.once('error', reject);
      echo.once('exit', () => reject(new Error('the echo process exited before its trips were done')));
      echo.stdout.on('data', () => {
        answered++;
        if (answered === skipped) start = bothOnCpu(echo.pid!);
        if (answered === skipped + trips) resolve();
        else echo.stdin.write(message);
      });
      echo.stdin.write(message);
    });
    return (bothOnCpu(echo.pid!) - start) / trips;
  } finally {
    echo.kill();
  }
}

function bothOnCpu(echoPid: number): number {
  return (processOnCpuMs(process.pid) ?? NaN) + (processOnCpuMs(echoPid) ?? NaN);
}
