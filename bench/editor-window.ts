import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';

/*
 * One VS Code window of the editor section: code-server's VS Code server (installed by
 * test/vscode/install.sh, started as test/vscode/host.mjs starts it) on the scratch
 * repository, its workbench open in headless Chromium, with a given .vsix of Baton
 * installed or none.
 */

/** What test/vscode/host.mjs offers: starting the server and the browser, in process groups killed at exit. */
export interface VsCodeHost {
  node24: string;
  codeServer: string;
  /** The user settings of the windows of the extension's tests. */
  WORKBENCH_SETTINGS: Record<string, unknown>;
  freePort(): Promise<number>;
  startProcess(name: string, command: string, args: string[], options?: { env?: NodeJS.ProcessEnv; cwd?: string }): ChildWithTail;
  stopProcess(child: ChildWithTail, ms?: number): Promise<void>;
  waitForHttp(url: string, ms: number, child?: ChildWithTail): Promise<void>;
  launchBrowser(profileDir: string, viewport?: { width: number; height: number }): Promise<BrowserContext>;
}

interface ChildWithTail {
  pid: number;
  exitCode: number | null;
  tail(): string;
}

/** The host module of the extension's tests, or a message saying how to install it. */
export async function loadVsCodeHost(root: string): Promise<VsCodeHost | string> {
  const dir = join(root, 'test', 'vscode');
  if (!existsSync(join(dir, 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js'))) {
    return `code-server is not installed: run bash test/vscode/install.sh (about 2 minutes, once), then this again`;
  }
  return (await import(pathToFileURL(join(dir, 'host.mjs')).href)) as VsCodeHost;
}

export interface EditorWindow {
  label: string;
  /** The extension host of the window, found among the server's processes. */
  extensionHostPid: number;
  close(): Promise<void>;
}

/**
 * Opens `repo` in a window of its own server, with `vsix` installed (none: the same
 * window without Baton), and, with Baton, shows its Claims view expanded with its rows.
 */
export async function openWindow(host: VsCodeHost, options: { label: string; vsix: string | null; repo: string; dir: string }): Promise<EditorWindow> {
  const { label, vsix, repo, dir } = options;
  const dirs = { userData: join(dir, 'user-data'), extensions: join(dir, 'extensions'), tmp: join(dir, 'tmp') };
  for (const d of [...Object.values(dirs), join(dirs.userData, 'User')]) mkdirSync(d, { recursive: true });
  // A remote window's extension host looks for ports to forward by listing every process's
  // sockets every few seconds, at a cost that follows how many processes the machine runs
  // (the agents, their servers, the other windows), not Baton, and would drown Baton's part
  // in its noise. Every window here finds ports in terminal output only.
  const settings = { ...host.WORKBENCH_SETTINGS, 'remote.autoForwardPortsSource': 'output' };
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings));
  const port = await host.freePort();
  const config = join(dir, 'code-server.yaml');
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const common = ['--config', config, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  const env = { PATH: `${join(host.node24, '..')}:${process.env.PATH}`, TMPDIR: dirs.tmp };
  if (vsix) execFileSync(host.node24, [host.codeServer, ...common, '--install-extension', vsix], { env: { ...process.env, ...env }, stdio: 'pipe' });
  const args = [host.codeServer, ...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', repo];
  const server = host.startProcess(`code-server ${label}`, host.node24, args, { env });
  let browser: BrowserContext | undefined;
  const close = async () => {
    await browser?.close().catch(() => undefined);
    await host.stopProcess(server);
  };
  try {
    await host.waitForHttp(`http://127.0.0.1:${port}/healthz`, 30_000, server);
    browser = await host.launchBrowser(join(dir, 'chromium'));
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(repo)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    if (vsix) await showClaims(page);
    const extensionHostPid = await waitForExtensionHost(server.pid);
    return { label, extensionHostPid, close };
  } catch (error) {
    await close();
    throw new Error(`window ${label}: ${(error as Error).message}`);
  }
}

/** Opens Baton's side bar and waits for the Claims view to list the issues, expanded. */
async function showClaims(page: Page): Promise<void> {
  const icon = page.locator('.activitybar .action-item a[aria-label^="Baton"]').first();
  await icon.waitFor({ timeout: 60_000 });
  await icon.click();
  const pane = page.locator('.pane:has(.pane-header:has-text("Claims"))');
  const header = pane.locator('.pane-header').first();
  // The only view of its container shows no header: it is expanded then.
  await header.waitFor({ state: 'attached', timeout: 30_000 });
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  await pane.locator('.monaco-list-row:has-text("Ready")').first().waitFor({ timeout: 60_000 });
}

/** The pid of the extension host among the processes of group `pgid` (the server's). */
async function waitForExtensionHost(pgid: number): Promise<number> {
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    const found = extensionHosts(pgid);
    if (found.length === 1) return found[0];
    if (found.length > 1) throw new Error(`several extension hosts: ${found.map((pid) => `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`).join('; ')}`);
  }
  throw new Error('no extension host started');
}

function extensionHosts(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== pgid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('extensionHost')) found.push(Number(entry));
    } catch {
      // gone while listed
    }
  }
  return found;
}
