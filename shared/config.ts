import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_CHECKPOINT_NUDGE_SECONDS,
  DEFAULT_IDLE_SECONDS,
  DEFAULT_LEASE_SECONDS,
  IDLE_SECONDS_MAX,
  LEASE_SECONDS_MAX,
  LEASE_SECONDS_MIN,
  PREFIX_PATTERN,
} from './limits.js';
import { fail, ok, type Result } from './result.js';

/** Per-repository settings: `.baton.json` at the top level, environment variables winning over it. */
export interface BatonConfig {
  prefix: string;
  leaseSeconds: number;
  requireReview: boolean;
  /** A renewer stops renewing a session's leases once its agent has been idle this long; 0: never. */
  idleSeconds: number;
  /** The Stop hook asks for a checkpoint when the last one is older than this; 0: never. */
  checkpointNudgeSeconds: number;
}

export const CONFIG_FILE = '.baton.json';
export const DEFAULTS: BatonConfig = {
  prefix: 'BAT',
  leaseSeconds: DEFAULT_LEASE_SECONDS,
  requireReview: false,
  idleSeconds: DEFAULT_IDLE_SECONDS,
  checkpointNudgeSeconds: DEFAULT_CHECKPOINT_NUDGE_SECONDS,
};

/** The settings given in whole seconds, with their bounds and environment variables. */
const SECONDS_SETTINGS = [
  { field: 'leaseSeconds', env: 'BATON_LEASE_SECONDS', min: LEASE_SECONDS_MIN, max: LEASE_SECONDS_MAX },
  { field: 'idleSeconds', env: 'BATON_IDLE_SECONDS', min: 0, max: IDLE_SECONDS_MAX },
  { field: 'checkpointNudgeSeconds', env: 'BATON_CHECKPOINT_NUDGE_SECONDS', min: 0, max: IDLE_SECONDS_MAX },
] as const;

type Source = { kind: 'file'; file: string; field: keyof BatonConfig } | { kind: 'env'; setting: string };

function invalid(source: Source, why: string): Result<never> {
  const where = source.kind === 'file' ? `${source.file}: field "${source.field}"` : `setting ${source.setting}`;
  const details = source.kind === 'file' ? { file: source.file, field: source.field } : { setting: source.setting };
  return fail('INVALID_INPUT', `${where} ${why}`, { ...details, issues: [{ path: source.kind === 'file' ? source.field : source.setting, message: why }] });
}

function checkSeconds(value: unknown, source: Source, min: number, max: number): Result<number> {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    return invalid(source, `must be a whole number of seconds from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return ok(n);
}

function checkPrefix(value: unknown, source: Source): Result<string> {
  if (typeof value !== 'string' || !PREFIX_PATTERN.test(value)) {
    return invalid(source, `must be 1 to 16 letters, not ${JSON.stringify(value)}`);
  }
  return ok(value.toUpperCase());
}

function checkFlag(value: unknown, source: Source): Result<boolean> {
  if (typeof value === 'boolean') return ok(value);
  if (source.kind === 'env' && typeof value === 'string' && /^(1|0|true|false)$/i.test(value)) return ok(/^(1|true)$/i.test(value));
  return invalid(source, `must be true or false, not ${JSON.stringify(value)}`);
}

function readFile(file: string): Result<Partial<Record<keyof BatonConfig, unknown>>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return fail('INVALID_INPUT', `${file} is not valid JSON: ${(error as Error).message}`, { file, issues: [{ path: file, message: 'not JSON' }] });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('INVALID_INPUT', `${file} must hold a JSON object.`, { file, issues: [{ path: file, message: 'not an object' }] });
  }
  const known = new Set(Object.keys(DEFAULTS));
  const unknown = Object.keys(parsed).find((k) => !known.has(k));
  if (unknown) {
    return fail('INVALID_INPUT', `${file}: unknown field "${unknown}" (known: ${[...known].join(', ')}).`, {
      file,
      field: unknown,
      issues: [{ path: unknown, message: 'unknown field' }],
    });
  }
  return ok(parsed as Partial<Record<keyof BatonConfig, unknown>>);
}

/**
 * Reads `.baton.json` (when the repository has one) and the environment:
 * `BATON_PREFIX`, `BATON_LEASE_SECONDS`, `BATON_REQUIRE_REVIEW`, `BATON_IDLE_SECONDS`,
 * `BATON_CHECKPOINT_NUDGE_SECONDS`. A bad value is an
 * error naming the file and field, or the setting; it is never ignored.
 */
export function loadConfig(options: { repoRoot: string | null; env?: NodeJS.ProcessEnv }): Result<BatonConfig> {
  const env = options.env ?? process.env;
  const config: BatonConfig = { ...DEFAULTS };
  const file = options.repoRoot ? join(options.repoRoot, CONFIG_FILE) : null;
  if (file && existsSync(file)) {
    const read = readFile(file);
    if (!read.ok) return read;
    const values = read.value;
    if (values.prefix !== undefined) {
      const r = checkPrefix(values.prefix, { kind: 'file', file, field: 'prefix' });
      if (!r.ok) return r;
      config.prefix = r.value;
    }
    for (const { field, min, max } of SECONDS_SETTINGS) {
      const value = values[field];
      if (value === undefined) continue;
      if (typeof value !== 'number') return invalid({ kind: 'file', file, field }, `must be a number, not ${JSON.stringify(value)}`);
      const r = checkSeconds(value, { kind: 'file', file, field }, min, max);
      if (!r.ok) return r;
      config[field] = r.value;
    }
    if (values.requireReview !== undefined) {
      const r = checkFlag(values.requireReview, { kind: 'file', file, field: 'requireReview' });
      if (!r.ok) return r;
      config.requireReview = r.value;
    }
  }
  if (env.BATON_PREFIX !== undefined) {
    const r = checkPrefix(env.BATON_PREFIX, { kind: 'env', setting: 'BATON_PREFIX' });
    if (!r.ok) return r;
    config.prefix = r.value;
  }
  for (const { field, env: setting, min, max } of SECONDS_SETTINGS) {
    if (env[setting] === undefined) continue;
    const r = checkSeconds(env[setting], { kind: 'env', setting }, min, max);
    if (!r.ok) return r;
    config[field] = r.value;
  }
  if (env.BATON_REQUIRE_REVIEW !== undefined) {
    const r = checkFlag(env.BATON_REQUIRE_REVIEW, { kind: 'env', setting: 'BATON_REQUIRE_REVIEW' });
    if (!r.ok) return r;
    config.requireReview = r.value;
  }
  return ok(config);
}
