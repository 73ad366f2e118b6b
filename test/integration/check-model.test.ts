import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CheckReport } from '../../src/llm/check-model';
import { contentQueue } from '../unit/fixtures/llm/contract-content';
import { OpenAiContractServer } from '../unit/fixtures/llm/contract-openai';
import { activateIdealState, extensionEngine, waitForLogLine } from './ideal-state';
import { callsTool, ScriptedChatProvider, TEST_MODEL_ID, TEST_MODEL_NAME } from './scripted-chat-provider';

const WORKING = [{ object: { ok: true, says: 'ready' } }, { toolCalls: [{ name: 'echo', arguments: { text: 'ready' } }] }];

function modelsFile(): vscode.Uri {
  return vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.ideal-state/models.yaml');
}

async function writeModelsFile(lines: string[]): Promise<void> {
  await vscode.workspace.fs.writeFile(modelsFile(), new TextEncoder().encode([...lines, ''].join('\n')));
}

function outcomes(report: CheckReport): [string, string, string[]][] {
  return report.roles.map((r) => [r.role, r.model, r.shapes.map((s) => s.outcome)]);
}

// "Ideal State: Check Model" in the real editor: the models resolved as a run resolves them,
// one tiny call of each shape, the report in the log and as the command's result.
describe('Check Model in the editor', () => {
  let provider: ScriptedChatProvider;

  before(async () => {
    await activateIdealState();
    provider = new ScriptedChatProvider();
  });

  after(() => provider.dispose());

  afterEach(function () {
    if (this.currentTest?.state === 'passed') assert.equal(provider.unusedTurns, 0, 'every scripted reply was asked for');
  });

  it('reports ok for both shapes on the model VS Code provides (vscode.lm), picked with Select Model', async () => {
    const models = vscode.workspace.getConfiguration('idealState.models');
    await models.update('default', `vscode-lm:${TEST_MODEL_ID}`, vscode.ConfigurationTarget.Workspace);
    try {
      provider.script(callsTool('check_model', { ok: true, says: 'ready' }), callsTool('echo', { text: 'ready' }));
      const report = await vscode.commands.executeCommand<CheckReport | undefined>('idealState.checkModel');
      assert.ok(report, 'the command resolves to the report');
      assert.equal(report.works, true, JSON.stringify(report));
      const name = `VS Code: ${TEST_MODEL_NAME}`;
      assert.deepEqual(outcomes(report), [
        ['manager', name, ['ok', 'ok']],
        ['specialist', name, ['ok', 'ok']],
        ['verifier', name, ['ok', 'ok']],
      ]);
      assert.deepEqual(report.roles[0]!.catalogue, { status: 'provided-by-editor' });
      assert.equal(provider.seen.length, 2, 'one call of each shape for the three roles');
      const [structured, tool] = provider.seen;
      assert.ok(structured!.tools.includes('check_model'), 'structured output through a forced tool on vscode.lm');
      assert.equal(structured!.toolMode, vscode.LanguageModelChatToolMode.Required);
      assert.deepEqual(tool!.tools, ['echo']);
      assert.notEqual(tool!.toolMode, vscode.LanguageModelChatToolMode.Required, "the tool call is the model's choice, as the specialist's are");
      await waitForLogLine(new RegExp(`\\[check\\] manager, specialist and verifier: ${escape(name)}`));
      assert.equal(extensionEngine().summarizeCheck(report), `Check Model: ${name} works for every role.`);
    } finally {
      await models.update('default', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('reports ok for both shapes with a fake OpenAI server configured in the workspace models file', async () => {
    const current = extensionEngine().DEFAULT_MODELS.openai;
    const server = await new OpenAiContractServer({ content: contentQueue(WORKING) }).start();
    try {
      await writeModelsFile([
        'version: 1',
        `providers: [{ id: fake-openai, kind: openai, baseUrl: "${server.baseURL}", class: frontier }]`,
        `models: [{ id: current, provider: fake-openai, model: ${current} }]`,
        'routing: { default: current }',
      ]);
      const report = await vscode.commands.executeCommand<CheckReport | undefined>('idealState.checkModel', { level: 'FAST' });
      assert.ok(report);
      assert.equal(report.level, 'FAST');
      assert.equal(report.works, true, JSON.stringify(report));
      assert.deepEqual(outcomes(report), [
        ['manager', current, ['ok', 'ok']],
        ['specialist', current, ['ok', 'ok']],
        ['verifier', current, ['ok', 'ok']],
      ]);
      assert.equal(report.roles[0]!.catalogue.status, 'catalogued');
      assert.deepEqual(server.refused, [], 'every request held the contract of the OpenAI API');
      assert.equal(server.received.length, 2);
      await waitForLogLine(new RegExp(`\\[check\\] manager, specialist and verifier: ${escape(current)} \\(provider fake-openai, model id current\\)`));
    } finally {
      await server.stop();
      await vscode.workspace.fs.delete(modelsFile(), { useTrash: false });
    }
  });

  it('reports a model the server does not know as failed, with what to change, in the log', async () => {
    const server = await new OpenAiContractServer({ content: contentQueue([]) }).start();
    try {
      await writeModelsFile([
        'version: 1',
        `providers: [{ id: fake-openai, kind: openai, baseUrl: "${server.baseURL}", class: frontier }]`,
        'models: [{ id: typo, provider: fake-openai, model: gpt-nonexistent }]',
        'routing: { default: typo }',
      ]);
      const report = await vscode.commands.executeCommand<CheckReport | undefined>('idealState.checkModel');
      assert.ok(report);
      assert.equal(report.works, false);
      assert.deepEqual(report.roles[0]!.shapes.map((s) => s.failure?.code), ['not-found', 'not-found']);
      await waitForLogLine(/\[check\]   change: check the model name "gpt-nonexistent": provider "fake-openai" does not serve it/);
    } finally {
      await server.stop();
      await vscode.workspace.fs.delete(modelsFile(), { useTrash: false });
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
