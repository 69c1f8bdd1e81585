import { dirname } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SERVER_ENV } from '../shared/client-config.js';
import { epochNow } from './agent-loop.js';
import { ProbeProcess } from './probe-process.js';
import type { ReadTimes } from './results-shape.js';
import { round, summarize, type Summary } from './stats.js';
import { StdioClient } from './stdio-client.js';
import type { StoreKind } from './stores.js';

/**
 * The measurements beside the load runs. Each starts its own processes on its own copy
 * of a dataset and ends every one of them before it returns.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rounded(s: Summary): Summary {
  return { count: s.count, p50: round(s.p50), p99: round(s.p99), max: round(s.max), mean: round(s.mean) };
}

/**
 * Spawn of `baton serve` until `tools/list` is answered, and until a first tool call
 * (which needs the store open) is answered. A fresh process each time.
 */
export async function spawnProbe(cli: string, db: string, times: number): Promise<{ toolsListMs: Summary; firstCallMs: Summary }> {
  const toolsList: number[] = [];
  const firstCall: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const client = await StdioClient.start({
      command: process.execPath,
      args: [cli, 'serve', '--db', db],
      cwd: dirname(db),
      env: { ...getDefaultEnvironment(), ...SERVER_ENV, BATON_AGENT: 'bench-spawn' },
      clientName: 'bench-spawn',
    });
    try {
      if ((await client.listTools()).length === 0) throw new Error('tools/list listed no tool');
      toolsList.push(performance.now() - started);
      const answer = await client.callTool('list_claims', {});
      if (answer.isError) throw new Error(`list_claims failed: ${answer.structuredContent.error?.code}`);
      firstCall.push(performance.now() - started);
    } finally {
      await client.close();
    }
    await sleep(200);
  }
  return { toolsListMs: rounded(summarize(toolsList)), firstCallMs: rounded(summarize(firstCall)) };
}

/** The reader's timings of one kind of read. */
class ReadSamples {
  private readonly core: number[] = [];
  private readonly mcp: number[] = [];

  add(read: { coreMs: number; mcpMs: number | null }): void {
    this.core.push(read.coreMs);
    if (read.mcpMs !== null) this.mcp.push(read.mcpMs);
  }

  summary(): ReadTimes {
    return { coreMs: rounded(summarize(this.core)), mcpMs: this.mcp.length ? rounded(summarize(this.mcp)) : null };
  }
}

/**
 * list_claims in one process, right after another process wrote (a heartbeat of each of
 * its leases: the reader has those records to replay first); with nothing changed since
 * its last read, at once; and with nothing changed after a pause as long as the writer's
 * took, so that what the replay costs can be told from what idling costs (a process that
 * has slept answers slower: its caches are cold and it must be scheduled again). Timed
 * on the core in the reader's process and, for Baton, also as a tool call to a `baton
 * serve` on the same file, and as an MCP ping to that server after as long a pause: the
 * round trip to an idle server, the part of a tool call no tool or store can shorten.
 */
export async function readPathProbe(
  benchDir: string,
  kind: StoreKind,
  target: string,
  options: { leases: number; times: number; mcpCli?: string },
): Promise<{ afterWrite: ReadTimes; unchanged: ReadTimes; afterPause: ReadTimes; idlePingMs: Summary | null; liveClaims: number }> {
  const writer = await ProbeProcess.start(benchDir, { kind, target, agent: 'bench-writer' });
  const reader = await ProbeProcess.start(benchDir, { kind, target, agent: 'bench-reader', mcpCli: options.mcpCli });
  try {
    for (let i = 0; i < options.leases; i++) await writer.request({ cmd: 'claim' }, 'claimed');
    const after = new ReadSamples();
    const same = new ReadSamples();
    const paused = new ReadSamples();
    const pings: number[] = [];
    let liveClaims = 0;
    // Both paths warm before timing, the catch-up after a write included, as in a server that has run a while.
    for (let i = 0; i < options.times; i++) {
      await writer.request({ cmd: 'heartbeat' }, 'done');
      await reader.request({ cmd: 'read' }, 'read');
    }
    for (let i = 0; i < options.times; i++) {
      const writing = performance.now();
      await writer.request({ cmd: 'heartbeat' }, 'done');
      const pause = performance.now() - writing;
      const changed = await reader.request({ cmd: 'read' }, 'read');
      after.add(changed);
      liveClaims = changed.claims;
      same.add(await reader.request({ cmd: 'read' }, 'read'));
      await sleep(pause);
      paused.add(await reader.request({ cmd: 'read' }, 'read'));
      if (options.mcpCli) {
        await sleep(pause);
        pings.push((await reader.request({ cmd: 'ping' }, 'pinged')).ms);
      }
    }
    const idlePingMs = pings.length ? rounded(summarize(pings)) : null;
    return { afterWrite: after.summary(), unchanged: same.summary(), afterPause: paused.summary(), idlePingMs, liveClaims };
  } finally {
    await Promise.all([writer.stop(), reader.stop()]);
  }
}

/**
 * A process holding the write lock is killed with SIGKILL while another waits to
 * write: the time from the kill until the waiter's write has committed. Every other
 * holder had to queue for the lock first (behind a process that is killed to let it
 * in), so that it dies with its ticket at the head of the queue, as a holder under load
 * does.
 */
export async function recoveryProbe(benchDir: string, kind: StoreKind, target: string, times: number): Promise<Summary> {
  const waiter = await ProbeProcess.start(benchDir, { kind, target, agent: 'bench-waiter' });
  const samples: number[] = [];
  try {
    await waiter.request({ cmd: 'write' }, 'done');
    for (let i = 0; i < times; i++) {
      const holder = await ProbeProcess.start(benchDir, { kind, target, agent: 'bench-holder' });
      const gate = i % 2 === 1 ? await ProbeProcess.start(benchDir, { kind, target, agent: 'bench-gate' }) : null;
      try {
        if (gate) {
          await gate.request({ cmd: 'hold' }, 'done');
          const holding = holder.request({ cmd: 'hold' }, 'done', 60_000);
          await sleep(150);
          gate.kill('SIGKILL');
          await holding;
        } else {
          await holder.request({ cmd: 'hold' }, 'done');
        }
        const committed = waiter.request({ cmd: 'write' }, 'done', 60_000);
        // Let the waiter queue up behind the holder first.
        await sleep(150);
        const killedAt = epochNow();
        holder.kill('SIGKILL');
        const { at } = await committed;
        samples.push(at - killedAt);
      } finally {
        holder.kill('SIGKILL');
        gate?.kill('SIGKILL');
      }
      await sleep(100);
    }
  } finally {
    await waiter.stop();
  }
  return rounded(summarize(samples));
}

/**
 * The extension's claims model (extension/model/, fed by store.version() at its own
 * poll interval) in one process; another process claims an issue. The time from that
 * claim's commit until the model publishes a state that shows it.
 */
export async function modelProbe(benchDir: string, target: string, times: number): Promise<{ seenMs: Summary; loadMs: Summary }> {
  const claimer = await ProbeProcess.start(benchDir, { kind: 'baton', target, agent: 'bench-claimer' });
  const watcher = await ProbeProcess.start(benchDir, { kind: 'baton', target, agent: 'bench-watcher' });
  const seen: number[] = [];
  const loads: number[] = [];
  let latest: { keys: string[]; at: number } = { keys: [], at: 0 };
  const waiting = new Map<string, (at: number) => void>();
  const stop = watcher.listen((m) => {
    if (m.type !== 'seen') return;
    latest = m;
    loads.push(m.loadMs);
    for (const [key, resolve] of waiting) {
      if (m.keys.includes(key)) {
        waiting.delete(key);
        resolve(m.at);
      }
    }
  });
  try {
    watcher.send({ cmd: 'watch' });
    await watcher.next('seen', 60_000);
    for (let i = 0; i < times; i++) {
      // A random phase against the poll timer, as a real claim has.
      await sleep(300 + Math.random() * 250);
      const claimed = await claimer.request({ cmd: 'claim' }, 'claimed');
      const shownAt = latest.keys.includes(claimed.key)
        ? latest.at
        : await new Promise<number>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`the model never showed ${claimed.key}`)), 30_000);
            waiting.set(claimed.key, (at) => {
              clearTimeout(timer);
              resolve(at);
            });
          });
      seen.push(shownAt - claimed.at);
    }
  } finally {
    stop();
    await Promise.all([claimer.stop(), watcher.stop()]);
  }
  return { seenMs: rounded(summarize(seen)), loadMs: rounded(summarize(loads)) };
}
