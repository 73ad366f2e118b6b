import type { AgentToolName } from '../algorithm/capabilities';
import { CandidateReport } from '../algorithm/outputs';
import type { PacketAssignment, PacketWork, PacketWorker } from '../algorithm/ports';
import { specialistMessages } from '../algorithm/prompts';
import type { RoleFile } from '../algorithm/roles';
import type { ModelRouter } from '../llm/router';
import type { ChatMessage } from '../llm/types';
import { cacheFieldsOf, usageToRunEvent } from '../llm/usage';
import { AgentToolbox } from './tools';
import type { ApprovalPolicy } from './approvals';
import type { Checkpointer } from './checkpoint';
import type { WorkspaceTools } from './workspace';

export interface SpecialistAgentDeps {
  readonly models: Pick<ModelRouter, 'chat'>;
  readonly role: RoleFile;
  readonly files: WorkspaceTools;
  readonly approvals: ApprovalPolicy;
  /** Per run: where the checkpoint of a file goes before its first change. */
  readonly checkpointFor: (runId: string) => Checkpointer;
  readonly tools: (level: PacketAssignment['level']) => readonly AgentToolName[];
}

/**
 * The agent loop of a specialist: the model works the packet with tools for
 * at most `maxSteps` turns; cancellation reaches every model call and command. Its closing
 * answer becomes the candidate — a claim, which only the verifier can turn into a PASS.
 */
export class SpecialistAgent implements PacketWorker {
  constructor(private readonly deps: SpecialistAgentDeps) {}

  async work(a: PacketAssignment, signal: AbortSignal): Promise<PacketWork> {
    const toolbox = new AgentToolbox(this.deps.files, this.deps.approvals.forRun(a.runId), this.deps.checkpointFor(a.runId), this.deps.tools(a.level));
    const messages: ChatMessage[] = specialistMessages(this.deps.role, a.view);
    let closing = '';
    let steps = 0;
    let outOfTime = false;
    for (; steps < a.maxSteps; steps++) {
      // EXECUTE's share of the budget is spent: stop before the next step, keep what was done.
      if (steps > 0 && a.timeUp?.()) {
        outOfTime = true;
        break;
      }
      const { response, usage } = await this.deps.models.chat('specialist', a.level, {
        messages,
        tools: toolbox.definitions(),
        toolChoice: 'auto',
        phase: 'EXECUTE',
        signal,
        maxOutputTokens: this.deps.role.policy.maxOutputTokens,
      });
      const e = usageToRunEvent(usage, { runId: a.runId, seq: 0, at: '', phase: 'EXECUTE', role: 'specialist', purpose: `${a.packet.id} step ${steps + 1}` });
      a.onEvent({ kind: 'model', message: e.message, role: 'specialist', model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, ...cacheFieldsOf(e), costUsd: e.costUsd, durationMs: e.durationMs });
      messages.push({ role: 'assistant', content: response.text, ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}) });
      if (response.toolCalls.length === 0) {
        closing = response.text;
        break;
      }
      for (const call of response.toolCalls) {
        const outcome = await toolbox.call(call, signal);
        a.onEvent({ kind: 'tool', message: `${a.packet.id}: ${call.name}${outcome.isError ? ` refused or failed: ${firstLine(outcome.content)}` : ''}`, role: 'specialist' });
        messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: outcome.content, ...(outcome.isError ? { isError: true } : {}) });
      }
    }
    const report = readClosing(closing);
    const denied = toolbox.denials.length > 0 && toolbox.edits.length === 0;
    return {
      summary: report.summary || (outOfTime ? `stopped after ${steps} steps: EXECUTE's share of the budget was spent` : steps >= a.maxSteps ? `stopped after ${a.maxSteps} steps without a closing answer` : 'no summary'),
      edits: toolbox.edits,
      ...(toolbox.commandOutputs.length > 0 ? { commandOutput: toolbox.commandOutputs.join('\n\n').slice(0, 20_000) } : {}),
      assumptions: report.assumptions,
      evidence: report.evidence,
      ...(report.blocked ? { blocked: report.blocked } : denied ? { blocked: `not approved: ${toolbox.denials.join(', ')}` } : {}),
    };
  }
}

/** The closing answer as JSON when the model gave it so, else its text as the summary. */
function readClosing(text: string): { summary: string; assumptions: string[]; evidence: string[]; blocked?: string } {
  const m = /\{[\s\S]*\}/.exec(text);
  if (m) {
    try {
      const parsed = CandidateReport.safeParse(JSON.parse(m[0]));
      if (parsed.success) return { ...parsed.data, ...(parsed.data.blocked ? { blocked: parsed.data.blocked } : {}) };
    } catch {
      // Plain text it is.
    }
  }
  return { summary: text.trim(), assumptions: [], evidence: [] };
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 200);
}
