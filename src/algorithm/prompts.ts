import type { ChatMessage } from '../llm/types';
import type { RoleFile } from './roles';
import type { AuditorView, ManagerView, SpecialistView } from './views';

/**
 * Prompts from views. Each function takes exactly one view type, so what a role can be
 * shown is decided by the view builders in views.ts, not by whoever calls these.
 */

const TASK: Record<string, string> = {
  OBSERVE: 'Reverse-engineer the request into criteria and anti-criteria. Keep every criterion the user already wrote; you may add INFERRED and IMPLICIT ones. Criteria in learnedFromPastRuns failed or were missing in similar past runs the user rated low: they are added as INFERRED rows after your answer unless you already cover them.',
  THINK: 'Review the criteria for completeness and testability: split compound ones, make vague ones observable, add missing ones. Return the whole list.',
  PLAN: 'Group the criteria into packets of work ordered by dependency. Every criterion that is not yet passing must be owned by a packet or waived with a rationale.',
  BUILD: 'Give every criterion a concrete verification method: the exact command, pattern, path or task.',
};

export function managerMessages(role: RoleFile, view: ManagerView, schemaName: string, gateProblems: readonly string[] = []): ChatMessage[] {
  const refusal = gateProblems.length > 0 ? `\n\nYour last answer was refused by the ${view.phase} gate:\n${gateProblems.map((p) => `- ${p}`).join('\n')}\nFix every point.` : '';
  return [
    { role: 'system', content: role.system },
    {
      role: 'user',
      content: `${TASK[view.phase] ?? ''}\nAnswer as "${schemaName}".${refusal}\n\nWorking set:\n${JSON.stringify(view)}`,
    },
  ];
}

export function specialistMessages(role: RoleFile, view: SpecialistView): ChatMessage[] {
  return [
    { role: 'system', content: role.system },
    { role: 'user', content: `Work this packet until its criteria hold in the workspace, then answer with your summary.\n\n${JSON.stringify(view)}` },
  ];
}

export function verifierMessages(role: RoleFile, view: AuditorView): ChatMessage[] {
  const criterion = { id: view.criterion.id, kind: view.criterion.kind, text: view.criterion.text, priority: view.criterion.priority, verify: view.criterion.verify };
  const candidate = view.candidate ? { id: view.candidate.id, summary: view.candidate.summary, evidence: view.candidate.evidence } : null;
  const earlier = view.earlierResults.map((r) => ({ outcome: r.outcome, evidence: r.evidence, failureLabel: r.failureLabel }));
  return [
    { role: 'system', content: role.system },
    { role: 'user', content: `Judge this criterion (criteria version ${view.criteriaVersion}).\n\n${JSON.stringify({ criterion, candidate, earlierResults: earlier })}` },
  ];
}
