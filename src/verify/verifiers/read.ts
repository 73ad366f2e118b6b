import * as fs from 'node:fs/promises';
import { confinePath } from '../confine';
import { compilePattern } from '../search-types';
import { fail, pass, unknown, type MethodOf, type VerifierContext, type Verdict } from '../verdict';

const MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * READ: the file exists, and contains the substring and/or a line matching the regex when
 * given. For an anti-criterion the method names the bad thing ("No .env file is committed |
 * Verify: Read: .env"): it holds when the file is absent or lacks the content.
 */
export async function verifyRead(method: MethodOf<'READ'>, ctx: VerifierContext): Promise<Verdict> {
  const anti = ctx.criterion.kind === 'anti-criterion';
  const id = ctx.criterion.id;
  const target = await confinePath(ctx.host.workspaceRoot, method.path, ctx.host.linkedRoot);
  if (!target.ok) return unknown('SCOPE_ERROR', `not read: ${target.reason}`, `The Read path of ${id} names a file inside the workspace`);
  const regex = method.matches === undefined ? undefined : compilePattern(method.matches);
  if (regex && !regex.ok) return unknown('AMBIGUITY', `/${method.matches}/ is not a valid regular expression: ${regex.reason}`, `The Read pattern of ${id} is a valid regular expression`);
  const coverage = { paths: [target.relative] };
  const wants = [method.contains !== undefined ? `contains "${method.contains}"` : '', method.matches !== undefined ? `has a line matching /${method.matches}/` : ''].filter(Boolean).join(' and ');
  const state = `${method.path} exists${wants ? ` and ${wants}` : ''}`;
  // `holds`: the method's condition (exists, contains, matches) is true.
  const verdict = (holds: boolean, evidence: string): Verdict =>
    anti
      ? holds
        ? fail('CONSTRAINT_VIOLATION', evidence, `It is not the case that ${state}`, { coverage })
        : pass(evidence, { coverage })
      : holds
        ? pass(evidence, { coverage })
        : fail('REQUIREMENT_COVERAGE', evidence, state, { coverage });

  if (!target.exists) return verdict(false, `${method.path} does not exist`);
  let stat;
  try {
    stat = await fs.stat(target.absolute);
  } catch (error) {
    return unknown('EXECUTION_ERROR', `${method.path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, `${method.path} can be read`);
  }
  if (!wants) return verdict(true, `${method.path} exists (${stat.isDirectory() ? 'a folder' : `${stat.size} bytes`})`);
  if (!stat.isFile()) return verdict(false, `${method.path} is not a file`);
  if (stat.size > MAX_READ_BYTES) return unknown('EXECUTION_ERROR', `${method.path} is ${stat.size} bytes, more than the ${MAX_READ_BYTES} bytes Read looks at`, `${method.path} is small enough to read`);
  let text: string;
  try {
    text = await fs.readFile(target.absolute, 'utf8');
  } catch (error) {
    return unknown('EXECUTION_ERROR', `${method.path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, `${method.path} can be read`);
  }
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const found: string[] = [];
  const missing: string[] = [];
  if (method.contains !== undefined) {
    const at = text.indexOf(method.contains);
    if (at >= 0) found.push(`"${method.contains}" at ${target.relative}:${lineOf(at)}`);
    else missing.push(`"${method.contains}"`);
  }
  if (regex?.ok) {
    const m = new RegExp(regex.regex.source, `${regex.regex.flags}m`).exec(text);
    if (m) found.push(`/${method.matches}/ at ${target.relative}:${lineOf(m.index)}`);
    else missing.push(`a line matching /${method.matches}/`);
  }
  const evidence = missing.length === 0 ? `${method.path} has ${found.join(' and ')}` : `${method.path} exists but has no ${missing.join(' and no ')}${found.length > 0 ? ` (it has ${found.join(' and ')})` : ''}`;
  return verdict(missing.length === 0, evidence);
}
