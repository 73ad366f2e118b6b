import { isScalar, stringify } from 'yaml';
import { renderSegments, renderVerify } from '../prd/criterion-line';
import { formatVerifySpec } from '../prd/verify-spec';
import { applyEdits, type PrdEdit } from '../prd/edit';
import { findPair, keyRange } from '../prd/frontmatter';
import { joinLines, type SourceLine } from '../prd/lines';
import type { PrdDocument } from '../prd/model';
import { newPrdText } from '../prd/new-prd';
import { parsePrd } from '../prd/parse';
import { notesOf, setNote } from '../prd/notes';
import { PROBE_WORDS } from './probe';
import { commandDigest } from '../verify/command-digest';
import { methodCommand, type AnyCriterion, type Decision, type EffortTable, type VerificationMethod } from '../model';
import type { AlgorithmState } from '../model/algorithm-state';
import { iterationLimitLabel, runStateLabel, verdictLabel } from '../model/labels';
import { runStateIs } from '../model/run-states';

/**
 * Brings the run's PRD in line with the run: criteria (added, reworded,
 * re-verified, checked when they PASS), decisions, one LOG entry per finished iteration
 * and the status. It reconciles rather than replays, so running it again after a crash or
 * a resume changes nothing that is already there; lines it has no business with keep their bytes.
 */
export function syncPrdText(current: string | undefined, state: AlgorithmState, table: EffortTable, now: Date): string {
  const { run } = state;
  let text = current ?? newPrdText({ title: titleOf(run.request), request: run.request, effort: run.effort, maxIterations: table.levels[run.effort].maxIterations, now });
  let doc = parsePrd(text);
  const edits: PrdEdit[] = [];
  const inFile = new Map(doc.criteria.map((c) => [c.id, c]));
  const pinned = new Set(state.memo.pinned);
  for (const c of shownCriteria(state)) {
    const f = inFile.get(c.id);
    const checked = c.outcome === 'PASS';
    // A denied command stays as the criterion's method; its "Not approved" note is what stops it running.
    const verify = c.verify && shownMethod(c.verify, [...state.memo.approvedCommands, ...state.memo.deniedCommands]);
    if (!f) {
      edits.push({ kind: 'addCriterion', criterion: { id: c.id, text: c.text, checked, source: c.source, priority: c.priority, ...(verify ? { verify } : {}) }, anti: c.kind === 'anti-criterion', ...(c.domain ? { domain: c.domain } : {}) });
      continue;
    }
    if (f.text !== c.text) edits.push({ kind: 'setText', id: c.id, text: c.text });
    // The file already showing the run's method is the user's own, or one approved earlier: left as it is.
    if (c.verify && !sameMethod(f.verify, c.verify, c.text)) {
      if (verify && !sameMethod(f.verify, verify, c.text)) edits.push({ kind: 'setVerify', id: c.id, verify });
      // The run's method changed to a command nobody approved: the PRD stops naming the old one, unless the line is the user's.
      else if (!verify && f.verify && !pinned.has(c.id)) edits.push({ kind: 'setVerify', id: c.id, verify: undefined });
    }
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
    const label = (r: (typeof report.results)[number]) => `${r.criterionId} (${verdictLabel(r.outcome, r.failureLabel)})`;
    // An UNKNOWN did not fail: it goes under its own line, never under Failing.
    const failing = report.results.filter((r) => r.outcome === 'FAIL' || r.outcome === 'PARTIAL').map(label);
    const unknown = report.results.filter((r) => r.outcome === 'UNKNOWN').map(label);
    const passing = report.results.filter((r) => r.outcome === 'PASS').length;
    edits.push({
      kind: 'appendLog',
      entry: {
        iteration: report.iteration,
        date: day,
        phase: `VERIFY → ${afterVerifyWords(state, report, table)}`,
        criteria: `${passing}/${report.results.length} passing`,
        work: workOf(state, report.iteration),
        failing,
        unknown,
        context: `criteria version ${report.criteriaVersion}, effort ${run.effort}`,
      },
    });
  }
  // Decisions are only ever appended, after the other edits; which are missing, the first parse tells.
  const missing = missingDecisions(doc, state);
  const inPlace = rewriteInPlace(doc, edits);
  if (inPlace.rest.length > 0) text = applyEdits(inPlace.changed ? inPlace.text : doc, inPlace.rest);
  else if (inPlace.changed) text = inPlace.text;
  // In-place edits move no line, so the first parse still places the sections; other edits may.
  if (missing.length > 0) text = addDecisions(text, inPlace.rest.length > 0 ? parsePrd(text) : doc, missing);
  return probeNotes(notApprovedNotes(text, state, day), state, day);
}

/**
 * A criterion the run's probe flagged (memo.probed, src/algorithm/probe.ts) gets a "Probe" note:
 * its check passed before any work. Only added: a note a person's lock probe wrote or removed
 * since is theirs (src/app/probe.ts re-probes on each lock).
 */
function probeNotes(text: string, state: AlgorithmState, day: string): string {
  const probed = state.memo.probed ?? [];
  if (probed.length === 0) return text;
  let doc: PrdDocument | undefined;
  for (const id of probed) {
    doc ??= parsePrd(text);
    if (!doc.criteria.some((c) => c.id === id) || notesOf(doc, id).some((n) => n.kind === 'probe')) continue;
    text = setNote(text, id, 'probe', { text: `${PROBE_WORDS} (${day})` });
    doc = undefined;
  }
  return text;
}

/**
 * A criterion whose command was not approved gets a "Not approved" note naming that command by
 * digest (src/prd/notes.ts): `ideal-state verify` refuses a command its note names, `--yes` or
 * not, so keeping the method in the PRD never makes a denied command run. Approved since: the
 * note goes.
 */
function notApprovedNotes(text: string, state: AlgorithmState, day: string): string {
  const denied = new Set(state.memo.deniedCommands);
  const approved = new Set(state.memo.approvedCommands);
  let doc: PrdDocument | undefined;
  for (const c of shownCriteria(state)) {
    const command = c.verify && methodCommand(c.verify);
    if (command === undefined) continue;
    doc ??= parsePrd(text);
    const note = notesOf(doc, c.id).find((n) => n.kind === 'not-approved');
    const digest = commandDigest(command);
    if (denied.has(command) && note?.digest !== digest) {
      text = setNote(text, c.id, 'not-approved', { digest, text: `this command was not approved on ${day}; the criterion is UNKNOWN until a person approves it` });
      doc = undefined;
    } else if (!denied.has(command) && approved.has(command) && note) {
      text = setNote(text, c.id, 'not-approved', undefined);
      doc = undefined;
    }
  }
  return text;
}

/**
 * The run's criteria the PRD may show: the user's own (the PRD's, pinned), and the
 * run's once the review gate (`testable`) passed on them; a draft the gates refused, e.g. a
 * garbage model's, never reaches the user's file.
 */
export function shownCriteria(state: AlgorithmState): AnyCriterion[] {
  const { pinned, reviewed } = state.memo;
  if (reviewed === undefined) return state.criteria;
  return state.criteria.filter((c) => pinned.includes(c.id) || reviewed.includes(c.id));
}

/**
 * A method as the PRD may show it: a command reaches the file only once that exact
 * command was approved in this run, because the file outlives the run and `ideal-state verify`
 * runs what it names. Otherwise a CLI, Test or Task method is left out (the criterion keeps its
 * text, and verifies UNKNOWN: it names no method), and a Static check keeps its check without
 * the command.
 */
export function shownMethod(method: VerificationMethod, approved: readonly string[]): VerificationMethod | undefined {
  const command = methodCommand(method);
  if (command === undefined || approved.includes(command)) return method;
  if (method.type === 'STATIC') return { type: 'STATIC', check: method.check };
  return undefined;
}

/** Whether two methods read the same in a PRD line (their written form; key order and defaults do not count). */
function sameMethod(a: VerificationMethod | undefined, b: VerificationMethod | undefined, text: string): boolean {
  return (a === undefined || b === undefined) ? a === b : formatVerifySpec(a, text) === formatVerifySpec(b, text);
}

/**
 * Makes the edits that rewrite a single line where it stands (a criterion's box, text or
 * verify part; a frontmatter value on one line) all at once on the parsed lines. `applyEdits`
 * parses the whole file again after every edit, which made a sync cost a parse per changed
 * criterion; these edits move no line, so the parse they start from stays true for all of them.
 * Whatever else (new criteria, LOG entries, a key the frontmatter lacks) is left for `applyEdits`.
 */
function rewriteInPlace(doc: PrdDocument, edits: readonly PrdEdit[]): { text: string; changed: boolean; rest: PrdEdit[] } {
  const lines = doc.source.lines.map((l) => ({ ...l }));
  const rest: PrdEdit[] = [];
  const touched = new Set<number>();
  const patches = new Map<string, { check?: string; text?: string; verify?: VerificationMethod | null }>();
  for (const edit of edits) {
    if (edit.kind === 'setChecked' || edit.kind === 'setText' || edit.kind === 'setVerify') {
      const patch = patches.get(edit.id) ?? {};
      if (edit.kind === 'setChecked') patch.check = edit.checked ? 'x' : ' ';
      else if (edit.kind === 'setText') patch.text = oneLine(edit.text);
      else patch.verify = edit.verify ?? null;
      patches.set(edit.id, patch);
      continue;
    }
    if (edit.kind === 'setFrontmatter') {
      const line = setScalarInPlace(doc, lines, edit.key, edit.value, touched);
      if (line !== undefined) {
        touched.add(line);
        continue;
      }
    }
    rest.push(edit);
  }
  for (const [id, patch] of patches) {
    const c = doc.criteria.find((x) => x.id === id);
    if (!c || touched.has(c.line)) {
      // Not where the parse put it (cannot happen for ids from this parse): the careful way.
      if (patch.text !== undefined) rest.push({ kind: 'setText', id, text: patch.text });
      if (patch.verify !== undefined) rest.push({ kind: 'setVerify', id, verify: patch.verify ?? undefined });
      if (patch.check !== undefined) rest.push({ kind: 'setChecked', id, checked: patch.check === 'x' });
      continue;
    }
    const s = c.segments;
    const text = patch.text ?? s.text;
    const next = {
      ...s,
      ...(patch.text !== undefined ? { text } : {}),
      // As applyEdits does: a bare `Custom` verify part keeps meaning "check this text", so it is rendered against the new text.
      ...(patch.verify !== undefined ? { verify: renderVerify(patch.verify ?? undefined, patch.text !== undefined ? text : c.text) } : {}),
      ...(patch.check !== undefined && (s.check !== ' ') !== (patch.check === 'x') ? { check: patch.check } : {}),
    };
    lines[c.line]!.text = renderSegments(next);
    touched.add(c.line);
  }
  const changed = lines.some((l, i) => l.text !== doc.source.lines[i]!.text);
  return { text: changed ? joinLines({ bom: doc.source.bom, lines }) : '', changed, rest };
}

/** A frontmatter value that is a scalar on one line, replaced in place as `applyEdits` would; undefined when it is not that simple. */
function setScalarInPlace(doc: PrdDocument, lines: SourceLine[], key: string, value: unknown, touched: ReadonlySet<number>): number | undefined {
  const fm = doc.frontmatter;
  if (!fm?.ok) return undefined;
  const rendered = stringify(value, { flowCollectionPadding: false, collectionStyle: 'flow' }).trimEnd();
  const node = findPair(fm.document, key)?.value;
  if (!isScalar(node) || !node.range || rendered.includes('\n')) return undefined;
  const start = fm.lineCounter.linePos(node.range[0]);
  const end = fm.lineCounter.linePos(node.range[1]);
  // linePos is 1-based and counts from the YAML's first line (the line after the opening fence).
  const line = start.line + fm.open;
  if (start.line !== end.line || touched.has(line) || !lines[line]) return undefined;
  const old = lines[line]!.text;
  lines[line]!.text = old.slice(0, start.col - 1) + rendered + old.slice(end.col - 1);
  return line;
}

function titleOf(request: string): string {
  const first = request.split(/\r?\n/)[0]!.trim();
  return first.length > 80 ? `${first.slice(0, 79)}…` : first || 'Run';
}

function missingDecisions(doc: PrdDocument, state: AlgorithmState): Decision[] {
  const known = new Set(doc.decisions.map((d) => d.title.trim()));
  return state.decisions.filter((d) => !known.has(oneLine(d.decision)));
}

/** Appends decisions the file does not show yet, in the PRD's `### date: title` form. */
function addDecisions(text: string, doc: PrdDocument, missing: readonly Decision[]): string {
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

/** The user's criteria in a PRD, as the run's pinned starting criteria, with the title and the PRD's `max_iterations` (which the run honours). */
export function criteriaFromPrd(text: string, at: string, toCore: (c: ReturnType<typeof parsePrd>['criteria'][number], at: string) => { ok: true; criterion: AnyCriterion } | { ok: false; message: string }): { criteria: AnyCriterion[]; problems: string[]; title?: string; maxIterations?: number } {
  const doc = parsePrd(text);
  const criteria: AnyCriterion[] = [];
  const problems = doc.diagnostics.filter((d) => d.severity === 'error').map((d) => `line ${d.line}: ${d.message}`);
  for (const c of doc.criteria) {
    const r = toCore(c, at);
    if (r.ok) criteria.push({ ...r.criterion, status: 'PENDING' } as AnyCriterion);
    else problems.push(r.message);
  }
  const max = doc.meta.maxIterations;
  if (max === 0) {
    const at = doc.frontmatter ? keyRange(doc.frontmatter, 'max_iterations') : undefined;
    problems.push(`${at ? `line ${at.start.line + 1}: ` : ''}max_iterations: 0 cannot be honoured, a run verifies at least once; write 1, or leave it out for the effort level's`);
  }
  return { criteria, problems, ...(doc.title ? { title: doc.title.text } : {}), ...(max !== undefined && max >= 1 ? { maxIterations: max } : {}) };
}

/** What an iteration's candidates did, for its LOG entry: kept in the memo once an iteration goes round again and they are cleared. */
function workOf(state: AlgorithmState, iteration: number): string {
  const now = state.candidates.filter((c) => c.iteration === iteration).map((c) => c.summary).join('; ');
  if (now) return now;
  if (state.memo.work?.iteration === iteration && state.memo.work.summary) return state.memo.work.summary;
  return 'nothing was changed';
}

/**
 * Where the run goes after an iteration's VERIFY, for its LOG entry: the entry is written once,
 * so on the last iteration it must say the run ends, never that it goes round again.
 */
function afterVerifyWords(state: AlgorithmState, report: NonNullable<AlgorithmState['report']>, table: EffortTable): string {
  const { run, memo } = state;
  if (report.passed) return runStateLabel('COMPLETE');
  const ended = memo.exit ?? memo.stopping ?? (runStateIs('going', run.state) ? undefined : run.state);
  if (ended) return `run ends ${runStateLabel(ended)}`;
  const max = memo.maxIterations ?? table.levels[run.effort].maxIterations;
  if (max !== null && max !== undefined && report.iteration >= max) return `run ends: no iteration left (${iterationLimitLabel(max)})`;
  return `iteration ${report.iteration + 1}`;
}
