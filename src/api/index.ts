// The JSON shapes shared by the CLI's --json, the HTTP API and the MCP tools.
export * from "./schemas.js";
