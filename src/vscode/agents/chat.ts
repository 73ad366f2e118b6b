import * as vscode from 'vscode';
import type { StoreHost } from '../store-host';
import { runOfPrd } from './editor-criteria';
import type { AgentOperations } from './tools';
import { chatPrompt, criteriaMarkdown, verifyMarkdown } from './tool-text';

export const PARTICIPANT_ID = 'ideal-state.chat';

/** `@ideal-state /verify` and `/criteria`: the tools' answers as a table in the chat view, with the ISC table one click away. */
export function registerChatParticipant(context: vscode.ExtensionContext, ops: AgentOperations, stores: StoreHost): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, _chat, stream, token) => {
    const input = chatPrompt(request.prompt);
    try {
      if (request.command === 'verify') {
        stream.progress('Verifying criteria…');
        // Typing /verify is the user's request to verify; commands outside the allow-list still ask for approval.
        const answer = await ops.verify(input, token);
        stream.markdown(verifyMarkdown(answer));
        await openTableButton(stream, stores, answer.prd);
        return { metadata: { command: 'verify', allCriticalPass: answer.allCriticalPass } };
      }
      const listed = await ops.criteria(input);
      if (request.command !== 'criteria') stream.markdown('Use `/verify` to verify the criteria now, or `/criteria` to list them. The criteria:\n\n');
      stream.markdown(criteriaMarkdown(listed.prd, listed.criteria));
      await openTableButton(stream, stores, listed.prd);
      return { metadata: { command: 'criteria' } };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      stream.markdown(`Ideal State could not answer: ${message}`);
      return { errorDetails: { message } };
    }
  });
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
  return participant;
}

async function openTableButton(stream: vscode.ChatResponseStream, stores: StoreHost, prd: string): Promise<void> {
  const runId = await runOfPrd(stores, prd).catch(() => undefined);
  if (runId) stream.button({ command: 'idealState.openIscTable', arguments: [runId], title: 'Open ISC Table' });
}
