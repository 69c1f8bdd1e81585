import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { StoreUnavailableError, batonError } from '../shared/errors.js';
import type { Result } from '../shared/result.js';
import type { CallScope } from '../shared/service-operations.js';
import type { Lease, LeaseNotice } from '../shared/types.js';
import type { Core, ServerDeps } from './deps.js';
import { parseInput, refusal, respond, withNotices } from './respond.js';

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

/** A registered tool: what tools/list shows of it (tool-listing.ts), with what the SDK registered it as. */
export type ListedTool = Pick<BatonTool<z.ZodObject, object>, 'name' | 'description' | 'input' | 'output' | 'annotations'> & Pick<RegisteredTool, 'execution'>;

/**
 * Accepts any arguments: Baton validates them itself, since McpServer answers a failed
 * parse with bare text and Baton answers it with INVALID_INPUT and its issues. tools/list
 * shows each tool's own strict schema instead (tool-listing.ts).
 */
const ANY_ARGUMENTS = z.looseObject({});

/** Registers a tool with the SDK, which answers its calls through `handle`; returns it for tools/list. */
export function registerBatonTool<I extends z.ZodObject, T extends object>(
  server: McpServer,
  deps: ServerDeps,
  tool: BatonTool<I, T>,
): ListedTool {
  const registered = server.registerTool(
    tool.name,
    {
      description: tool.description,
      inputSchema: ANY_ARGUMENTS,
      outputSchema: tool.output,
      annotations: tool.annotations,
    },
    (args) => handle(deps, tool, args),
  );
  return { ...tool, execution: registered.execution };
}

/** The tools whose own transaction records the agent's activity, as it renews the lease. */
const RECORD_ACTIVITY: ReadonlySet<string> = new Set(['heartbeat', 'checkpoint']);

/** The single funnel of Baton's tool calls: every one is activity, and every answer carries the session's lost leases. */
async function handle<I extends z.ZodObject, T extends object>(
  deps: ServerDeps,
  tool: BatonTool<I, T>,
  args: unknown,
): Promise<CallToolResult> {
  const parsed = parseInput(tool.input, args);
  if (!parsed.ok) {
    deps.active?.(false);
    return parsed.answer;
  }
  try {
    // The look-up for lost leases rides with the call: where another server holds the
    // database, the call's own request to it asks for them too.
    const call = (await deps.core()).forCall();
    const result = await tool.run(call.core, parsed.value);
    const notices = await lostLeases(call);
    deps.active?.(result.ok && RECORD_ACTIVITY.has(tool.name));
    if (result.ok && tool.leases) deps.touched(tool.leases(result.value));
    return withNotices(respond(result, tool.render), notices);
  } catch (error) {
    // The core answers store failures as results; this is the core not opening at all.
    if (error instanceof StoreUnavailableError) {
      return refusal(batonError('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason }));
    }
    throw error;
  }
}

/** What the session lost since it last heard; none when the store cannot say now (the next call asks again). */
async function lostLeases(call: CallScope<Core>): Promise<LeaseNotice[]> {
  const found = await call.notices();
  return found.ok ? found.value.notices : [];
}
