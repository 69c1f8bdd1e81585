import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { StoreUnavailableError, batonError } from '../shared/errors.js';
import type { Result } from '../shared/result.js';
import type { Lease } from '../shared/types.js';
import type { Core, ServerDeps } from './deps.js';
import { parseInput, refusal, respond } from './respond.js';
import { jsonSchemaOf } from './schemas.js';

/** The three hints every Baton tool states. */
export interface Hints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
}

/** One tool: its schemas, what it asks of the core, and how its answer reads as text. */
export interface BatonTool<I extends z.ZodObject, T extends object> {
  name: string;
  description: string;
  input: I;
  output: z.ZodObject;
  annotations: Hints;
  run(core: Core, input: z.output<I>): Promise<Result<T>>;
  render(value: T): string;
  /** The leases a successful answer claimed or renewed, for the untracked-lease warning. */
  leases?(value: T): readonly Lease[];
}

/**
 * Registers a tool whose input is validated here, not by the SDK: McpServer answers a
 * failed parse with bare text, and Baton answers it with INVALID_INPUT and its issues.
 * So the SDK gets an object schema that accepts any arguments but renders in tools/list
 * exactly as the tool's own strict schema.
 */
export function registerBatonTool<I extends z.ZodObject, T extends object>(
  server: McpServer,
  deps: ServerDeps,
  tool: BatonTool<I, T>,
): void {
  server.registerTool(
    tool.name,
    {
      description: tool.description,
      inputSchema: listedAs(tool.input),
      outputSchema: tool.output,
      annotations: tool.annotations,
    },
    (args): Promise<CallToolResult> => handle(deps, tool, args),
  );
}

async function handle<I extends z.ZodObject, T extends object>(
  deps: ServerDeps,
  tool: BatonTool<I, T>,
  args: unknown,
): Promise<CallToolResult> {
  const parsed = parseInput(tool.input, args);
  if (!parsed.ok) return parsed.answer;
  try {
    const result = await tool.run(await deps.core(), parsed.value);
    if (result.ok && tool.leases) deps.touched(tool.leases(result.value));
    return respond(result, tool.render);
  } catch (error) {
    // The core answers store failures as results; this is the core not opening at all.
    if (error instanceof StoreUnavailableError) {
      return refusal(batonError('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason }));
    }
    throw error;
  }
}

/** An object schema that parses anything and shows itself in JSON Schema as `strict` does. */
function listedAs(strict: z.ZodObject) {
  return z.looseObject({}).meta(jsonSchemaOf(strict));
}
