import type * as vscode from 'vscode';
import type { BatonSource } from '../model/batonSource.js';
import type { ClaimsModel } from '../model/claimsModel.js';
import type { ServerLaunch } from '../model/serverLaunch.js';
import type { Renewer } from '../renewer.js';
import type { Settings } from '../settings.js';

/** What the commands work with; built once in `extension.ts`. */
export interface CommandDeps {
  source: BatonSource;
  model: ClaimsModel;
  /** The window's workspace folder, or null for a window without one. */
  folder: string | null;
  renewer: Renewer;
  log: vscode.LogOutputChannel;
  settings(): Settings;
  /** How to start the bundled server, for client configuration files. */
  serverLaunch(): ServerLaunch;
  /** Whether VS Code took the server from the extension's MCP provider. */
  mcpRegistered: boolean;
}
