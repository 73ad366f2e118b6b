import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { StructuredOutputError } from '../../../src/llm/errors';
import { chatWithPromptTools, readAction, renderHistory, toolProtocol } from '../../../src/llm/prompt-tools';
import type { ChatMessage, ChatRequest, ChatResponse, LanguageModel, StreamPart, ToolDefinition } from '../../../src/llm/types';

const readFile: ToolDefinition = { name: 'read_file', description: 'Reads a text file of the workspace.', parameters: z.object({ path: z.string().min(1) }).strict() };
const search: ToolDefinition = { name: 'search', description: 'Searches files.', parameters: z.object({ pattern: z.string().min(1), glob: z.string().min(1).optional() }).strict() };
const tools = [readFile, search];

/**
 * A server without tools: it refuses any request that offers them (as Ollama does for a
 * model whose template has none, https://github.com/ollama/ollama/issues/6027) and answers
 * the given texts in turn.
 */
function toolless(replies: string[]): LanguageModel & { readonly requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    id: 'local',
    providerId: 'ollama',
    kind: 'openai',
    model: 'gemma:2b',
    modelClass: 'local',
    displayName: 'gemma:2b',
    requests,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      requests.push(request);
      if (request.tools || request.toolChoice) throw new Error('test server: this model does not support tools');
      const text = replies.shift();
      if (text === undefined) throw new Error('test server: no reply left');
      return { text, toolCalls: [], stopReason: 'end', usage: { inputTokens: 100, outputTokens: 20 }, servedBy: 'gemma:2b' };
    },
  };
}

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are a specialist.' },
  { role: 'user', content: 'Fix the failing test.' },
];

describe('tools through the prompt', () => {
  it('describes the tools in the system prompt and sends no tools', async () => {
    const model = toolless(['{"final":"nothing to do"}']);
    await chatWithPromptTools(model, { messages: conversation, tools, toolChoice: 'auto', maxOutputTokens: 500, temperature: 0.1 });
    const sent = model.requests[0]!;
    assert.equal(sent.tools, undefined);
    assert.equal(sent.toolChoice, undefined);
    assert.equal(sent.responseFormat, undefined);
    assert.equal(sent.maxOutputTokens, 500);
    assert.equal(sent.temperature, 0.1);
    assert.equal(sent.messages.length, 2, 'the protocol joins the one system message');
    const system = sent.messages[0]!;
    assert.equal(system.role, 'system');
    assert.ok(system.content.startsWith('You are a specialist.\n\nYou can use these tools:\n'));
    assert.ok(system.content.includes('- read_file: Reads a text file of the workspace.\n  arguments (JSON schema): {"type":"object","properties":{"path":{"type":"string","minLength":1}}'));
    assert.ok(system.content.includes('{"tool_calls": [{"name": "<tool name>", "arguments": {<arguments matching its schema>}}]}'));
    assert.ok(system.content.includes('{"final": "<your answer>"}'));
  });

  it('turns a JSON action into tool calls checked against their schemas', async () => {
    const model = toolless(['{"tool_calls":[{"name":"search","arguments":{"pattern":"TODO","glob":null}},{"name":"read_file","arguments":"{\\"path\\":\\"a.ts\\"}"}]}']);
    const parts: StreamPart[] = [];
    const response = await chatWithPromptTools(model, { messages: conversation, tools, onPart: (p) => parts.push(p) });
    assert.equal(response.stopReason, 'tool-calls');
    assert.deepEqual(response.toolCalls, [
      { id: 'call_1', name: 'search', arguments: { pattern: 'TODO', glob: null } },
      { id: 'call_2', name: 'read_file', arguments: { path: 'a.ts' } },
    ]);
    assert.deepEqual(response.usage, { inputTokens: 100, outputTokens: 20 });
    assert.equal(response.servedBy, 'gemma:2b');
    assert.deepEqual(parts.map((p) => p.type), ['tool-call', 'tool-call'], 'the raw JSON is never streamed as text');
    assert.equal(model.requests[0]!.onPart, undefined);
  });

  it('returns a final answer as text, and reads JSON inside a fence or prose', async () => {
    const fenced = await chatWithPromptTools(toolless(['```json\n{"final": "All tests pass."}\n```']), { messages: conversation, tools });
    assert.deepEqual([fenced.text, fenced.stopReason, fenced.toolCalls], ['All tests pass.', 'end', []]);
    const chatty = await chatWithPromptTools(toolless(['Sure! {"name": "read_file", "arguments": {"path": "b.ts"}} Let me know.']), { messages: conversation, tools });
    assert.deepEqual(chatty.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'b.ts' } }]);
  });

  it('renders earlier calls and their results as text turns, and numbers new calls after them', async () => {
    const history: ChatMessage[] = [
      ...conversation,
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.ts' } }, { id: 'call_2', name: 'search', arguments: { pattern: 'x' } }] },
      { role: 'tool', toolCallId: 'call_1', name: 'read_file', content: 'export const a = 1;' },
      { role: 'tool', toolCallId: 'call_2', name: 'search', content: 'no match', isError: true },
    ];
    assert.deepEqual(renderHistory(history).slice(2), [
      { role: 'assistant', content: '{"tool_calls":[{"name":"read_file","arguments":{"path":"a.ts"}},{"name":"search","arguments":{"pattern":"x"}}]}' },
      { role: 'user', content: 'Result of tool read_file (call_1):\nexport const a = 1;\n\nError from tool search (call_2):\nno match' },
    ]);
    const model = toolless(['{"tool_calls":[{"name":"read_file","arguments":{"path":"b.ts"}}]}']);
    const response = await chatWithPromptTools(model, { messages: history, tools });
    assert.equal(response.toolCalls[0]!.id, 'call_3');
    assert.ok(model.requests[0]!.messages.every((m) => m.role !== 'tool'));
  });

  it('gives an invalid reply one repair turn that names the problems', async () => {
    const model = toolless(['{"tool_calls":[{"name":"read_file","arguments":{"path":""}}]}', '{"tool_calls":[{"name":"read_file","arguments":{"path":"src/a.ts"}}]}']);
    const response = await chatWithPromptTools(model, { messages: conversation, tools });
    assert.deepEqual(response.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'src/a.ts' } }]);
    assert.deepEqual(response.usage, { inputTokens: 200, outputTokens: 40 }, 'both turns are counted');
    const repair = model.requests[1]!.messages;
    assert.equal(repair.length, 4);
    assert.deepEqual(repair[2], { role: 'assistant', content: '{"tool_calls":[{"name":"read_file","arguments":{"path":""}}]}' });
    assert.match(repair[3]!.content, /^Your reply is not a valid action\. Problems:\n- tool_calls\.0\.arguments\.path: Too small/);
  });

  it('throws a typed error after a second invalid reply', async () => {
    const model = toolless(['I will read the file now.', '{"tool_calls":[{"name":"delete_everything","arguments":{}}]}']);
    await assert.rejects(chatWithPromptTools(model, { messages: conversation, tools }), (e: unknown) => {
      assert.ok(e instanceof StructuredOutputError);
      assert.equal(e.attempts, 2);
      assert.equal(e.model, 'gemma:2b');
      assert.match(e.message, /there is no tool "delete_everything"; the tools are read_file, search/);
      return true;
    });
  });

  it('holds the model to a required or named tool choice', () => {
    assert.deepEqual(readAction('{"final":"done"}', tools, 'required'), { ok: false, issues: [{ path: '', message: 'a tool call is required here, not a final answer' }] });
    const named = readAction('{"tool_calls":[{"name":"search","arguments":{"pattern":"x"}}]}', tools, { name: 'read_file' });
    assert.deepEqual(named, { ok: false, issues: [{ path: 'tool_calls.0.name', message: 'only the tool "read_file" may be called here' }] });
    assert.match(toolProtocol(tools, { name: 'read_file' }), /You must call the tool "read_file" in this reply\./);
    assert.deepEqual(readAction('{"verdict":"PASS"}', tools, 'auto'), { ok: false, issues: [{ path: '', message: 'the reply is neither {"tool_calls": [...]} nor {"final": "..."}' }] });
  });
});
