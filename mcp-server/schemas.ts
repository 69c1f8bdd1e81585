import { z } from 'zod';
import { ERROR_CODES } from '../shared/errors.js';
import { KEY_PATTERN, LIMITS, PRIORITY_MAX, PRIORITY_MIN } from '../shared/limits.js';
import { RELATION_TYPES, ROLES, STATUSES } from '../shared/types.js';

/*
 * The wire shapes shared by several tools. Inputs are strict and bounded (a value past a
 * bound is INVALID_INPUT, never stored). Outputs describe what clients may rely on and
 * stay open (`loose`) so a new field in the core does not break an older client; they
 * carry no descriptions because every byte of tools/list costs the agent context.
 */

// ---------------------------------------------------------------- inputs

export const keyInput = z
  .string()
  .regex(KEY_PATTERN, 'a key is LETTERS-digits, like BAT-12')
  .describe('Issue key, e.g. BAT-12.');

export const claimTokenInput = z
  .string()
  .min(1)
  .max(LIMITS.claimToken)
  .describe('The claimToken from your claim answer (next_issue, next_batch or claim_issue).');

export const optionalClaimTokenInput = claimTokenInput.optional();

export const labelsInput = z
  .array(z.string().trim().min(1).max(LIMITS.label))
  .max(LIMITS.labels);

export const priorityInput = z
  .number()
  .int()
  .min(PRIORITY_MIN)
  .max(PRIORITY_MAX)
  .describe('0 highest … 4 lowest.');

export const statusInput = z.enum(STATUSES);
export const roleInput = z.enum(ROLES);
export const relationTypeInput = z.enum(RELATION_TYPES);

export const requestIdInput = z
  .string()
  .min(1)
  .max(LIMITS.requestId)
  .describe('Any id you choose; repeat it after a lost answer to get the same answer back instead of claiming more.');

export const titleInput = z.string().trim().min(1).max(LIMITS.title);
export const bodyInput = z.string().max(LIMITS.body).describe('Markdown.');

/** A required free text (note, summary, comment) with its bound. */
export function textInput(max: number) {
  return z.string().trim().min(1).max(max);
}

/** A JSON object, at most `LIMITS.stateBytes` once serialised. */
export const stateInput = z
  .record(z.string(), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= LIMITS.stateBytes, {
    message: `state is larger than ${LIMITS.stateBytes} bytes once serialised`,
  });

// ---------------------------------------------------------------- outputs

const time = z.string();
const nullableText = z.string().nullable();

export const errorOutput = z
  .object({ code: z.enum(ERROR_CODES), message: z.string() })
  .loose();

export const checkpointOutput = z
  .object({
    note: z.string(),
    state: z.record(z.string(), z.unknown()).nullable(),
    agent: z.string(),
    at: time,
    git: z.object({ head: z.string(), branch: nullableText, dirty: z.array(z.string()) }).loose().nullable(),
  })
  .loose();

export const leaseOutput = z
  .object({
    key: z.string(),
    agent: z.string(),
    branch: z.string(),
    worktree: nullableText,
    claimedAt: time,
    expiresAt: time,
    lastRenewedAt: time,
    renewer: nullableText,
    fence: z.number(),
    claimToken: z.string().optional(),
  })
  .loose();

export const relationsOutput = z
  .object({
    blocks: z.array(z.string()),
    blockedBy: z.array(z.string()),
    relatesTo: z.array(z.string()),
    parent: nullableText,
  })
  .loose();

export const issueOutput = z
  .object({
    key: z.string(),
    title: z.string(),
    body: z.string(),
    status: z.enum(STATUSES),
    priority: z.number(),
    effectivePriority: z.number(),
    labels: z.array(z.string()),
    relations: relationsOutput,
    checkpoint: checkpointOutput.nullable(),
    reclaimCount: z.number(),
    createdAt: time,
    updatedAt: time,
  })
  .loose();

export const issueSummaryOutput = z
  .object({
    key: z.string(),
    title: z.string(),
    status: z.enum(STATUSES),
    priority: z.number(),
    effectivePriority: z.number(),
    labels: z.array(z.string()),
    held: z.boolean(),
  })
  .loose();

export const commentOutput = z.object({ id: z.number(), text: z.string(), agent: z.string(), at: time }).loose();

export const eventOutput = z
  .object({ at: time, key: nullableText, type: z.string(), agent: z.string(), detail: z.string() })
  .loose();

/** What a claim hands over: next_issue, next_batch items and claim_issue. */
export const claimFields = {
  issue: issueOutput,
  lease: leaseOutput,
  checkpoint: checkpointOutput.nullable(),
  resumed: z.boolean(),
};

/**
 * A tool's outputSchema: its answer fields, every one optional, plus `error`. SDK clients
 * check structuredContent against it even on refusals, so `{ error }` and short answers
 * such as `{ issue: null }` must pass.
 */
export function answerSchema(shape: Record<string, z.ZodType>): z.ZodObject {
  const fields: Record<string, z.ZodType> = { error: errorOutput.optional() };
  for (const [name, schema] of Object.entries(shape)) fields[name] = schema.optional();
  return z.object(fields);
}
