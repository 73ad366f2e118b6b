// Stand-ins for OpenAI's Responses API (POST /v1/responses) and Chat Completions API (POST
// /v1/chat/completions), streamed. Each refuses what the real API refuses, by the documented
// rules cited beside each, and streams the scripted model's move in the documented events:
// https://platform.openai.com/docs/api-reference/responses-streaming
// https://platform.openai.com/docs/api-reference/chat-streaming
import { FakeServer } from './http.mjs';

const error = (message, param = null, code = null) => ({ error: { message, type: 'invalid_request_error', param, code } });
// https://platform.openai.com/docs/guides/function-calling ("Defining functions"): a name of
// letters, digits, underscores and dashes, at most 64 characters.
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function commonRule(headers, body) {
  // https://platform.openai.com/docs/api-reference/authentication: Authorization: Bearer KEY.
  if (!/^Bearer \S/.test(headers.authorization ?? '')) return ['auth', 401, error("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")];
  if (typeof body?.model !== 'string' || body.model === '') return ['model', 400, error("Missing required parameter: 'model'.", 'model', 'missing_required_parameter')];
  // temperature: "between 0 and 2" (both references).
  if (body.temperature !== undefined && body.temperature !== null && (body.temperature < 0 || body.temperature > 2)) return ['temperature', 400, error(`Invalid 'temperature': decimal above maximum value.`, 'temperature', 'decimal_above_max_value')];
  return undefined;
}

/** https://platform.openai.com/docs/api-reference/responses/create */
export function responsesRuleBroken(headers, body) {
  const common = commonRule(headers, body);
  if (common) return common;
  if (body.input === undefined && body.previous_response_id === undefined && body.conversation === undefined) return ['input', 400, error("Missing required parameter: 'input'.", 'input', 'missing_required_parameter')];
  for (const [i, tool] of (body.tools ?? []).entries()) {
    if ((tool.type === 'function' || tool.type === 'custom' || tool.type === 'namespace') && !TOOL_NAME.test(tool.name ?? '')) return ['tool-name', 400, error(`Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `tools[${i}].name`, 'invalid_value')];
    // A namespace tool (the API reference's NamespaceTool, as openai-node 7.57 declares it in
    // resources/responses/responses.d.ts): a name, a description, and function or custom tools,
    // each named by the same rule; a call of one names its namespace.
    if (tool.type === 'namespace') {
      if (typeof tool.description !== 'string') return ['namespace-description', 400, error(`Missing required parameter: 'tools[${i}].description'.`, `tools[${i}].description`, 'missing_required_parameter')];
      if (!Array.isArray(tool.tools) || tool.tools.length === 0) return ['namespace-tools', 400, error(`Missing required parameter: 'tools[${i}].tools'.`, `tools[${i}].tools`, 'missing_required_parameter')];
      for (const [j, inner] of tool.tools.entries()) {
        if (inner.type !== 'function' && inner.type !== 'custom') return ['namespace-tool-type', 400, error(`Invalid value: '${inner.type}'. Supported values are: 'function' and 'custom'.`, `tools[${i}].tools[${j}].type`, 'invalid_value')];
        if (!TOOL_NAME.test(inner.name ?? '')) return ['tool-name', 400, error(`Invalid 'tools[${i}].tools[${j}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `tools[${i}].tools[${j}].name`, 'invalid_value')];
      }
    }
  }
  // https://platform.openai.com/docs/guides/function-calling ("Handling function calls"): each
  // function_call_output answers a function call by its call_id; with the whole conversation
  // sent back (no previous_response_id), the call must be in the input, and every call in
  // the input must have its output.
  if (Array.isArray(body.input) && body.previous_response_id === undefined) {
    const calls = new Set();
    const outputs = new Set();
    for (const item of body.input) {
      if (item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'local_shell_call') calls.add(item.call_id);
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output' || item.type === 'local_shell_call_output') {
        if (!calls.has(item.call_id)) return ['output-matches-call', 400, error(`No tool call found for function call output with call_id ${item.call_id}.`, 'input', null)];
        outputs.add(item.call_id);
      }
    }
    for (const id of calls) if (!outputs.has(id)) return ['call-has-output', 400, error(`No tool output found for function call ${id}.`, 'input', null)];
  }
  return undefined;
}

/** https://platform.openai.com/docs/api-reference/chat/create */
export function chatRuleBroken(headers, body) {
  const common = commonRule(headers, body);
  if (common) return common;
  if (!Array.isArray(body.messages) || body.messages.length === 0) return ['messages', 400, error("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter')];
  // Tools are `function` ({ function: { name } }) or `custom` ({ custom: { name, format } }).
  for (const [i, tool] of (body.tools ?? []).entries()) {
    if (tool.type !== 'function' && tool.type !== 'custom') return ['tool-type', 400, error(`Invalid value: '${tool.type}'. Supported values are: 'function' and 'custom'.`, `tools[${i}].type`, 'invalid_value')];
    const name = tool.type === 'function' ? tool.function?.name : tool.custom?.name;
    if (!TOOL_NAME.test(name ?? '')) return ['tool-name', 400, error(`Invalid 'tools[${i}].${tool.type}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `tools[${i}].${tool.type}.name`, 'invalid_value')];
  }
  // https://platform.openai.com/docs/guides/function-calling: a tool message answers a
  // preceding assistant message's tool_calls, and every tool call gets its tool message.
  const messages = body.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j].role === 'tool') j--;
      const ids = (messages[j]?.tool_calls ?? []).map((c) => c.id);
      if (j < 0 || messages[j].role !== 'assistant' || !ids.includes(m.tool_call_id)) return ['tool-follows-call', 400, error(`Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`, `messages.[${i}].role`, null)];
    }
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      const answered = new Set();
      for (let k = i + 1; k < messages.length && messages[k].role === 'tool'; k++) answered.add(messages[k].tool_call_id);
      const missing = m.tool_calls.map((c) => c.id).filter((id) => !answered.has(id));
      if (missing.length > 0) return ['call-has-tool-message', 400, error(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`, 'messages', null)];
    }
  }
  return undefined;
}

/** The namespace of each tool declared inside a namespace tool, by the tool's name. */
function namespaces(body) {
  const of = new Map();
  for (const tool of body.tools ?? []) if (tool.type === 'namespace') for (const inner of tool.tools) of.set(inner.name, tool.name);
  return of;
}

function responsesStream(body, move, n) {
  let seq = 0;
  const ev = (type, rest) => [type, { type, sequence_number: seq++, ...rest }];
  const base = { id: `resp_fake_${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status: 'in_progress', output: [], usage: null };
  const events = [ev('response.created', { response: base }), ev('response.in_progress', { response: base })];
  let item;
  if (move.kind === 'text') {
    const id = `msg_fake_${n}`;
    const part = { type: 'output_text', text: move.text, annotations: [] };
    item = { id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    events.push(
      ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
      ev('response.content_part.added', { item_id: id, output_index: 0, content_index: 0, part: { ...part, text: '' } }),
      ev('response.output_text.delta', { item_id: id, output_index: 0, content_index: 0, delta: move.text, logprobs: [] }),
      ev('response.output_text.done', { item_id: id, output_index: 0, content_index: 0, text: move.text, logprobs: [] }),
      ev('response.content_part.done', { item_id: id, output_index: 0, content_index: 0, part }),
    );
  } else {
    const id = `fc_fake_${n}`;
    const args = JSON.stringify(move.input);
    const namespace = namespaces(body).get(move.name);
    item = { id, type: 'function_call', status: 'completed', call_id: `call_fake_${n}`, name: move.name, ...(namespace ? { namespace } : {}), arguments: args };
    events.push(
      ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } }),
      ev('response.function_call_arguments.delta', { item_id: id, output_index: 0, delta: args }),
      ev('response.function_call_arguments.done', { item_id: id, output_index: 0, arguments: args }),
    );
  }
  events.push(
    ev('response.output_item.done', { output_index: 0, item }),
    ev('response.completed', { response: { ...base, status: 'completed', output: [item], usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 105 } } }),
  );
  return events;
}

function chatStream(body, move, n) {
  const base = { id: `chatcmpl-fake${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model, system_fingerprint: 'fp_fake' };
  const chunk = (delta, finish_reason = null) => [undefined, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }] }];
  const events = [];
  if (move.kind === 'text') {
    events.push(chunk({ role: 'assistant', content: '', refusal: null }), chunk({ content: move.text }), chunk({}, 'stop'));
  } else {
    events.push(
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_fake_${n}`, type: 'function', function: { name: move.name, arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(move.input) } }] }),
      chunk({}, 'tool_calls'),
    );
  }
  // stream_options.include_usage: "an additional chunk ... with an empty choices array".
  if (body.stream_options?.include_usage) events.push([undefined, { ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } }]);
  return events;
}

function chatMessage(body, move, n) {
  const message = move.kind === 'text' ? { role: 'assistant', content: move.text, refusal: null } : { role: 'assistant', content: null, tool_calls: [{ id: `call_fake_${n}`, type: 'function', function: { name: move.name, arguments: JSON.stringify(move.input) } }] };
  return { id: `chatcmpl-fake${n}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model, choices: [{ index: 0, message, logprobs: null, finish_reason: move.kind === 'text' ? 'stop' : 'tool_calls' }], usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } };
}

/** One server for both APIs, at /v1/responses and /v1/chat/completions (with or without the /v1 prefix). */
export function startOpenAi(script) {
  let n = 0;
  const server = new FakeServer('openai', (req, reply) => {
    const route = req.path.replace(/^\/v1(?=\/)/, '');
    if (req.method === 'GET' && route === '/models') return reply.json(200, { object: 'list', data: [{ id: 'gpt-fake', object: 'model', created: 0, owned_by: 'fake' }] });
    if (req.method === 'POST' && route === '/responses') {
      const broken = responsesRuleBroken(req.headers, req.body);
      if (broken) return reply.refuse(broken[0], broken[1], broken[2]);
      const names = (req.body.tools ?? []).flatMap((t) => (t.type === 'namespace' ? t.tools : [t])).filter((t) => t.type === 'function' || t.type === 'custom').map((t) => t.name);
      const move = script.next({ toolNames: names, text: req.raw });
      n++;
      if (req.body.stream !== true) return reply.json(200, responsesStream(req.body, move, n).at(-1)[1].response);
      return reply.sse(responsesStream(req.body, move, n));
    }
    if (req.method === 'POST' && route === '/chat/completions') {
      const broken = chatRuleBroken(req.headers, req.body);
      if (broken) return reply.refuse(broken[0], broken[1], broken[2]);
      const names = (req.body.tools ?? []).filter((t) => t.type === 'function').map((t) => t.function.name);
      const move = script.next({ toolNames: names, text: req.raw });
      n++;
      if (req.body.stream !== true) return reply.json(200, chatMessage(req.body, move, n));
      return reply.sse(chatStream(req.body, move, n), { done: true });
    }
    reply.json(404, error(`Invalid URL (${req.method} ${req.path})`));
  });
  return server.start();
}
