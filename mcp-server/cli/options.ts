import { InvalidArgumentError } from 'commander';
import { KEY_PATTERN, PRIORITY_MAX, PRIORITY_MIN } from '../../shared/limits.js';
import { STATUSES, type Status } from '../../shared/types.js';

/** Argument parsers for commander: a value that cannot be right is bad usage (exit 2), caught before any work. */

export function parseKey(value: string): string {
  if (!KEY_PATTERN.test(value)) throw new InvalidArgumentError('expected an issue key such as BAT-12.');
  return value.toUpperCase();
}

export function parsePriority(value: string): number {
  const n = wholeNumber(value);
  if (n === null || n < PRIORITY_MIN || n > PRIORITY_MAX) {
    throw new InvalidArgumentError(`expected a priority from ${PRIORITY_MIN} (highest) to ${PRIORITY_MAX}.`);
  }
  return n;
}

export function parseStatus(value: string): Status {
  if (!(STATUSES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${STATUSES.join(', ')}.`);
  }
  return value as Status;
}

export function positiveInt(max: number): (value: string) => number {
  return (value) => {
    const n = wholeNumber(value);
    if (n === null || n < 1 || n > max) throw new InvalidArgumentError(`expected a whole number from 1 to ${max}.`);
    return n;
  };
}

/**
 * Decimal digits only. `Number` alone reads "" and " " as 0 (an unset shell variable
 * would become priority 0, the highest) and takes "0x3" or "1e0" too.
 */
function wholeNumber(value: string): number | null {
  return /^\d+$/.test(value) ? Number(value) : null;
}

/** A repeatable option (`--label a --label b`) that also takes commas (`--label a,b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

/** A repeatable option of issue keys. */
export function collectKeys(value: string, previous: string[] = []): string[] {
  return [...previous, ...collect(value).map(parseKey)];
}
