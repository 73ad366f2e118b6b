import { applyEdits, type PrdEdit } from '../../prd/edit';
import { newPrdText } from '../../prd/new-prd';
import { parsePrd } from '../../prd/parse';
import type { AnyCriterion, EffortTable } from '../model';
import type { AlgorithmState } from './state';

/**
 * Brings the run's PRD in line with the run (DESIGN §7): criteria (added, reworded,
 * re-verified, checked when they PASS), decisions, one LOG entry per finished iteration
 * and the status. It reconciles rather than replays, so running it again after a crash or
 * a resume changes nothing that is already there; lines it has no business with keep their bytes.
 */
export function syncPrdText(current: string | undefined, state: AlgorithmState, table: EffortTable, now: Date): string {
  const { run } = state;
  let text = current ?? newPrdText({ title: titleOf(run.request), effort: run.effort, maxIterations: table.levels[run.effort].maxIterations, now });
  let doc = parsePrd(text);
  const edits: PrdEdit[] = [];
  const inFile = new Map(doc.criteria.map((c) => [c.id, c]));
  for (const c of state.criteria) {
    const f = inFile.get(c.id);
    const checked = c.outcome === 'PASS';
    if (!f) {
      edits.push({ kind: 'addCriterion', criterion: { id: c.id, text: c.text, checked, source: c.source, priority: c.priority, ...(c.verify ? { verify: c.verify } : {}) }, anti: c.kind === 'anti-criterion', ...(c.domain ? { domain: c.domain } : {}) });
      continue;
    }
    if (f.text !== c.text) edits.push({ kind: 'setText', id: c.id, text: c.text });
    if (c.verify && JSON.stringify(f.verify) !== JSON.stringify(c.verify)) edits.push({ kind: 'setVerify', id: c.id, verify: c.verify });
    if (f.checked !== checked) edits.push({ kind: 'setChecked', id: c.id, checked });
  }
  const status = run.state === 'RUNNING' || run.state === 'PENDING' || run.state === 'NEEDS_APPROVAL' ? 'IN_PROGRESS' : run.state;
  const day = now.toISOString().slice(0, 10);
  const meta: [string, unknown][] = [
    ['status', status],
    ['updated', day],
    ['iteration', run.iteration],
    ['run_id', run.id],
    ['criteria_version', run.criteriaVersion],
  ];
  const current_ = doc.meta as Record<string, unknown>;
  const known: Record<string, unknown> = { status: current_.status, updated: current_.updated, iteration: current_.iteration, run_id: current_.runId, criteria_version: current_.criteriaVersion };
  // Each edit re-parses the file: skip the ones that would write what is already there.
  for (const [key, value] of meta) if (known[key] !== value) edits.push({ kind: 'setFrontmatter', key, value });
  const logged = new Set(doc.log.map((e) => /Iteration (\d+)/.exec(e.title)?.[1]).filter(Boolean));
  const report = state.report;
  if (report && !logged.has(String(report.iteration))) {
    const failing = report.results.filter((r) => r.outcome !== 'PASS').map((r) => `${r.criterionId} (${r.outcome}${r.failureLabel ? ` ${r.failureLabel}` : ''})`);
    edits.push({
      kind: 'appendLog',
      entry: {
        iteration: report.iteration,
        date: day,
        phase: `VERIFY → ${report.passed ? 'COMPLETE' : run.state === 'RUNNING' ? 'iterate' : run.state}`,
        criteria: `${report.results.length - failing.length}/${report.results.length} passing`,
        work: state.candidates.map((c) => c.summary).join('; ') || 'no candidate',
        failing,
        context: `criteria version ${report.criteriaVersion}, effort ${run.effort}`,
      },
    });
  }
  text = applyEdits(doc, edits);
  doc = parsePrd(text);
  return addDecisions(text, doc, state);
}

function titleOf(request: string): string {
  const first = request.split(/\r?\n/)[0]!.trim();
  return first.length > 80 ? `${first.slice(0, 79)}…` : first || 'Run';
}

/** Appends decisions the file does not show yet, in the seed's `### date: title` form. */
function addDecisions(text: string, doc: ReturnType<typeof parsePrd>, state: AlgorithmState): string {
  const known = new Set(doc.decisions.map((d) => d.title.trim()));
  const missing = state.decisions.filter((d) => !known.has(oneLine(d.decision)));
  const section = doc.sections.find((s) => s.kind === 'decisions');
  if (missing.length === 0 || !section) return text;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  let at = section.end;
  while (at > section.line + 1 && lines[at - 1]!.trim() === '') at--;
  const block = missing.flatMap((d) => ['', `### ${d.at.slice(0, 10)}: ${oneLine(d.decision)}`, `- **Decision:** ${oneLine(d.decision)}`, `- **Rationale:** ${oneLine(d.rationale)}`]);
  if (at === section.line + 1) block.shift();
  lines.splice(at, 0, ...block);
  return lines.join(eol);
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** The user's criteria in a PRD, as the run's pinned starting criteria. */
export function criteriaFromPrd(text: string, at: string, toCore: (c: ReturnType<typeof parsePrd>['criteria'][number], at: string) => { ok: true; criterion: AnyCriterion } | { ok: false; message: string }): { criteria: AnyCriterion[]; problems: string[]; title?: string } {
  const doc = parsePrd(text);
  const criteria: AnyCriterion[] = [];
  const problems = doc.diagnostics.filter((d) => d.severity === 'error').map((d) => `line ${d.line}: ${d.message}`);
  for (const c of doc.criteria) {
    const r = toCore(c, at);
    if (r.ok) criteria.push({ ...r.criterion, status: 'PENDING' } as AnyCriterion);
    else problems.push(r.message);
  }
  return { criteria, problems, ...(doc.title ? { title: doc.title.text } : {}) };
}
