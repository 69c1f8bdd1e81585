import * as vscode from 'vscode';
import type { BatonError, ErrorCode } from '../shared/errors.js';

/** A sentence for people for each refusal of docs/protocol.md section 6. */
export function messageFor(error: BatonError): string {
  const key = typeof error.key === 'string' ? error.key : 'the issue';
  const messages: Record<ErrorCode, string> = {
    INVALID_INPUT: `Baton refused the input: ${error.message}`,
    NOT_FOUND: `${key} does not exist in this repository's Baton database.`,
    ALREADY_CLAIMED: `${key} is held by another agent.`,
    BLOCKED: `${key} is blocked by unfinished issues: ${Array.isArray(error.blockers) ? error.blockers.join(', ') : 'see its relations'}.`,
    NOT_READY: `${key} cannot be claimed in its current status${typeof error.status === 'string' ? ` (${error.status})` : ''}.`,
    CLAIM_LOST: `The lease of ${key} is no longer live${typeof error.reason === 'string' ? ` (${error.reason})` : ''}.`,
    CLAIM_MISMATCH: `The lease of ${key} belongs to another session of the same agent.`,
    FORBIDDEN: `The lease of ${key} belongs to another agent.`,
    CYCLE: `That relation would make a dependency cycle${Array.isArray(error.path) ? `: ${error.path.join(' → ')}` : ''}.`,
    STUCK: `${key} is stuck: its lease kept expiring with no checkpoint${typeof error.reclaims === 'number' ? ` (${error.reclaims} times in a row)` : ''}. Look at its history, then reopen it to hand it out again.`,
    STORE_UNAVAILABLE: `Baton cannot use its database: ${error.message}`,
  };
  return messages[error.code] ?? error.message;
}

function isBatonError(value: unknown): value is BatonError {
  return typeof value === 'object' && value !== null && 'code' in value && 'message' in value && typeof (value as BatonError).message === 'string';
}

/**
 * Where every failure of a command ends: a refusal shows its protocol message, anything
 * else the error text; both go to the log with what was being done.
 */
export function reportError(log: vscode.LogOutputChannel, doing: string, error: unknown): void {
  const text = isBatonError(error) ? messageFor(error) : error instanceof Error ? error.message : String(error);
  log.error(`${doing}: ${isBatonError(error) ? `${error.code} ${error.message}` : text}`);
  void vscode.window.showErrorMessage(`Baton: ${text}`, 'Show Log').then((choice) => {
    if (choice) log.show(true);
  });
}
