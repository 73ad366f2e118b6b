import type { Priority } from '../../model/criterion';
import type { VerificationMethod } from '../../model/verification-method';

/**
 * What the verifier that holds an agent can decide. The done gate verifies outside the editor
 * (a host's hook, the MCP server, a terminal): no model judges Custom criteria there, no browser
 * runs Browser scenarios, the editor's diagnostics are not there, VS Code's own tasks cannot
 * run, and a command runs only when the allow-list names it (there is no person to ask).
 */
export interface GateCapabilities {
  /** Why no model judges a Custom criterion there; absent where one does. */
  noJudge?: string;
  /** Why a Browser scenario is not run there; absent where a browser runner is configured. */
  noBrowser?: string;
  /** Why a Static check finds no diagnostics to read there; absent where it does. */
  noDiagnostics?: string;
  /** Task names (of a `Task:`, or a `Test:` naming a task) that cannot run there, with why. */
  tasksThatCannotRun: ReadonlyMap<string, string>;
  /** Why the command a method runs would not be run there, unasked; undefined when it runs. */
  commandHeld(method: VerificationMethod): string | undefined;
}

/** A criterion as the rule reads it: the engine's criterion, or a locked one with its method read back. */
export interface CriterionToDecide {
  id: string;
  priority: Priority;
  verify?: VerificationMethod | undefined;
}

/** A CRITICAL criterion nothing there can decide: it is UNKNOWN at every stop, so it holds an agent until the gate's block limit. */
export interface Undecidable {
  id: string;
  /** Why, in the words the person reads at lock time. */
  why: string;
  /** What the person can do about it. */
  fix: string;
}

const REWRITE = 'make it a command or a Grep, or lower its priority';

/**
 * The CRITICAL criteria that no verifier with these capabilities can decide. Only CRITICAL ones
 * hold an agent; an IMPORTANT or NICE criterion that stays UNKNOWN is reported, not blocking.
 * A check that can run but may fail (a Grep, a Read, an allowed command) is decidable: failing is
 * an answer.
 */
export function undecidableCriteria(criteria: readonly CriterionToDecide[], capabilities: GateCapabilities): Undecidable[] {
  const found: Undecidable[] = [];
  for (const c of criteria) {
    if (c.priority !== 'CRITICAL') continue;
    const why = reasonFor(c.verify, capabilities);
    if (why) found.push({ id: c.id, ...why });
  }
  return found;
}

function reasonFor(method: VerificationMethod | undefined, caps: GateCapabilities): Omit<Undecidable, 'id'> | undefined {
  if (!method) return { why: 'it names no verification method, so nothing checks it', fix: 'give it a check (a "| Verify: CLI: …" or "| Verify: Grep: …", an ISA\'s Test Strategy row), or lower its priority' };
  const held = (): Omit<Undecidable, 'id'> | undefined => {
    const reason = caps.commandHeld(method);
    return reason ? { why: reason, fix: 'list its command in .ideal-state/verify-commands.yaml (reviewed like code), make it a Grep, or lower its priority' } : undefined;
  };
  switch (method.type) {
    case 'CUSTOM':
      return caps.noJudge ? { why: `Custom: ${caps.noJudge}`, fix: REWRITE } : undefined;
    case 'BROWSER':
      return caps.noBrowser ? { why: `Browser: ${caps.noBrowser}`, fix: REWRITE } : undefined;
    case 'STATIC':
      if (method.command) return held();
      return caps.noDiagnostics ? { why: `Static: ${caps.noDiagnostics}, and it names no command to run instead`, fix: `add "| command: …" (your linter), ${REWRITE}` } : undefined;
    case 'TASK': {
      const cannot = caps.tasksThatCannotRun.get(method.task);
      return cannot ? { why: `Task: ${cannot}`, fix: REWRITE } : held();
    }
    case 'TEST': {
      const cannot = caps.tasksThatCannotRun.get(method.test);
      return cannot ? { why: `Test: ${cannot}`, fix: REWRITE } : held();
    }
    case 'CLI':
      return held();
    case 'GREP':
    case 'READ':
      return undefined;
  }
}

/**
 * The lines a lock dialog or terminal shows for one PRD's undecidable criteria; empty when
 * there are none. Locking still proceeds on the person's yes: they may mean to decide it
 * themselves by approving a change later.
 */
export function undecidableLines(found: readonly Undecidable[]): string[] {
  if (found.length === 0) return [];
  const n = found.length;
  return [
    `${n === 1 ? 'This CRITICAL criterion' : `These ${n} CRITICAL criteria`} cannot be decided by the done gate, so ${n === 1 ? 'it stays' : 'they stay'} UNKNOWN and would hold an agent until the gate's block limit ends its turn as not done:`,
    ...found.map((u) => `  ${u.id}: ${u.why}. To fix: ${u.fix}.`),
  ];
}
