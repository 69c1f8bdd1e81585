import * as vscode from 'vscode';
import type { BatonError } from '../../shared/errors.js';
import type { Result } from '../../shared/result.js';
import { reportError } from '../errors.js';

/** A refusal carried out of a command body to its boundary. */
class Refused extends Error {
  constructor(readonly error: BatonError) {
    super(error.message);
  }
}

/** The value of a result, or a refusal that `command` reports. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new Refused(result.error);
  return result.value;
}

/** Registers a command whose failures are reported once, at this boundary. */
export function command(
  id: string,
  doing: string,
  log: vscode.LogOutputChannel,
  body: (...args: unknown[]) => Promise<unknown>,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await body(...args);
    } catch (error) {
      reportError(log, doing, error instanceof Refused ? error.error : error);
      return undefined;
    }
  });
}
