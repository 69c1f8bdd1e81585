import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { jsonSchemaOf } from './schemas.js';
import type { ListedTool } from './tool.js';

/**
 * The tools as esbuild.mjs listed them with {@link listTools} when the bundle was built, in
 * JSON; undefined when running from the sources.
 */
declare const BATON_TOOL_LISTING: string | undefined;

/** A tool's input or output schema as tools/list carries it. */
type ObjectSchema = Tool['inputSchema'];

/**
 * What tools/list shows of each tool: its own strict input schema, and its output schema
 * rendered as an input too, which leaves every object of it open (no
 * `additionalProperties`), so that a field the core adds later does not fail an older
 * client's check of the answer.
 */
export function listTools(tools: readonly ListedTool[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input) as ObjectSchema,
    annotations: tool.annotations,
    execution: tool.execution,
    outputSchema: jsonSchemaOf(tool.output) as ObjectSchema,
  }));
}

/**
 * Answers tools/list with the listing of `tools`, in place of the SDK's own answer, which
 * would show the open schema every tool is registered with (tool.ts) rather than its own.
 * Rendering the schemas as JSON Schema is a large part of a new server's work before its
 * first answer, so the bundle carries the listing already rendered (bench/sdk-way measures
 * both ways); a server run from the sources renders it once, when first asked.
 */
export function answerToolsList(server: McpServer, tools: readonly ListedTool[]): void {
  let listing: Tool[] | undefined = typeof BATON_TOOL_LISTING === 'undefined' ? undefined : JSON.parse(BATON_TOOL_LISTING);
  server.server.setRequestHandler(ListToolsRequestSchema, () => {
    listing ??= listTools(tools);
    return { tools: listing };
  });
}
