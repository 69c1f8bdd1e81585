import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { isSessionAlive } from '../shared/sessions.js';
import { registerCommands } from './commands/index.js';
import { CONTEXT_KEYS, OUTPUT_CHANNEL, POLL_MS, SETTINGS, VIEWS } from './constants.js';
import { BatonDocuments } from './documents/batonDocuments.js';
import { BatonSource } from './model/batonSource.js';
import { ClaimsModel } from './model/claimsModel.js';
import type { ModelState } from './model/snapshot.js';
import { every } from './model/emitter.js';
import { serverLaunch } from './model/serverLaunch.js';
import { registerMcpProvider } from './mcpProvider.js';
import { startFallbackServer } from './mcpFallback.js';
import { Renewer } from './renewer.js';
import { readSettings } from './settings.js';
import { ClaimsStatusBar } from './statusBar.js';
import { ClaimsTreeProvider } from './tree/claimsTreeProvider.js';
import { CountdownDecorations } from './tree/countdownDecorations.js';
import { watchDatabase } from './watchDatabase.js';

/** What the extension hands to other extensions and to its tests. */
export type BatonApi = ReturnType<typeof wire>;

export function activate(context: vscode.ExtensionContext): BatonApi {
  return wire(context);
}

function wire(context: vscode.ExtensionContext) {
  const started = Date.now();
  const subs = context.subscriptions;
  const log = vscode.window.createOutputChannel(OUTPUT_CHANNEL, { log: true });
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? null;
  const cwd = folder?.fsPath ?? null;
  // A fresh id per window (env.sessionId is a fixed placeholder in web hosts such as code-server).
  const renewerId = `vscode:${randomBytes(6).toString('hex')}`;
  // VS Code starts every MCP server of the window from this process's environment: one the
  // workspace's mcp.json names is then this window's to renew too, as the provider's is.
  process.env.BATON_RENEWER ??= renewerId;
  const settings = { current: readSettings(folder) };
  const source = new BatonSource({ cwd, db: settings.current.databasePath, renewer: renewerId });
  const model = new ClaimsModel(source, { pollMs: POLL_MS });
  const renewer = new Renewer({ renewer: renewerId, connect: () => source.existing(), isAlive: isSessionAlive, log, now: () => source.storeNow() });
  const treeContext = () => ({ now: source.storeNow(), warningSeconds: settings.current.warningSeconds, renewer: renewerId, isAlive: isSessionAlive });
  const decorations = new CountdownDecorations();
  const tree = new ClaimsTreeProvider(model, treeContext, decorations);
  const view = vscode.window.createTreeView(VIEWS.claims, { treeDataProvider: tree, showCollapseAll: true });
  source.showLists(view.visible);
  const statusBar = new ClaimsStatusBar(model, treeContext);
  const launch = () => serverLaunch({ extensionPath: context.extensionPath, execPath: process.execPath, renewer: renewerId, db: source.dbOverride });
  const mcp = registerMcpProvider({ launch, cwd, version: String(context.extension.packageJSON.version) });
  subs.push(log, source, model, renewer, decorations, tree, view, statusBar, vscode.window.registerFileDecorationProvider(decorations));
  subs.push(new BatonDocuments(source, model), watchDatabase(source, () => void model.poll()));
  subs.push(every(1000, () => (tree.tick(), statusBar.render())));
  if (mcp) subs.push(mcp);
  else if (cwd) subs.push(startFallbackServer({ launch: launch(), cwd, log }));
  registerCommands(context, { source, model, folder: cwd, renewer, log, settings: () => settings.current, serverLaunch: launch, mcpRegistered: mcp !== null });

  // The context key menus read, set when it changes: each set is a message to the window.
  let shownKind: ModelState['kind'] = 'loading';
  subs.push(
    view.onDidChangeVisibility(({ visible }) => {
      source.showLists(visible);
      if (visible) void model.refresh();
    }),
    model.onDidChange((state) => {
      if (state.kind !== shownKind) void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.state, (shownKind = state.kind));
      if (state.kind === 'error') log.error(`Reading the database: ${state.error.message}`);
      if (state.kind === 'ready') renewer.followLease(state.snapshot.leaseSeconds);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SETTINGS.section)) return;
      settings.current = readSettings(folder);
      if (e.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.databasePath}`)) {
        source.retarget(settings.current.databasePath);
        mcp?.changed();
        void model.refresh();
      }
      if (e.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.warningSeconds}`)) tree.refresh();
    }),
  );
  void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.state, shownKind);
  void model.start();
  renewer.start();
  log.info(`Activated in ${Date.now() - started} ms for ${cwd ?? 'a window with no folder'} as ${renewerId}; database ${source.dbPath ?? 'none'}.`);
  return { model, tree, view, renewer, renewerId, source, mcpDefinitions: () => mcp?.definitions() ?? [] };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
