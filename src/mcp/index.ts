// The Model Context Protocol face: `videorag mcp` serves a library's tools to AI assistants over stdio.
export { createMcpServer, serveMcp, type McpServerOptions } from "./mcp-server.js";
