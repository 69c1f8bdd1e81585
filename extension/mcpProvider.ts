import * as vscode from 'vscode';
import { MCP_PROVIDER_ID } from './constants.js';
import type { ServerLaunch } from './model/serverLaunch.js';

export interface McpRegistration extends vscode.Disposable {
  /** The definitions offered now (for tests and the fallback). */
  definitions(): vscode.McpStdioServerDefinition[];
  /** Tells VS Code the definition changed (a new database path, say). */
  changed(): void;
}

/**
 * Offers the bundled server to VS Code's MCP support, so agent mode has Baton's tools
 * with no setup. Returns null where this VS Code has no such API.
 */
export function registerMcpProvider(options: { launch: () => ServerLaunch; cwd: string | null; version: string }): McpRegistration | null {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') return null;
  const emitter = new vscode.EventEmitter<void>();
  const definitions = (): vscode.McpStdioServerDefinition[] => {
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
      registration.dispose();
      emitter.dispose();
    },
  };
}
