import * as vscode from 'vscode';
import { mcpLaunches } from './tool-text';

export const MCP_PROVIDER_ID = 'ideal-state.mcp';

// VS Code 1.101 finalized this API; the extension still runs on 1.95 (engines), so it is
// looked up at run time and these are the shapes it is used through.
interface McpStdioServerDefinitionCtor {
  new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string): { cwd?: vscode.Uri };
}
interface McpLm {
  registerMcpServerDefinitionProvider?(id: string, provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[] }): vscode.Disposable;
}

/** Offers `ideal-state mcp` (dist/cli.js in the extension folder) over stdio to VS Code's agents, one server per workspace folder. */
export function registerMcpServerProvider(context: vscode.ExtensionContext): vscode.Disposable {
  const lm = vscode.lm as unknown as McpLm;
  // Not through the bundle's vscode shim (esbuild.mjs), which exports only the names of the 1.95 typings.
  const module = 'vscode';
  const Definition = (require(module) as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
  if (!lm.registerMcpServerDefinitionProvider || !Definition) return new vscode.Disposable(() => undefined);
  const changed = new vscode.EventEmitter<void>();
  const cli = vscode.Uri.joinPath(context.extensionUri, 'dist', 'cli.js').fsPath;
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '');
  const provider = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      // The server runs commands from the PRD only as its allow-list says; in Restricted Mode none is offered.
      if (!vscode.workspace.isTrusted) return [];
      const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
      return mcpLaunches(process.execPath, cli, folders.map((f) => ({ name: f.name, fsPath: f.uri.fsPath }))).map((l, i) => {
        const d = new Definition(l.label, l.command, l.args, l.env, version);
        d.cwd = folders[i]!.uri;
        return d;
      });
    },
  });
  return vscode.Disposable.from(provider, changed, vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()), vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()));
}
