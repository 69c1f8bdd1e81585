import * as vscode from 'vscode';
import { DEFAULT_WARNING_SECONDS, SETTINGS } from './constants.js';

/** The `baton.*` settings, as package.json documents them. */
export interface Settings {
  /** Overrides where the database is; relative paths are taken from the workspace folder. */
  databasePath: string | undefined;
  /** Seconds before expiry at which a claim's countdown takes the warning colour. */
  warningSeconds: number;
  confirmRelease: boolean;
}

/** Reads the settings in force; the database path as the workspace `folder` sets it. */
export function readSettings(folder: vscode.Uri | null = null): Settings {
  const config = vscode.workspace.getConfiguration(SETTINGS.section);
  const databasePath = vscode.workspace.getConfiguration(SETTINGS.section, folder).get<string>(SETTINGS.databasePath, '').trim();
  const warning = config.get<number>(SETTINGS.warningSeconds, DEFAULT_WARNING_SECONDS);
  return {
    databasePath: databasePath === '' ? undefined : databasePath,
    warningSeconds: Number.isFinite(warning) && warning >= 0 ? warning : DEFAULT_WARNING_SECONDS,
    confirmRelease: config.get<boolean>(SETTINGS.confirmRelease, true),
  };
}
