import { spawn, type ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { writeClientConfig } from '../shared/client-config.js';
import type { ServerLaunch } from './model/serverLaunch.js';

/**
 * Where VS Code cannot take MCP servers from extensions: run one server for the window
 * (it sweeps expired leases and records its session), and offer to write
 * `.vscode/mcp.json` so the editor's agents can start their own.
 */
export function startFallbackServer(options: { launch: ServerLaunch; cwd: string; log: vscode.LogOutputChannel }): vscode.Disposable {
  const { launch, cwd, log } = options;
  let child: ChildProcess | undefined = spawn(launch.command, launch.args, {
    cwd,
    env: { ...process.env, ...launch.env },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => log.info(`server: ${chunk.toString().trimEnd()}`));
  child.on('exit', (code) => {
    log.info(`Baton server exited (${code}).`);
    child = undefined;
  });
  child.on('error', (error) => log.error(`Baton server: ${error.message}`));
  void vscode.window
    .showInformationMessage("This editor cannot take MCP servers from extensions. Write .vscode/mcp.json so its agents get Baton's tools?", 'Write .vscode/mcp.json')
    .then((choice) => {
      if (!choice) return;
      try {
        // The entry outlives this window, so it carries no window's renewer.
        const { BATON_RENEWER: _renewer, ...env } = launch.env;
        const { written } = writeClientConfig(cwd, { command: launch.command, args: launch.args, env }, { files: ['.vscode/mcp.json'] });
        log.info(`Wrote ${written.join(', ') || 'nothing (already configured)'}.`);
      } catch (error) {
        void vscode.window.showErrorMessage(`Baton: ${(error as Error).message}`);
      }
    });
  return {
    // The server exits when its standard input closes.
    dispose: () => child?.stdin?.end(),
  };
}
