import { z } from 'zod';
import { KEY_PATTERN, LIMITS, PRIORITY_MAX, PRIORITY_MIN } from '../shared/limits.js';
import { RELATION_TYPES, ROLES, STATUSES } from '../shared/types.js';
import { stateProblem } from '../shared/validate.js';

/*
 * The wire shapes shared by several tools. Inputs are strict and bounded (a value past a
 * bound is INVALID_INPUT, never stored). Outputs describe what clients may rely on and
 * stay open, so a new field in the core does not break an older client; they carry no
 * descriptions because every byte of tools/list costs the agent context.
 */

// ---------------------------------------------------------------- inputs

export const keyInput = z
  .string()
  .regex(KEY_PATTERN, 'a key is LETTERS-digits, like BAT-12')
  .describe('Issue key, e.g. BAT-12.');

// Opaque: any non-empty string is valid input, and one that is not the live token is
// CLAIM_LOST, never INVALID_INPUT, whatever its length.
export const claimTokenInput = z.string().min(1).describe('Your claimToken for this issue.');

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
  .describe('Your id for this request: a retry with the same id returns the first answer, claiming no more.');

export const titleInput = z.string().trim().min(1).max(LIMITS.title);
export const bodyInput = z.string().max(LIMITS.body).describe('Markdown.');

/** A required free text (note, summary, comment) with its bound. */
export function textInput(max: number) {
  return z.string().trim().min(1).max(max);
}

/**
 * A JSON object, at most `LIMITS.stateDepth` deep and `LIMITS.stateBytes` once serialised.
 * The core's own check, which never throws: a state nested too deep to serialise must be
 * INVALID_INPUT, not a stack overflow inside the parse.
 */
export const stateInput = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const problem = stateProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `state ${problem}` });
});

// ---------------------------------------------------------------- outputs

/*
 * Output shapes name the fields a client can count on and leave every object open to the
 * rest of what docs/protocol.md lists (the text rendering and get_issue show it all): the whole
 * tools/list answer must stay within 24 KB.
 */

const time = z.string();

/** `{ code, message, ...details }`; its JSON Schema only requires the two (18 copies of their types cost 1 KB). */
export const errorOutput = z.object({ code: z.string(), message: z.string() }).meta({ properties: undefined });

export const checkpointOutput = z.object({ note: z.string(), agent: z.string(), at: time });

export const leaseOutput = z.object({
  key: z.string(),
  branch: z.string(),
  expiresAt: time,
  claimToken: z.string().optional(),
});

export const relationsOutput = z.object({ blocks: z.array(z.string()), blockedBy: z.array(z.string()) });

export const issueOutput = z.object({ key: z.string(), title: z.string(), status: z.string() });

export const commentOutput = z.object({ id: z.number(), text: z.string(), agent: z.string(), at: time });

export const eventOutput = z.object({ at: time, key: z.string().nullable(), type: z.string(), detail: z.string() });

/**
 * Leases the session lost since it last heard, carried by any answer (docs/protocol.md,
 * "Liveness"). No field is named: 18 copies of the five would cost 3 KB of tools/list,
 * and the objects are open to them.
 */
export const noticesOutput = z.array(z.object({}));

/** What a claim hands over: next_issue, next_batch items and claim_issue. */
export const claimFields = {
  issue: issueOutput,
  lease: leaseOutput,
  checkpoint: checkpointOutput.nullable(),
  resumed: z.boolean(),
};

/**
 * A tool's outputSchema: its answer fields, every one optional, plus `error` and `notices`. SDK clients
 * check structuredContent against it even on refusals, so `{ error }` and short answers
 * such as `{ issue: null }` must pass. tools/list shows it open at every level
 * (tool-listing.ts), so fields beyond those named pass too.
 */
export function answerSchema(shape: Record<string, z.ZodType>): z.ZodObject {
  const fields: Record<string, z.ZodType> = {};
  for (const [name, schema] of Object.entries(shape)) fields[name] = schema.optional();
  fields.error = errorOutput.optional();
  fields.notices = noticesOutput.optional();
  return z.object(fields);
}

/**
 * The JSON Schema of `schema` as an input (objects not marked strict stay open). `$schema`
 * is left out of every tool's two schemas: the keywords used mean the same in every
 * draft, and the bytes add up over 36 schemas.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return { ...z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }), $schema: undefined };
}
