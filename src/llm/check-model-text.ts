import type { CatalogueStatus } from './check-model-advice';
import { lessonText } from './check-model-advice';
import type { CheckReport, CheckShape, RoleCheck, ShapeCheck } from './check-model';
import type { ModelRole } from './types';

/**
 * Check Model's report for a person: the full text (the command line prints it, the editor
 * writes it to the log) and the one-line summary the editor's notification shows. Shared,
 * so both front ends say the same thing.
 */

const SHAPE_NAMES: Record<CheckShape, string> = { 'structured-output': 'structured output', 'tool-call': 'tool call' };

/** Roles in report order, grouped by the model that serves them. */
export function byModel(report: CheckReport): { roles: ModelRole[]; check: RoleCheck }[] {
  const groups: { roles: ModelRole[]; check: RoleCheck }[] = [];
  for (const check of report.roles) {
    const same = groups.find((g) => g.check.modelId === check.modelId && g.check.provider === check.provider);
    if (same) same.roles.push(check.role);
    else groups.push({ roles: [check.role], check });
  }
  return groups;
}

export function catalogueText(status: CatalogueStatus): string {
  switch (status.status) {
    case 'catalogued':
      return `in the model catalogue (${status.family} family)`;
    case 'shutdown-ahead':
      return `in the model catalogue; its provider shuts it down on ${status.shutdown}${status.replacement ? ` (replacement: ${status.replacement})` : ''}`;
    case 'retired':
      return `shut down by its provider on ${status.shutdown}${status.replacement ? ` (replacement: ${status.replacement})` : ''}`;
    case 'unknown':
      return "not in the model catalogue: its capabilities are guessed and corrected from its server's refusals";
    case 'provided-by-editor':
      return 'provided by VS Code';
    case 'scripted':
      return 'a scripted model (replays a script; not a language model)';
  }
}

function shapeLine(s: ShapeCheck): string {
  const took = ` (${(s.durationMs / 1000).toFixed(1)} s)`;
  const lessons = s.learned.map((l) => lessonText(l.param));
  if (s.outcome === 'failed') {
    const before = lessons.length > 0 ? `; before that, ${lessons.join('; ')}` : '';
    return `${SHAPE_NAMES[s.shape]}: failed [${s.failure?.code ?? 'error'}] ${s.failure?.message ?? ''}${before}${took}`;
  }
  return `${SHAPE_NAMES[s.shape]}: ${s.outcome}${lessons.length > 0 ? ` (${lessons.join('; ')})` : ''}${took}`;
}

/** The whole report, one line each, indented under the model that serves the roles. */
export function formatCheckReport(report: CheckReport): string[] {
  const failing = report.roles.filter((r) => !r.works).map((r) => r.role);
  const demos = report.roles.filter((r) => r.demo !== undefined).map((r) => r.role);
  const verdict =
    failing.length > 0
      ? `${listRoles(failing)} ${failing.length === 1 ? 'does' : 'do'} not work`
      : demos.length === report.roles.length
        ? 'every role is served by a scripted demo, which was not called'
        : demos.length > 0
          ? `every role works (the ${listRoles(demos)} on a scripted demo, not called)`
          : 'every role works';
  const lines = [`Check Model at ${report.level}: ${verdict}`];
  for (const soon of report.shuttingDown ?? []) {
    lines.push(`shutting down: ${soon.name} (${listRoles(soon.roles)}) shuts down on ${soon.shutdown}, in ${soon.inDays} day${soon.inDays === 1 ? '' : 's'}; its replacement is ${soon.replacement ?? 'not named'}`);
  }
  for (const { roles, check } of byModel(report)) {
    lines.push(`${listRoles(roles)}: ${check.model}${check.provider ? ` (provider ${check.provider}, model id ${check.modelId})` : ''}`);
    lines.push(`  catalogue: ${catalogueText(check.catalogue)}`);
    if (check.demo !== undefined) lines.push(`  ${demoText(check.demo)}: not called, since a check call would only read the wrong step of its script; to check a real model, see "Models and keys" in the README`);
    if (check.unavailable) lines.push(`  not usable [${check.unavailable.code}]: ${check.unavailable.message}`);
    for (const shape of check.shapes) {
      lines.push(`  ${shapeLine(shape)}`);
      for (const note of shape.notes) lines.push(`    note: ${note}`);
    }
    if (check.knownBefore.length > 0) lines.push(`  known from earlier calls: ${check.knownBefore.map((l) => lessonText(l.param)).join('; ')}`);
    for (const change of check.changes) lines.push(`  change: ${change}`);
  }
  const s = report.spent;
  lines.push(`spent: ${s.inputTokens} input and ${s.outputTokens} output tokens, $${s.costUsd.toFixed(4)}${s.priced ? '' : ' (some calls have no known price)'}`);
  if (report.catalogue) {
    const { readOn, ageDays } = report.catalogue;
    const age = ageDays <= 0 ? 'today' : `${ageDays} day${ageDays === 1 ? '' : 's'} ago`;
    lines.push(`model catalogue: read on ${readOn} (${age})${ageDays > 31 ? '; older than a month, so shutdowns and prices may have moved: update Ideal State, or correct entries under catalogue: in the models file' : ''}`);
  }
  return lines;
}

/** What a scripted demo is, in the words Check Model uses for it. */
export function demoText(scope: string): string {
  return `scripted demo: answers ${scope} only`;
}

/** One sentence for a notification: which model works for which roles, or the first thing to change. */
export function summarizeCheck(report: CheckReport): string {
  const groups = byModel(report);
  const demos = groups.filter((g) => g.check.demo !== undefined);
  if (demos.length > 0 && demos.length === groups.length) {
    const names = [...new Set(demos.map((g) => `${g.check.model} is a ${demoText(g.check.demo!)}`))];
    return `Check Model: ${names.join('; ')}. It was not called (a check would only read the wrong step of its script); to use and check a real model, see "Models and keys" in the README.`;
  }
  const broken = groups.find((g) => !g.check.works);
  if (broken) {
    const { roles, check } = broken;
    const failed = check.unavailable ? `it cannot be used [${check.unavailable.code}]` : check.shapes.filter((s) => s.outcome === 'failed').map((s) => `${SHAPE_NAMES[s.shape]} failed [${s.failure?.code ?? 'error'}]`).join(', ');
    const more = groups.filter((g) => !g.check.works).length - 1;
    return `Check Model: the ${listRoles(roles)} ${roles.length === 1 ? 'does' : 'do'} not work on ${check.model}: ${failed}. To fix: ${check.changes[0] ?? 'see the log'}.${more > 0 ? ` ${more} more model${more === 1 ? '' : 's'} failed; see the log.` : ''}`;
  }
  const lessons = [...new Set(groups.flatMap((g) => g.check.shapes.flatMap((s) => s.learned.map((l) => lessonText(l.param)))))];
  const adapted = lessons.length > 0 ? ` (${lessons.join('; ')})` : '';
  const changes = [...new Set(groups.flatMap((g) => g.check.changes))];
  const note = changes.length > 0 ? ` Note: ${changes[0]}.` : '';
  if (groups.length === 1) return `Check Model: ${groups[0]!.check.model} works for every role${adapted}.${note}`;
  return `Check Model: every role works (${groups.map((g) => `${listRoles(g.roles)}: ${g.check.model}${g.check.demo !== undefined ? ` (${demoText(g.check.demo)}, not called)` : ''}`).join('; ')})${adapted}.${note}`;
}

function listRoles(roles: readonly ModelRole[]): string {
  if (roles.length <= 1) return roles.join('');
  return `${roles.slice(0, -1).join(', ')} and ${roles[roles.length - 1]}`;
}
