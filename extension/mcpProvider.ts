import * as vscode from 'vscode';
import { MCP_PROVIDER_ID } from './constants.js';
import type { ServerLaunch } from './model/serverLaunch.js';
import { workspaceBatonServer } from './model/workspaceServer.js';

export interface McpRegistration extends vscode.Disposable {
  /** The definitions offered now (for tests and the fallback): none while the workspace names a `baton` server itself. */
  definitions(): vscode.McpStdioServerDefinition[];
  /** Tells VS Code the definition changed (a new database path, say). */
  changed(): void;
}

/**
 * Offers the bundled server to VS Code's MCP support, so agent mode has Baton's tools
 * with no setup, unless the workspace's own MCP configuration already names a `baton`
 * server (`workspaceBatonServer`): VS Code then runs that one, which inherits the
 * window's renewer from the extension host (extension.ts). Returns null where this
 * VS Code has no such API.
 */
export function registerMcpProvider(options: { launch: () => ServerLaunch; cwd: string | null; version: string }): McpRegistration | null {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') return null;
  const emitter = new vscode.EventEmitter<void>();
  const watcher = options.cwd ? vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(options.cwd, '{.mcp.json,.vscode/mcp.json}')) : undefined;
  watcher?.onDidCreate(() => emitter.fire());
  watcher?.onDidChange(() => emitter.fire());
  watcher?.onDidDelete(() => emitter.fire());
  const definitions = (): vscode.McpStdioServerDefinition[] => {
    if (options.cwd && workspaceBatonServer(options.cwd)) return [];
    const { command, args, env } = options.launch();
    const definition = new vscode.McpStdioServerDefinition('Baton', command, args, env, options.version);
    if (options.cwd) definition.cwd = vscode.Uri.file(options.cwd);
    return [definition];
  };
  const registration = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: emitter.event,
    provideMcpServerDefinitions: () => definitions(),
    resolveMcpServerDefinition: (definition) => definition,
  });
  return {
    definitions,
    changed: () => emitter.fire(),
    dispose: () => {
      watcher?.dispose();
      registration.dispose();
      emitter.dispose();
    },
  };
}
