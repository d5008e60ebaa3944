export { mcpEnvironment, type McpEnvironment } from './mcp-environment.js';
export { toolResultText } from './tool-result.js';
export type { McpEnvironmentOptions, McpStdioServer, McpHttpServer, McpToolResult, McpToolCaller } from './types.js';
