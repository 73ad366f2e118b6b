import type { ContentBlock, ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';

/**
 * The replies with tool calls this model gave, kept as the API sent them so the next request
 * can carry them back unchanged. With thinking on (always, on Claude Opus 5.5 and Fable 5.1),
 * "every `thinking` and `redacted_thinking` block from the assistant turn must be passed back
 * exactly as received" in a tool-use loop, or the request is refused
 * (https://platform.claude.com/docs/en/api/errors#thinking-blocks-cannot-be-modified).
 * Our `ChatMessage` has no place for those blocks, so the provider keeps them, found again by
 * the reply's tool-call ids. Only replies that had thinking blocks are kept, and only the most
 * recent ones: a tool loop sends back its latest turn, and older turns may lose theirs.
 */
export class ThinkingMemory {
  private readonly byCallId = new Map<string, ContentBlockParam[]>();

  constructor(private readonly capacity = 256) {}

  /** Keeps a reply's content when it has tool calls and thinking blocks. */
  remember(content: readonly ContentBlock[] | readonly ContentBlockParam[]): void {
    const ids = content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    if (ids.length === 0 || !content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) return;
    const blocks = content.flatMap(asParam);
    for (const id of ids) {
      this.byCallId.delete(id);
      this.byCallId.set(id, blocks);
    }
    while (this.byCallId.size > this.capacity) this.byCallId.delete(this.byCallId.keys().next().value!);
  }

  /** The reply that made exactly these tool calls, when it is still kept. */
  replyFor(callIds: readonly string[]): ContentBlockParam[] | undefined {
    const blocks = this.byCallId.get(callIds[0]!);
    if (!blocks) return undefined;
    const ids = blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    const same = ids.length === callIds.length && ids.every((id, i) => id === callIds[i]);
    return same ? blocks.map((b) => ({ ...b })) : undefined;
  }
}

/** A response block as a request block: thinking blocks verbatim, the rest without response-only fields. */
function asParam(block: ContentBlock | ContentBlockParam): ContentBlockParam[] {
  switch (block.type) {
    case 'thinking':
      return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: block.data }];
    case 'text':
      return block.text ? [{ type: 'text', text: block.text }] : [];
    case 'tool_use':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} }];
    default:
      return [];
  }
}
