import * as vscode from 'vscode';
import { registerChatParticipant } from './chat';
import { registerMcpServerProvider } from './mcp-provider';
import { AgentOperations, registerLanguageModelTools, type AgentDeps } from './tools';

/**
 * Ideal State as the done gate for the editor's agents: language-model tools,
 * the @ideal-state chat participant and the bundled MCP server. Registering loads nothing:
 * the engine loads when a tool is first called.
 */
export function registerAgentSupport(context: vscode.ExtensionContext, deps: AgentDeps): vscode.Disposable {
  const ops = new AgentOperations(deps);
  return vscode.Disposable.from(registerLanguageModelTools(ops), registerChatParticipant(context, ops, deps.stores), registerMcpServerProvider(context));
}
