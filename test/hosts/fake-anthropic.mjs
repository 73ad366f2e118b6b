// A stand-in for the Anthropic Messages API (POST /v1/messages, streamed) for the hosts that
// speak it (Claude Code). It refuses what the real API refuses, by the documented rules cited
// beside each, and streams the scripted model's move in the documented event sequence:
// https://docs.claude.com/en/api/messages-streaming
import { FakeServer } from './http.mjs';

const error = (type, message) => ({ type: 'error', error: { type, message } });
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** @returns the refusal of the first rule the request breaks, or undefined. */
export function anthropicRuleBroken(headers, body) {
  // https://docs.claude.com/en/api/overview#authentication: every request carries x-api-key
  // (or, through a gateway, Authorization: Bearer); without it, 401 authentication_error.
  if (!headers['x-api-key'] && !/^Bearer \S/.test(headers.authorization ?? '')) return ['auth', 401, error('authentication_error', 'x-api-key header is required')];
  // https://docs.claude.com/en/api/versioning: the anthropic-version header is required.
  if (!headers['anthropic-version']) return ['version', 400, error('invalid_request_error', 'anthropic-version: header is required')];
  // https://docs.claude.com/en/api/messages: model, max_tokens and messages are required.
  if (typeof body?.model !== 'string') return ['model', 400, error('invalid_request_error', 'model: Field required')];
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return ['max_tokens', 400, error('invalid_request_error', 'max_tokens: Field required')];
  if (!Array.isArray(body.messages) || body.messages.length === 0) return ['messages', 400, error('invalid_request_error', 'messages: at least one message is required')];
  // https://docs.claude.com/en/api/messages (temperature): ranges from 0.0 to 1.0.
  if (body.temperature !== undefined && (body.temperature < 0 || body.temperature > 1)) return ['temperature', 400, error('invalid_request_error', 'temperature: must be between 0 and 1')];
  // https://docs.claude.com/en/docs/build-with-claude/extended-thinking: budget_tokens must
  // be at least 1024 and (without interleaved thinking) less than max_tokens.
  if (body.thinking?.type === 'enabled') {
    const budget = body.thinking.budget_tokens;
    if (!Number.isInteger(budget) || budget < 1024) return ['thinking-budget', 400, error('invalid_request_error', 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024')];
  }
  // https://docs.claude.com/en/docs/agents-and-tools/tool-use/overview: a client tool's name
  // matches ^[a-zA-Z0-9_-]{1,64}$.
  for (const tool of body.tools ?? []) {
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) return ['tool-name', 400, error('invalid_request_error', `tools: name "${tool.name}" does not match ^[a-zA-Z0-9_-]{1,64}$`)];
  }
  // https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use ("Handling
  // results from client tools"): tool results immediately follow their tool use blocks, and in
  // that user message the tool_result blocks come first.
  const messages = body.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    // The API's own types (@anthropic-ai/sdk 1.12, MessageParam = UserMessageParam |
    // AssistantMessageParam | SystemMessageParam) take a `system` message in `messages` too, its
    // content a string or text blocks; Claude Code 2.1 sends one in its first agent request.
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system') return ['role', 400, error('invalid_request_error', `messages.${i}.role: Input should be 'user', 'assistant' or 'system'`)];
    if (m.role === 'system' && typeof m.content !== 'string' && !(Array.isArray(m.content) && m.content.every((b) => b?.type === 'text'))) return ['system-content', 400, error('invalid_request_error', `messages.${i}.content: a system message holds text only`)];
    const blocks = Array.isArray(m.content) ? m.content : [];
    const uses = m.role === 'assistant' ? blocks.filter((b) => b.type === 'tool_use').map((b) => b.id) : [];
    if (uses.length > 0) {
      const next = messages[i + 1];
      const results = new Set((Array.isArray(next?.content) ? next.content : []).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      const missing = uses.filter((id) => !results.has(id));
      if (next && missing.length > 0) return ['tool-result-follows', 400, error('invalid_request_error', `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`)];
    }
    if (m.role === 'user') {
      const previous = i > 0 && Array.isArray(messages[i - 1].content) ? messages[i - 1].content : [];
      const issued = new Set(previous.filter((b) => b.type === 'tool_use').map((b) => b.id));
      let seenOther = false;
      for (const b of blocks) {
        if (b.type === 'tool_result') {
          if (seenOther) return ['tool-result-first', 400, error('invalid_request_error', `messages.${i}: tool_result blocks must come first in the content array`)];
          if (!issued.has(b.tool_use_id)) return ['tool-result-matches', 400, error('invalid_request_error', `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`)];
        } else seenOther = true;
      }
    }
  }
  return undefined;
}

export function startAnthropic(script) {
  let n = 0;
  const server = new FakeServer('anthropic', (req, reply) => {
    // Claude Code counts tokens before some requests: https://docs.claude.com/en/api/messages-count-tokens
    if (req.method === 'POST' && req.path === '/v1/messages/count_tokens') return reply.json(200, { input_tokens: Math.ceil(req.raw.length / 4) });
    if (req.method !== 'POST' || req.path !== '/v1/messages') return reply.json(404, error('not_found_error', `${req.method} ${req.path}: not found`));
    const broken = anthropicRuleBroken(req.headers, req.body);
    if (broken) return reply.refuse(broken[0], broken[1], broken[2]);
    const body = req.body;
    const move = script.next({ toolNames: (body.tools ?? []).filter((t) => !t.type || t.type === 'custom').map((t) => t.name), text: req.raw });
    const id = `msg_fake_${++n}`;
    const usage = { input_tokens: Math.ceil(req.raw.length / 4), output_tokens: 0 };
    const start = ['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage } }];
    const block =
      move.kind === 'text'
        ? [
            ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
            ['ping', { type: 'ping' }],
            ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: move.text } }],
          ]
        : [
            ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_fake_${n}`, name: move.name, input: {} } }],
            ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(move.input) } }],
          ];
    const stopReason = move.kind === 'text' ? 'end_turn' : 'tool_use';
    const end = [
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } }],
      ['message_stop', { type: 'message_stop' }],
    ];
    if (body.stream !== true) {
      const content = move.kind === 'text' ? [{ type: 'text', text: move.text }] : [{ type: 'tool_use', id: `toolu_fake_${n}`, name: move.name, input: move.input }];
      return reply.json(200, { id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stopReason, stop_sequence: null, usage: { ...usage, output_tokens: 5 } });
    }
    reply.sse([start, ...block, ...end]);
  });
  return server.start();
}
