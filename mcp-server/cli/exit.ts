import type { BatonError } from '../../shared/errors.js';
import { batonError } from '../../shared/errors.js';
import type { Result } from '../../shared/result.js';

/** Exit statuses of every `baton` command (docs/protocol.md section 7). */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;
export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/**
 * Ends a command early. `cli.ts` turns it into an exit status; the message has been
 * printed by then (`printed`), or is printed from `error`.
 */
export class CliExit extends Error {
  constructor(
    readonly status: ExitStatus,
    readonly error: BatonError | null = null,
  ) {
    super(error ? `${error.code}: ${error.message}` : `exit ${status}`);
    this.name = 'CliExit';
  }
}

/** A refused operation: exit 1 with the protocol's error code. */
export function refused(error: BatonError): CliExit {
  return new CliExit(EXIT.refused, error);
}

/** Bad usage (arguments, options, settings): exit 2. */
export function usage(message: string, details: Record<string, unknown> = {}): CliExit {
  return new CliExit(EXIT.usage, batonError('INVALID_INPUT', message, details));
}

/** The value of a result, or a refusal that ends the command. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw refused(result.error);
  return result.value;
}

/** Commander's own errors: `--help` and `--version` succeed, everything else is usage. */
export function statusForCommanderCode(code: string): ExitStatus {
  return code === 'commander.helpDisplayed' || code === 'commander.version' ? EXIT.ok : EXIT.usage;
}
