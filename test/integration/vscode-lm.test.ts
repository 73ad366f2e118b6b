import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

describe('spike vscode.lm', () => {
  it('registers a provider', async () => {
    const lm = vscode.lm as any;
    assert.equal(typeof lm.registerLanguageModelChatProvider, 'function');
    const d = lm.registerLanguageModelChatProvider('ideal-state-test', {
      provideLanguageModelChatInformation: () => [{ id: 'scripted-1', name: 'Scripted test model', family: 'scripted', version: '1', maxInputTokens: 1000, maxOutputTokens: 100, capabilities: { toolCalling: true } }],
      provideLanguageModelChatResponse: async (_m: any, _msgs: any, _o: any, progress: any) => { progress.report(new vscode.LanguageModelTextPart('hello ')); progress.report(new vscode.LanguageModelTextPart('world')); },
      provideTokenCount: async (_m: any, text: any) => (typeof text === 'string' ? text.length : 7),
    });
    try {
      const models = await vscode.lm.selectChatModels({ vendor: 'ideal-state-test' });
      assert.equal(models.length, 1, JSON.stringify(models));
      const r = await models[0]!.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {});
      let t = '';
      for await (const p of r.text) t += p;
      assert.equal(t, 'hello world');
    } finally {
      d.dispose();
    }
  });
});
