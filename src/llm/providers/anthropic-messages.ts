import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatMessage } from '../types';
import type { ThinkingMemory } from './anthropic-thinking';

/**
 * Our conversation as Anthropic `messages`. System messages go to `system` (the caller joins
 * them); tool results become user turns of `tool_result` blocks. The API's own rules shape it:
 * - it starts with a user turn ("messages: first message must use the \"user\" role");
 * - in a user turn answering tool calls the `tool_result` blocks come first
 *   (https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls);
 * - text blocks are never empty;
 * - without prefill (Claude 4.6 and later) it ends with a user turn: a trailing assistant turn
 *   is answered by a user turn asking to continue, the replacement the migration guide names
 *   (https://platform.claude.com/docs/en/api/errors#prefill-not-supported);
 * - an assistant turn with tool calls is sent as the model wrote it, thinking blocks included,
 *   when `memory` still holds that reply (https://platform.claude.com/docs/en/api/errors
 *   "Thinking blocks cannot be modified").
 */
export function toAnthropicMessages(messages: readonly ChatMessage[], options: { prefill: boolean; memory?: ThinkingMemory }): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        break;
      case 'user':
        push('user', [{ type: 'text', text: m.content || '(empty message)' }]);
        break;
      case 'assistant': {
        const kept = m.toolCalls && m.toolCalls.length > 0 ? options.memory?.replyFor(m.toolCalls.map((c) => c.id)) : undefined;
        if (kept) {
          push('assistant', kept);
          break;
        }
        const blocks: ContentBlockParam[] = m.content ? [{ type: 'text', text: m.content }] : [];
        for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: (c.arguments ?? {}) as Record<string, unknown> });
        push('assistant', blocks.length > 0 ? blocks : [{ type: 'text', text: '(no reply)' }]);
        break;
      }
      case 'tool':
        pushToolResult(out, { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content || '(no output)', ...(m.isError ? { is_error: true } : {}) });
        break;
    }
  }
  if (out.length === 0 || out[0]!.role !== 'user') out.unshift({ role: 'user', content: [{ type: 'text', text: '(the conversation so far)' }] });
  if (!options.prefill && out[out.length - 1]!.role === 'assistant') out.push({ role: 'user', content: [{ type: 'text', text: 'Continue from where your last reply ended.' }] });
  return out;
}

/** A tool result joins the user turn after the tool calls, ahead of any text already in it. */
function pushToolResult(out: MessageParam[], block: ToolResultBlockParam): void {
  const last = out[out.length - 1];
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) {
    out.push({ role: 'user', content: [block] });
    return;
  }
  const firstOther = last.content.findIndex((b) => b.type !== 'tool_result');
  if (firstOther < 0) last.content.push(block);
  else last.content.splice(firstOther, 0, block);
}
