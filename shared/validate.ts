import { KEY_PATTERN, LIMITS, PRIORITY_MAX, PRIORITY_MIN } from './limits.js';
import { fail, ok, type Result } from './result.js';

/**
 * The core's own checks of what it is given. The MCP server checks the same bounds with
 * zod first; these keep the CLI, the editor and any other caller to the same rules.
 */
export type Problem = { path: string; message: string };

export class Checks {
  readonly problems: Problem[] = [];

  key(path: string, value: string | undefined): this {
    if (value !== undefined && !KEY_PATTERN.test(value.trim())) this.problems.push({ path, message: 'must look like BAT-12 (letters, a dash, digits)' });
    return this;
  }
  keys(path: string, values: readonly string[] | undefined): this {
    if (values && values.length > LIMITS.relationsPerCall) this.problems.push({ path, message: `at most ${LIMITS.relationsPerCall} keys` });
    values?.forEach((v, i) => this.key(`${path}.${i}`, v));
    return this;
  }
  text(path: string, value: string | undefined, max: number, required = false): this {
    if (value === undefined) {
      if (required) this.problems.push({ path, message: 'required' });
    } else if (required && value.trim() === '') this.problems.push({ path, message: 'must not be empty' });
    else if (value.length > max) this.problems.push({ path, message: `at most ${max} characters (got ${value.length})` });
    else if (value.includes('\0')) this.problems.push({ path, message: 'must not contain NUL characters' });
    return this;
  }
  int(path: string, value: number | undefined, min: number, max: number): this {
    if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) {
      this.problems.push({ path, message: `must be a whole number from ${min} to ${max}` });
    }
    return this;
  }
  priority(path: string, value: number | undefined): this {
    return this.int(path, value, PRIORITY_MIN, PRIORITY_MAX);
  }
  labels(path: string, values: readonly string[] | undefined): this {
    if (!values) return this;
    if (values.length > LIMITS.labels) this.problems.push({ path, message: `at most ${LIMITS.labels} labels` });
    values.forEach((v, i) => this.text(`${path}.${i}`, v, LIMITS.label, true));
    return this;
  }
  oneOf<T extends string>(path: string, value: T | undefined, allowed: readonly T[]): this {
    if (value !== undefined && !allowed.includes(value)) this.problems.push({ path, message: `must be one of ${allowed.join(', ')}` });
    return this;
  }
  /**
   * A claim token is opaque (docs/protocol.md section 4): any non-empty string is valid input,
   * and one that is not the live token is CLAIM_LOST, never INVALID_INPUT. It is only
   * hashed, never stored, so neither its length nor its characters need a bound here.
   */
  token(path: string, value: string | undefined, required: boolean): this {
    if (value === undefined) {
      if (required) this.problems.push({ path, message: 'required' });
    } else if (typeof value !== 'string' || value.length === 0) this.problems.push({ path, message: 'must be a non-empty string' });
    return this;
  }
  state(path: string, value: unknown): this {
    if (value === undefined) return this;
    const problem = stateProblem(value);
    if (problem) this.problems.push({ path, message: problem });
    return this;
  }
  done(): Result<void> {
    if (this.problems.length === 0) return ok(undefined);
    const summary = this.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    return fail('INVALID_INPUT', `Invalid input: ${summary}.`, { issues: this.problems });
  }
}

/** Whether `value` is a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How deep a JSON value nests (a scalar is 0), found without recursion so any depth is safe to ask about. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [at, depth] = stack.pop()!;
    if (typeof at !== 'object' || at === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(at)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Why a checkpoint `state` cannot be stored, or undefined when it can: a JSON object,
 * nested at most `LIMITS.stateDepth` deep (deeper ones break every JSON serialiser that
 * later reads them back, and no resume note needs them), at most `LIMITS.stateBytes`
 * once serialised. The depth is checked first, without recursion, so that no input can
 * overflow the stack of the process checking it.
 */
export function stateProblem(value: unknown): string | undefined {
  if (!isJsonObject(value)) return 'must be a JSON object';
  const depth = jsonDepth(value);
  if (depth > LIMITS.stateDepth) return `nested at most ${LIMITS.stateDepth} levels deep (got ${depth})`;
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(value), 'utf8');
  } catch {
    return 'must be plain JSON';
  }
  if (size > LIMITS.stateBytes) return `at most ${LIMITS.stateBytes} bytes of JSON (got ${size})`;
  return undefined;
}

export function check(): Checks {
  return new Checks();
}
