import { z } from 'zod';
import { recordAgentBlocked } from '../app/gate/agent-blocked';
import type { ToolContext } from './tools';

/** The agent's honest exit over MCP: the same record as `ideal-state gate blocked` (src/app/gate/agent-blocked.ts). */
export const BlockedInput = z.object({
  reason: z.string().trim().min(1).max(2000).describe('What is in the way: why the criteria cannot be made to pass without weakening a check'),
  tried: z.string().max(2000).optional().describe('What was tried'),
});

export const BlockedAnswer = z.object({
  recorded: z.boolean(),
  /** What happens next, for the model to act on. */
  note: z.string(),
});
export type BlockedAnswer = z.infer<typeof BlockedAnswer>;

export async function blockedTool(ctx: ToolContext, input: z.infer<typeof BlockedInput>): Promise<BlockedAnswer> {
  await recordAgentBlocked(ctx.workspace, { reason: input.reason, ...(input.tried?.trim() ? { tried: input.tried } : {}), via: 'mcp', now: new Date() });
  return { recorded: true, note: 'Recorded: your next stop is let through as BLOCKED, not done. Stop now, and tell the user what is in the way. Never say the task is done.' };
}
