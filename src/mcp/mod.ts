/**
 * The tool endpoint `/mcp` (docs/mcp.md): a front end beside src/http over the same services.
 * src/runtime.ts imports this module on first use and hands `createMcpEndpoint(services)` to the
 * HTTP app, which runs the request's access steps and then passes each authenticated call here.
 */
export type { McpCall } from "./call.ts";
export { CATALOGUE } from "./catalogue.ts";
export { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from "./endpoint.ts";
export { SERVER_NAME } from "./server.ts";
export {
  defineTool,
  type Floor,
  FLOORS,
  type ToolAnnotations,
  type ToolContext,
  type ToolDef,
} from "./tool.ts";
