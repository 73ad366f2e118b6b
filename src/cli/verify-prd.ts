// Moved to src/app/verify-prd-file.ts (the MCP server and the gate share it; src/mcp may not import src/cli); this name stays for the commands that import it.
export * from '../app/verify-prd-file';
