import * as vscode from 'vscode';
import { CLIENT_CONFIG_FILES, writeClientConfig, type ClientConfigFile } from '../../shared/client-config.js';
import { resolveLocation } from '../../shared/location.js';
import { COMMANDS } from '../constants.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';

const DESCRIPTIONS: Record<ClientConfigFile, string> = {
  '.mcp.json': 'Claude Code, Cursor and other MCP clients',
  '.vscode/mcp.json': "VS Code's workspace servers",
};

/**
 * Writes the `baton` server entry into the repository's MCP client files, as
 * `baton init` does, keeping every other entry. `.vscode/mcp.json` is offered but not
 * preselected where VS Code already gets the server from this extension.
 */
export function registerConfigureAgents(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.configureAgents, 'Configuring agents', deps.log, async (arg) => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder) {
        void vscode.window.showWarningMessage('Baton: open a folder first.');
        return undefined;
      }
      const given = (arg as { files?: ClientConfigFile[] } | undefined)?.files;
      const files = given ?? (await pickFiles(deps.mcpRegistered));
      if (!files || files.length === 0) return undefined;
      const root = resolveLocation({ cwd: folder.uri.fsPath }).repoRoot ?? folder.uri.fsPath;
      const { env, ...launch } = deps.serverLaunch();
      // Other clients start their own server: the window's renewer is for the servers it starts.
      const { BATON_RENEWER: _renewer, ...serverEnv } = env;
      const result = writeClientConfig(root, { ...launch, env: serverEnv }, { files });
      const names = (paths: string[]) => paths.map((p) => vscode.workspace.asRelativePath(p)).join(', ');
      deps.log.info(`Configured agents: wrote ${names(result.written) || 'nothing'}; up to date: ${names(result.unchanged) || 'nothing'}.`);
      void vscode.window.showInformationMessage(
        result.written.length
          ? `Baton: wrote the server entry into ${names(result.written)}. It starts the server bundled with this extension.`
          : `Baton: ${names(result.unchanged)} already configured.`,
      );
      return result;
    }),
  );
}

async function pickFiles(mcpRegistered: boolean): Promise<ClientConfigFile[] | undefined> {
  const items = CLIENT_CONFIG_FILES.map((file) => ({
    label: file,
    description: DESCRIPTIONS[file],
    picked: file === '.mcp.json' || !mcpRegistered,
    file,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: 'Configure agents',
    placeHolder: mcpRegistered ? 'Agent mode in this window already has Baton; which other clients?' : 'Write Baton into which client files?',
  });
  return picked?.map((p) => p.file);
}
