import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Process ids the demo reported starting, from its own log lines. */
function reportedPids(output: string): number[] {
  return [...output.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run demo', () => {
  it('runs the scenario in under a minute, exits 0, prints its summary and leaves nothing running', async () => {
    const child = spawn(process.execPath, [resolve('dist/demo.js')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const started = Date.now();
    const status = await new Promise<number | null>((done) => child.on('close', done));
    const seconds = (Date.now() - started) / 1000;

    expect(status, output).toBe(0);
    expect(seconds).toBeLessThan(60);
    expect(output).toContain('Summary');
    expect(output).toMatch(/issues\s+6\/6 done/);
    expect(output).toMatch(/killed\s+bob and its server \(SIGKILL/);
    expect(output).toMatch(/resumed\s+\w+ took BAT-\d+ after its lease expired and went on from step 2\/3/);
    expect(output).toMatch(/refused\s+carol's late \w+ on BAT-\d+: CLAIM_LOST/);
    expect(output).toMatch(/processes\s+none left running/);
    expect(output).toContain('Demo passed');
    expect(output).not.toMatch(/bt_[A-Za-z0-9_-]{20,}/);
    const pids = reportedPids(output);
    expect(pids.length).toBeGreaterThanOrEqual(4);
    expect(pids.filter(alive)).toEqual([]);
    const scratch = /scratch repository (\S+)/.exec(output)?.[1];
    expect(scratch).toBeDefined();
    expect(existsSync(scratch!)).toBe(false);
  }, 90_000);
});
